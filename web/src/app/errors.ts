/** Errors as sentences a user can act on. */
import { ApiError } from "../api/client.js";

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof DOMException && error.name === "AbortError") return "";
  if (error instanceof TypeError) return "The server could not be reached.";
  return error instanceof Error ? error.message : String(error);
}
