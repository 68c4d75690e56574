/**
 * Typed errors every layer throws and callers branch on (http/ maps them to ArcGIS codes).
 * Messages are written for the user: they say what is wrong and, where it helps, what to do.
 */

export class StrataError extends Error {
  /** The parameter or input the error concerns, when there is one. */
  readonly parameter?: string;
  constructor(message: string, options?: { parameter?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.parameter = options?.parameter;
  }
}

/** A request or argument is malformed or out of range (ArcGIS 400). */
export class InvalidInputError extends StrataError {}

/** A named dataset, variable, dimension or path does not exist (ArcGIS 404 / 400 at submit). */
export class NotFoundError extends StrataError {}

/** A path tries to leave the share or store it names. */
export class PathEscapeError extends InvalidInputError {}

/** The data exists but Strata cannot represent it (curvilinear grid, unknown format ...). */
export class UnsupportedDataError extends StrataError {}

/** A file is damaged or not what its name says. */
export class CorruptDataError extends StrataError {}
