/**
 * What travels between the server and its work threads: each kind of work with its input
 * and output (plain data: paths and request parameters in, bytes or JSON out), and typed
 * errors flattened on the thread and rebuilt on the server, so a 400 raised while drawing
 * is still a 400 naming its parameter.
 */
import { CorruptDataError, InvalidInputError, NotFoundError, StrataError, UnsupportedDataError } from "../../cube/errors.js";
import type { Window } from "../../cube/types.js";
import type { DimensionSelection } from "../../io/netcdf4Write.js";
import type { ExportedImage } from "../exportImage.js";
import type { ImageEncoder } from "../render/encodeImage.js";
import type { UploadType } from "../upload.js";

/** Request parameters as the HTTP layer decoded them. */
type Params = Readonly<Record<string, string>>;

export interface WorkRequest {
  /** Draw an exportImage request of the raster at `path` (a tile: only `validWindow`'s pixels hold values). */
  readonly export: { readonly path: string; readonly params: Params; readonly validWindow?: Window };
  readonly identify: { readonly path: string; readonly params: Params };
  readonly getSamples: { readonly path: string; readonly params: Params };
  readonly computeStatisticsHistograms: { readonly path: string; readonly params: Params };
  /** Write a checked selection of the raster at `source` as NetCDF-4 at `target`. */
  readonly download: {
    readonly source: string;
    readonly target: string;
    readonly variables: readonly string[];
    readonly selections: Readonly<Record<string, DimensionSelection>>;
    /** Names the file gives some dimensions (a trend raster's Band is `band`). */
    readonly dimensionNames?: Readonly<Record<string, string>>;
  };
  /** Make a committed dataset of an uploaded file (unpacking a zipped Zarr store). */
  readonly storeUpload: {
    readonly dataDir: string;
    /** The uploaded file on disk; moved into the dataset or removed. */
    readonly upload: string;
    /** The name the client gave it (for messages and its type). */
    readonly fileName: string;
    /** Most bytes the dataset may take (the owner's quota left, or the upload limit). */
    readonly maxBytes: number;
  };
  /** Convert the raster at `source` into a new committed Strata dataset. */
  readonly copyIntoStore: { readonly dataDir: string; readonly source: string; readonly label: string };
}

export interface WorkResult {
  readonly export: ExportedImage;
  readonly identify: unknown;
  readonly getSamples: unknown;
  readonly computeStatisticsHistograms: unknown;
  readonly download: { readonly bytes: number };
  readonly storeUpload: {
    readonly datasetId: string;
    readonly type: UploadType;
    readonly file?: string;
    readonly bytes: number;
    /** What of the file is not read, for the item's description. */
    readonly notes?: readonly string[];
  };
  readonly copyIntoStore: { readonly datasetId: string; readonly bytes: number };
}

export type WorkKind = keyof WorkRequest;

/** What every thread of the pool starts with (its workerData). */
export interface ThreadSettings {
  readonly imageEncoder: ImageEncoder;
}

/** server -> thread */
export interface ThreadTask {
  readonly kind: WorkKind;
  readonly input: WorkRequest[WorkKind];
}

/** A typed error as plain data. */
export interface FlatError {
  readonly type: "InvalidInput" | "NotFound" | "Unsupported" | "Corrupt" | "Strata" | "Internal";
  readonly message: string;
  readonly parameter?: string;
}

/** thread -> server */
export type ThreadAnswer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: FlatError };

/**
 * @example
 * flattenError(new InvalidInputError("size too large", { parameter: "size" })); // { type: "InvalidInput", message, parameter: "size" }
 */
export function flattenError(e: unknown): FlatError {
  const message = e instanceof Error ? e.message : String(e);
  const parameter = e instanceof StrataError ? e.parameter : undefined;
  const type: FlatError["type"] =
    e instanceof InvalidInputError
      ? "InvalidInput"
      : e instanceof NotFoundError
        ? "NotFound"
        : e instanceof UnsupportedDataError
          ? "Unsupported"
          : e instanceof CorruptDataError
            ? "Corrupt"
            : e instanceof StrataError
              ? "Strata"
              : "Internal";
  return { type, message, ...(parameter ? { parameter } : {}) };
}

/** The error a FlatError stands for; an internal one keeps its message for the log only. */
export function reviveError(flat: FlatError): Error {
  const options = flat.parameter ? { parameter: flat.parameter } : undefined;
  switch (flat.type) {
    case "InvalidInput":
      return new InvalidInputError(flat.message, options);
    case "NotFound":
      return new NotFoundError(flat.message, options);
    case "Unsupported":
      return new UnsupportedDataError(flat.message, options);
    case "Corrupt":
      return new CorruptDataError(flat.message, options);
    case "Strata":
      return new StrataError(flat.message, options);
    case "Internal":
      return new Error(`work thread: ${flat.message}`);
  }
}
