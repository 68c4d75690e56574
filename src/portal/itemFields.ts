/**
 * Validation of item fields as they arrive from requests (untrusted, whatever their static
 * type says): each check returns the clean value or throws InvalidInputError naming the field.
 */
import { InvalidInputError } from "../cube/errors.js";
import { ACCESS_LEVELS, type Access } from "./access.js";

/** SPEC §5: letters, digits and underscores, at most 120 characters. */
export const SERVICE_NAME_PATTERN = /^[A-Za-z0-9_]{1,120}$/;

const CONTROL = /\p{Cc}/u;
const MAX_LIST = 128;

/**
 * Trimmed single-line text of 1 to `max` characters (or 0 to `max` when `allowEmpty`).
 * @example
 * checkText(" SST ", "title", 256); // "SST"
 */
export function checkText(value: unknown, parameter: string, max: number, allowEmpty = false): string {
  const clean = typeof value === "string" ? value.trim() : undefined;
  if (clean === undefined || (!allowEmpty && clean === "") || clean.length > max || CONTROL.test(clean))
    throw new InvalidInputError(
      `${parameter} must be ${allowEmpty ? "" : "non-empty "}text of at most ${max} characters without control characters`,
      { parameter },
    );
  return clean;
}

/**
 * Free text that may span lines (description).
 * @example
 * checkLongText("Line 1\nLine 2", "description", 65536);
 */
export function checkLongText(value: unknown, parameter: string, max: number): string {
  if (typeof value !== "string" || value.length > max)
    throw new InvalidInputError(`${parameter} must be text of at most ${max} characters`, { parameter });
  return value;
}

/**
 * A list of short strings (tags, typeKeywords): trimmed, empties and repeats dropped.
 * @example
 * checkStringList(["sst", " sst", ""], "tags"); // ["sst"]
 */
export function checkStringList(value: unknown, parameter: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_LIST)
    throw new InvalidInputError(`${parameter} must be a list of at most ${MAX_LIST} strings`, { parameter });
  const clean = value.map((entry) => checkText(entry, parameter, 256, true)).filter((entry) => entry !== "");
  return [...new Set(clean)];
}

/**
 * A hosted service name (null: none), refused naming `parameter` (an item's serviceName, or
 * the request parameter that carries the name).
 * @example
 * checkServiceName("sst_anomaly"); // "sst_anomaly"
 * checkServiceName("my output", "name"); // throws: name must be 1 to 120 letters, digits or underscores (got "my output")
 */
export function checkServiceName(value: unknown, parameter = "serviceName"): string | null {
  if (value === null) return null;
  if (typeof value !== "string" || !SERVICE_NAME_PATTERN.test(value))
    throw new InvalidInputError(
      `${parameter} must be 1 to 120 letters, digits or underscores (got ${JSON.stringify(String(value).slice(0, 130))})`,
      { parameter },
    );
  return value;
}

/**
 * @example
 * checkUrl("http://127.0.0.1:8080/arcgis/rest/services/Hosted/sst/ImageServer");
 */
export function checkUrl(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== "string" || value === "" || value.length > 2048 || /[\s\p{Cc}]/u.test(value))
    throw new InvalidInputError("url must be a URL of at most 2048 characters, without spaces", { parameter: "url" });
  return value;
}

/**
 * @example
 * checkAccess("ORG"); // "org"
 */
export function checkAccess(value: unknown): Access {
  const clean = typeof value === "string" ? value.toLowerCase() : value;
  if (!ACCESS_LEVELS.includes(clean as Access))
    throw new InvalidInputError(`access must be one of ${ACCESS_LEVELS.join(", ")} (got ${JSON.stringify(value)})`, {
      parameter: "access",
    });
  return clean as Access;
}

/**
 * A JSON object (not an array), at most 64 KiB as JSON; returned as its JSON text.
 * @example
 * checkProperties({ datasetId: "01J..." }); // '{"datasetId":"01J..."}'
 */
export function checkProperties(value: unknown): string {
  const text = typeof value === "object" && value !== null && !Array.isArray(value) ? JSON.stringify(value) : undefined;
  if (text === undefined || text.length > 65_536)
    throw new InvalidInputError("properties must be a JSON object of at most 64 KiB", { parameter: "properties" });
  return text;
}
