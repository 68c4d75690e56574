/**
 * Path confinement for data stores: turn the user-supplied remainder of a
 * `/fileShares/<name>/<path>` or `/cloudStores/<name>/<path>` uri into a location that is
 * provably inside the store. Three gates, so what slips past one is caught by the next:
 *   1. `decodeStorePath`: percent-decode exactly once, then refuse `..`, absolute paths,
 *      backslashes, control characters and anything that would decode again into `.`, `/`
 *      or `\` (double encoding);
 *   2. `resolveInsideDir`: resolve symlinks and check the real path against the real root;
 *   3. `joinUrlInside`: URL-join and check the result keeps the base's origin and path prefix.
 */

import { lstat, readlink, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, parse as parsePath, relative, sep } from "node:path";
import { InvalidInputError, NotFoundError, PathEscapeError } from "../cube/errors.js";

// How many rounds of re-decoding we follow looking for a hidden ".", "/" or "\".
const MAX_DECODE_ROUNDS = 8;
// The kernel's own limit on symlinks followed while resolving one path.
const MAX_SYMLINKS = 40;

/**
 * The segments of a store-relative path, decoded once and checked. Empty for the store root.
 * `uri` is only used in error messages.
 *
 * @example
 * decodeStorePath("./era5/t2m%20daily.zarr/", uri); // ["era5", "t2m daily.zarr"]
 * decodeStorePath("a/../../x", uri); // throws PathEscapeError
 */
export function decodeStorePath(encoded: string, uri: string): string[] {
  const refuse = (reason: string): never => {
    throw new PathEscapeError(`The path ${quote(uri)} is refused: ${reason}.`, {
      parameter: "uri",
    });
  };

  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    throw new InvalidInputError(
      `The path ${quote(uri)} has malformed percent-encoding (each "%" must start a %XX escape of UTF-8; write a literal "%" as %25).`,
      { parameter: "uri" },
    );
  }

  // eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
  if (/[\u0000-\u001f\u007f]/.test(decoded)) refuse("it contains a NUL or other control character");
  if (decoded.includes("\\")) refuse("it contains a backslash");
  if (decoded.startsWith("/") || isAbsolute(decoded)) {
    refuse("it is an absolute path; paths are relative to the store");
  }
  const hidden = findDoubleEncoding(decoded);
  if (hidden) refuse(`it is encoded twice (${hidden} would decode again into ".", "/", "\\" or a control character)`);

  const segments: string[] = [];
  for (const segment of decoded.split("/")) {
    if (segment === "" || segment === ".") continue; // "a//b" and "./a" mean "a/b" and "a"
    if (segment === "..") refuse('it contains a ".." segment, which could leave the store');
    segments.push(segment);
  }
  return segments;
}

/**
 * Resolve `segments` under the directory `rootReal` (already a real path), following
 * symlinks, and return the real path of the target. PathEscapeError if the real path (or,
 * when the target does not exist, the real path of its deepest existing ancestor, or where a
 * dangling symlink points) lies outside the root; NotFoundError if the target is missing.
 *
 * @example
 * const root = await realpath("/srv/climate");
 * await resolveInsideDir(root, ["era5", "t2m.zarr"], uri); // "/srv/climate/era5/t2m.zarr"
 */
export async function resolveInsideDir(rootReal: string, segments: readonly string[], uri: string): Promise<string> {
  const lexical = join(rootReal, ...segments);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ELOOP") {
      throw new InvalidInputError(`The path ${quote(uri)} cannot be resolved: a symbolic-link loop.`, {
        parameter: "uri",
      });
    }
    if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
    // Missing: find out where it *would* be, so a dangling link pointing out is an escape
    // (writing through it would create the file outside), not a mere "not found".
    const wouldBe = await resolveMissing(rootReal, segments, uri);
    assertInside(rootReal, wouldBe, uri);
    throw new NotFoundError(`Nothing exists at ${quote(uri)}.`, {
      parameter: "uri",
    });
  }
  assertInside(rootReal, real, uri);
  return real;
}

/**
 * The URL of `segments` under the HTTP(S) `base`, each segment percent-encoded, checked to
 * keep the base's origin and path prefix.
 *
 * @example
 * joinUrlInside(new URL("https://host/bucket/era5/"), ["t2m.zarr"], uri);
 * // "https://host/bucket/era5/t2m.zarr"
 */
export function joinUrlInside(base: URL, segments: readonly string[], uri: string): string {
  const prefix = base.pathname.endsWith("/") ? base.pathname : base.pathname + "/";
  const dir = new URL(prefix, base);
  const url = new URL(segments.map(encodeURIComponent).join("/"), dir);
  if (url.origin !== base.origin || !(url.pathname + "/").startsWith(prefix)) {
    throw new PathEscapeError(`The path ${quote(uri)} is refused: it leaves the store's base URL.`, {
      parameter: "uri",
    });
  }
  return url.href;
}

/** Whether the real path `real` is `rootReal` or below it. */
export function isInside(rootReal: string, real: string): boolean {
  const rel = relative(rootReal, real);
  if (rel === "") return true;
  // Compare whole segments: a file named "..foo" at the root is inside.
  return rel !== ".." && !rel.startsWith(".." + sep) && !isAbsolute(rel);
}

function assertInside(rootReal: string, real: string, uri: string): void {
  if (!isInside(rootReal, real)) {
    throw new PathEscapeError(`The path ${quote(uri)} is refused: a symbolic link on it leads outside the store.`, { parameter: "uri" });
  }
}

/**
 * Walk `segments` from the root as the kernel would, following symlinks by hand, until a
 * component is missing; return the real directory reached joined with what is left. Only
 * used after realpath() failed, so the slow path costs nothing on hits.
 */
async function resolveMissing(rootReal: string, segments: readonly string[], uri: string): Promise<string> {
  const queue = [...segments];
  let current = rootReal;
  let links = 0;
  while (queue.length > 0) {
    const segment = queue.shift()!;
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      current = dirname(current); // only link targets can bring ".." here
      continue;
    }
    const next = join(current, segment);
    let isLink: boolean;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch (err) {
      const code = errnoCode(err);
      if (code === "ENOENT" || code === "ENOTDIR") return join(next, ...queue);
      throw err;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++links > MAX_SYMLINKS) {
      throw new InvalidInputError(`The path ${quote(uri)} cannot be resolved: a symbolic-link loop.`, {
        parameter: "uri",
      });
    }
    const target = await readlink(next);
    if (isAbsolute(target)) current = parsePath(target).root;
    queue.unshift(...target.split(/[\\/]/));
  }
  return current;
}

/**
 * After the single decode, a "%xx" that is still there is data, unless decoding it again
 * (possibly several times, "%25252e") yields ".", "/", "\" or a control character: that is
 * a double-encoded traversal aimed at whoever decodes next. Returns the offending text.
 */
function findDoubleEncoding(decoded: string): string | undefined {
  let text = decoded;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    let hidden: string | undefined;
    // Lax decoding, one escape at a time, as a careless downstream decoder would do.
    const next = text.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
      const code = parseInt(hex, 16);
      if (code === 0x2e || code === 0x2f || code === 0x5c || code < 0x20 || code === 0x7f) {
        hidden ??= escape;
      }
      return String.fromCharCode(code);
    });
    if (hidden) return hidden;
    if (next === text) return undefined;
    text = next;
  }
  return text; // still decoding after many rounds: nobody legitimate names a file like that
}

function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? text.slice(0, 200) + "…" : text);
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}
