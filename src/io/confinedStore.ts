/**
 * Zarr stores that never answer for a key outside themselves (DESIGN.md, trust boundaries):
 * a store's metadata is hostile until read, and a chunk key built from it (a
 * `chunk_key_encoding` separator, a consolidated-metadata path) could otherwise climb out of
 * the store with `..`, an absolute or encoded path, or a symlink. Every key must be plain
 * segments; on disk, the file it names must resolve (symlinks followed) inside the store.
 */
import { open, realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import { FileSystemStore } from "@zarrita/storage";
import type { AbsolutePath, GetOptions, RangeQuery } from "@zarrita/storage";
import * as zarr from "zarrita";
import { CorruptDataError } from "../cube/errors.js";

type Key = AbsolutePath;

/** A segment of a store key: no "..", no ".", nothing a path or URL could decode into a separator. */
const SEGMENT = /^(?!\.{1,2}$)[^/\\%\0?#]+$/;

/**
 * @example
 * checkKey("/tas/c/0/0"); // ok
 * checkKey("/tas/c/../../etc/passwd"); // throws CorruptDataError
 */
export function checkKey(key: string, label: string): void {
  const segments = key.split("/").slice(1);
  if (!key.startsWith("/") || segments.some((s) => !SEGMENT.test(s))) {
    throw new CorruptDataError(`${label}: the Zarr metadata asks for a key outside the store (${JSON.stringify(key.slice(0, 80))})`);
  }
}

/** A directory store confined to `root`. */
export async function confinedFileStore(root: string, label: string): Promise<zarr.AsyncReadable> {
  const inner = new FileSystemStore(root);
  const home = await realpath(root);
  const inside = async (key: Key): Promise<boolean> => {
    checkKey(key, label);
    const real = await realpath(join(home, key.slice(1))).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return undefined;
      throw e;
    });
    if (real === undefined) return false;
    if (!real.startsWith(home + sep)) {
      throw new CorruptDataError(`${label}: ${JSON.stringify(key.slice(0, 80))} links outside the store`);
    }
    return true;
  };
  return {
    get: async (key: Key, opts?: GetOptions) => ((await inside(key)) ? inner.get(key, opts) : undefined),
    getRange: async (key: Key, range: RangeQuery, opts?: GetOptions) =>
      (await inside(key)) ? readRange(join(home, key.slice(1)), range, opts?.signal) : undefined,
  } as zarr.AsyncReadable;
}

/**
 * The bytes of `range` of the file at `path`, fewer where it ends (zarrita's store fills
 * what lies past the end with zeros, which a reader cannot tell from values); undefined when
 * there is no such file.
 */
async function readRange(path: string, range: RangeQuery, signal?: AbortSignal): Promise<Uint8Array | undefined> {
  signal?.throwIfAborted();
  const file = await open(path, "r").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return undefined;
    throw e;
  });
  if (!file) return undefined;
  try {
    const size = (await file.stat()).size;
    const [offset, length] =
      "suffixLength" in range ? [Math.max(0, size - range.suffixLength), range.suffixLength] : [range.offset, range.length];
    const data = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
    for (let got = 0; got < data.length;) {
      const { bytesRead } = await file.read(data, got, data.length - got, offset + got);
      if (bytesRead === 0) return data.subarray(0, got);
      got += bytesRead;
    }
    signal?.throwIfAborted();
    return data;
  } finally {
    await file.close();
  }
}

/** An HTTP(S) store whose keys stay under its base URL. */
export function confinedFetchStore(url: string, label: string): zarr.AsyncReadable {
  const inner = new zarr.FetchStore(url);
  return {
    get: (key: Key, opts?: RequestInit) => {
      checkKey(key, label);
      return inner.get(key, opts);
    },
    getRange: (key: Key, range: RangeQuery, opts?: RequestInit) => {
      checkKey(key, label);
      return inner.getRange(key, range, opts);
    },
  } as zarr.AsyncReadable;
}

/**
 * Refuse an array whose chunk keys would be built with anything but "/" or "." between
 * indices (Zarr v2 `dimension_separator`, v3 `chunk_key_encoding`), before a key is built.
 * @example
 * checkSeparator(JSON.parse(zarray), "tas", "upload.zip");
 */
export function checkSeparator(meta: Record<string, unknown>, array: string, label: string): void {
  const encoding = meta.chunk_key_encoding as { configuration?: { separator?: unknown } } | undefined;
  const separator = meta.dimension_separator ?? encoding?.configuration?.separator;
  if (separator !== undefined && separator !== "/" && separator !== ".") {
    throw new CorruptDataError(
      `${label}: array ${array} separates chunk indices with ${JSON.stringify(String(separator).slice(0, 40))}; Zarr allows only "/" or "."`,
    );
  }
}
