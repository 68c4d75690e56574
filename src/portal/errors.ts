/**
 * Authentication and authorization failures, carrying the ArcGIS error code the HTTP layer
 * answers with: 400 bad credentials at generateToken, 403 not allowed, 498 invalid or expired
 * token, 499 token required.
 */
import { StrataError } from "../cube/errors.js";

export type AuthCode = 400 | 403 | 498 | 499;

/** The messages ArcGIS Enterprise answers with, which some clients match on. */
const DEFAULT_MESSAGE: Record<AuthCode, string> = {
  400: "Unable to generate token.",
  403: "You do not have permissions to access this resource or perform this operation.",
  498: "Invalid token.",
  499: "Token Required",
};

/**
 * @example
 * throw new AuthError(498, undefined, { details: ["Token has expired."] });
 * // http/: { error: { code: e.code, message: e.message, details: e.details } }
 */
export class AuthError extends StrataError {
  readonly code: AuthCode;
  /** Extra lines for the envelope's `details`; never secrets. */
  readonly details: readonly string[];
  constructor(code: AuthCode, message?: string, options?: { details?: readonly string[]; parameter?: string; cause?: unknown }) {
    super(message ?? DEFAULT_MESSAGE[code], options);
    this.code = code;
    this.details = options?.details ?? [];
  }
}
