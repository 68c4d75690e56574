/**
 * The `--queue` URL, checked before anything starts (without loading a Redis client, so that
 * the embedded default pays nothing for it), and the form of it that may be shown: a URL may
 * carry a password.
 */
import { InvalidInputError } from "../../cube/errors.js";

/**
 * Throw an InvalidInputError naming `--<flag>` unless `text` is a redis:// or rediss:// URL
 * with a host (port and database optional).
 * @example
 * checkRedisUrl("redis://127.0.0.1:6379", "queue"); // fine
 * checkRedisUrl("http://x", "queue"); // InvalidInputError: --queue must be a redis:// URL ...
 */
export function checkRedisUrl(text: string, flag: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidInputError(`--${flag} must be a redis:// URL such as redis://127.0.0.1:6379; got something else`, { parameter: flag });
  }
  const where = describeRedisUrl(text);
  if (url.protocol !== "redis:" && url.protocol !== "rediss:")
    throw new InvalidInputError(`--${flag} must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379; got ${where}`, {
      parameter: flag,
    });
  if (url.hostname === "") throw new InvalidInputError(`--${flag} names no host: ${where}`, { parameter: flag });
  const db = url.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d{1,2}$/.test(db))
    throw new InvalidInputError(`--${flag}: the database after the host must be a number from 0 to 15; got ${where}`, { parameter: flag });
  if (url.search !== "" || url.hash !== "")
    throw new InvalidInputError(`--${flag} takes no query or fragment: ${where}`, { parameter: flag });
}

/**
 * The URL as it may be shown: the password replaced by "***".
 * @example
 * describeRedisUrl("redis://:s3cret@cache:6379/1"); // "redis://:***@cache:6379/1"
 */
export function describeRedisUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== "") url.password = "***";
    return url.href.replace(/\/$/, "");
  } catch {
    // Not a URL: it may still hold a secret, so none of it is shown.
    return "(not a URL)";
  }
}
