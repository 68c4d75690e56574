/**
 * Errors as ArcGIS clients read them: `{"error":{"code","message","details"}}` with HTTP 200
 * for f=json/pjson (the body carries the code), the real status for f=html.
 * Typed errors from the layers below map to codes here, and nowhere else.
 */
import { InvalidInputError, NotFoundError, StrataError, UnsupportedDataError } from "../cube/errors.js";
import { AuthError } from "../portal/errors.js";
import { BusyError } from "../services/work/pool.js";

export interface ErrorBody {
  readonly code: number;
  readonly message: string;
  readonly details: string[];
}

/** An error the HTTP layer raises itself (unknown route, method not allowed ...). */
export class HttpError extends StrataError {
  constructor(
    readonly code: number,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

/**
 * @example
 * errorBody(new InvalidInputError("variables: no variable xyz", { parameter: "variables" }))
 * // { code: 400, message: "Unable to complete operation.", details: ["variables: ..."] }
 */
export function errorBody(e: unknown): ErrorBody {
  if (e instanceof HttpError) return { code: e.code, message: e.message, details: e.details };
  if (e instanceof AuthError) return { code: e.code, message: e.message, details: [...e.details] };
  if (e instanceof BusyError) return { code: 503, message: "Server busy.", details: [e.message] };
  if (e instanceof InvalidInputError || e instanceof UnsupportedDataError) {
    const detail = e.parameter && !e.message.includes(e.parameter) ? `${e.parameter}: ${e.message}` : e.message;
    return { code: 400, message: "Unable to complete operation.", details: [detail] };
  }
  if (e instanceof NotFoundError) return { code: 404, message: e.message, details: [] };
  if (e instanceof StrataError) return { code: 400, message: "Unable to complete operation.", details: [e.message] };
  return { code: 500, message: "Internal server error.", details: [] };
}
