/**
 * A bounded cache on local disk for bytes fetched from object storage (whole objects or byte
 * ranges of them), least recently used out first, counted in bytes. Concurrent misses for
 * one key share one load; an absent object is remembered (in memory) as absent. What it holds
 * must not change under it: Strata's datasets never do (an update makes a new dataset).
 *
 * One cache per thread, in a directory of its own (`<root>/<pid>-<threadId>`), emptied when
 * made; directories of processes that no longer run are removed then too.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, rename, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { InvalidInputError } from "../cube/errors.js";

export interface RangeCache {
  /**
   * The bytes cached under `key`, or `load()`'s (then cached); one load at a time per key.
   * Undefined when `load` says the object is absent.
   */
  get(key: string, load: () => Promise<Uint8Array | undefined>): Promise<Uint8Array | undefined>;
  /** Bytes held on disk now (never more than `maxBytes`). */
  readonly bytes: number;
  readonly maxBytes: number;
  readonly dir: string;
  /** Loads started (misses that were not coalesced into another's). */
  readonly loads: number;
}

/** Default bound of one thread's cache. */
export const DEFAULT_CACHE_BYTES = 512 * 1024 ** 2;
/** Keys remembered as absent (sparse Zarr arrays have many missing chunks). */
const ABSENT_KEPT = 100_000;

/**
 * @example
 * const cache = createRangeCache({ dir: "/tmp/c", maxBytes: 64 * 1024 ** 2 });
 * const bytes = await cache.get("s3://b/k#0-99", () => fetchRange("b", "k", 0, 100));
 */
export function createRangeCache(options: { dir: string; maxBytes: number }): RangeCache {
  const { dir, maxBytes } = options;
  const entries = new Map<string, { file: string; size: number }>();
  const absent = new Map<string, true>();
  const inflight = new Map<string, Promise<Uint8Array | undefined>>();
  let total = 0;
  let loads = 0;
  const ready = rm(dir, { recursive: true, force: true }).then(() => mkdir(dir, { recursive: true }));
  // A failed mkdir makes the cache a pass-through, not a failure of every read.
  let usable = true;
  ready.catch(() => (usable = false));

  const drop = (key: string): Promise<void> => {
    const entry = entries.get(key);
    if (!entry) return Promise.resolve();
    entries.delete(key);
    total -= entry.size;
    return unlink(entry.file).catch(() => undefined);
  };

  const store = async (key: string, data: Uint8Array): Promise<void> => {
    if (data.byteLength > maxBytes || !usable) return;
    // Room first, the evicted files gone before this one is written, so the files on disk
    // never add up to more than the bound.
    const dropped: Promise<void>[] = [];
    for (const oldest of entries.keys()) {
      if (total + data.byteLength <= maxBytes) break;
      dropped.push(drop(oldest));
    }
    if (total + data.byteLength > maxBytes) return;
    const file = join(dir, createHash("sha256").update(key).digest("hex"));
    entries.set(key, { file, size: data.byteLength });
    total += data.byteLength;
    try {
      await ready;
      await Promise.all(dropped);
      const temporary = `${file}.${randomBytes(6).toString("hex")}`;
      await writeFile(temporary, data);
      await rename(temporary, file);
      // Evicted while it was written: its bytes no longer count, so they must not stay.
      if (entries.get(key)?.file !== file) await unlink(file).catch(() => undefined);
    } catch {
      // A full or read-only disk: serve without caching this one.
      if (entries.get(key)?.file === file) {
        entries.delete(key);
        total -= data.byteLength;
      }
    }
  };

  const load = (key: string, loader: () => Promise<Uint8Array | undefined>): Promise<Uint8Array | undefined> => {
    loads++;
    const loading = loader()
      .then(async (data) => {
        if (data === undefined) {
          absent.set(key, true);
          if (absent.size > ABSENT_KEPT) absent.delete(absent.keys().next().value as string);
        } else {
          await store(key, data);
        }
        return data;
      })
      .finally(() => inflight.delete(key));
    inflight.set(key, loading);
    return loading;
  };

  return {
    async get(key, loader) {
      if (absent.has(key)) return undefined;
      const running = inflight.get(key);
      if (running) return running;
      const entry = entries.get(key);
      if (entry) {
        entries.delete(key);
        entries.set(key, entry);
        try {
          return new Uint8Array(await readFile(entry.file));
        } catch {
          // Evicted while read, or the file was removed: load it again.
          if (entries.get(key) === entry) {
            entries.delete(key);
            total -= entry.size;
          }
        }
      }
      return inflight.get(key) ?? load(key, loader);
    },
    get bytes() {
      return total;
    },
    maxBytes,
    dir,
    get loads() {
      return loads;
    },
  };
}

/**
 * A size from STRATA_RASTER_CACHE_SIZE: "512M", "2G", a number of bytes; "0" for no cache.
 * @example
 * parseCacheSize("256M"); // 268435456
 */
export function parseCacheSize(text: string): number {
  const m = text.trim().match(/^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i);
  if (!m)
    throw new InvalidInputError(`STRATA_RASTER_CACHE_SIZE must be a size such as 512M or 4G, or 0 for none; got "${text.slice(0, 40)}"`);
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2].toLowerCase()] ?? 1;
  return Math.round(Number(m[1]) * unit);
}

let threadCache: RangeCache | undefined;

/**
 * This thread's cache, bounded by STRATA_RASTER_CACHE_SIZE (default 512M) under
 * STRATA_RASTER_CACHE_DIR (default <tmp>/strata-raster-cache).
 */
export function threadRangeCache(env: Readonly<Record<string, string | undefined>> = process.env): RangeCache {
  if (threadCache) return threadCache;
  const root = env.STRATA_RASTER_CACHE_DIR || join(tmpdir(), "strata-raster-cache");
  const maxBytes = env.STRATA_RASTER_CACHE_SIZE ? parseCacheSize(env.STRATA_RASTER_CACHE_SIZE) : DEFAULT_CACHE_BYTES;
  void removeDeadCaches(root);
  threadCache = createRangeCache({ dir: join(root, `${process.pid}-${threadId}`), maxBytes });
  return threadCache;
}

/** Remove the cache directories of processes that are gone (a crash leaves them behind). */
async function removeDeadCaches(root: string): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^(\d+)-\d+$/.exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    await rm(join(root, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
