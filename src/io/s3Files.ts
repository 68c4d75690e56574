/**
 * Local copies of single-file rasters kept on S3 (an uploaded NetCDF, HDF5 or GeoTIFF): their
 * readers need a file (HDF5 through h5wasm, NetCDF-3 and GeoTIFF by file handle), so the
 * object is downloaded once into a directory of this thread and opened there. Copies in use
 * are pinned; the others go least recently used first once the copies add up to more than the
 * cache bound (STRATA_RASTER_CACHE_SIZE, as rangeCache.ts). Downloads of one object are shared.
 */
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { threadId } from "node:worker_threads";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { NotFoundError } from "../cube/errors.js";
import { DEFAULT_CACHE_BYTES, parseCacheSize } from "./rangeCache.js";
import { S3AccessError, isS3NotFound, s3Client, s3Reason } from "./s3Client.js";
import { type S3Location, s3Url } from "./s3Location.js";

interface Copy {
  readonly path: string;
  size: number;
  pins: number;
  ready: Promise<void>;
}

const copies = new Map<string, Copy>();
let dir: Promise<string> | undefined;

function copiesDir(): Promise<string> {
  dir ??= (async () => {
    const root = process.env.STRATA_RASTER_CACHE_DIR || join(tmpdir(), "strata-raster-cache");
    const mine = join(root, `${process.pid}-${threadId}-files`);
    await rm(mine, { recursive: true, force: true });
    await mkdir(mine, { recursive: true });
    return mine;
  })();
  return dir;
}

function bound(): number {
  const text = process.env.STRATA_RASTER_CACHE_SIZE;
  return text ? parseCacheSize(text) : DEFAULT_CACHE_BYTES;
}

/**
 * A local copy of an S3 object, pinned until `release()`.
 * @example
 * const copy = await localCopy({ bucket: "b", key: "p/01JABC/data.nc" }, "item 7");
 * try { await readIt(copy.path); } finally { copy.release(); }
 */
export async function localCopy(location: S3Location, label: string): Promise<{ path: string; release: () => void }> {
  const url = s3Url(location);
  let copy = copies.get(url);
  if (copy) {
    copies.delete(url);
  } else {
    const path = join(await copiesDir(), createHash("sha256").update(url).digest("hex"));
    const made: Copy = { path, size: 0, pins: 0, ready: Promise.resolve() };
    made.ready = download(location, path, label).then((size) => {
      made.size = size;
    });
    made.ready.catch(() => copies.get(url) === made && copies.delete(url));
    copy = made;
  }
  copies.set(url, copy);
  copy.pins++;
  const pinned = copy;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    pinned.pins--;
    evict();
  };
  try {
    await pinned.ready;
  } catch (e) {
    release();
    throw e;
  }
  evict();
  return { path: pinned.path, release };
}

function evict(): void {
  const max = bound();
  let total = [...copies.values()].reduce((n, c) => n + c.size, 0);
  for (const [url, copy] of copies) {
    if (total <= max) break;
    if (copy.pins > 0 || copy.size === 0) continue;
    copies.delete(url);
    total -= copy.size;
    void unlink(copy.path).catch(() => undefined);
  }
}

async function download(location: S3Location, path: string, label: string): Promise<number> {
  let answer;
  try {
    answer = await s3Client().send(new GetObjectCommand({ Bucket: location.bucket, Key: location.key }));
  } catch (e) {
    if (isS3NotFound(e)) throw new NotFoundError(`${label} does not exist`);
    throw new S3AccessError(`${label} could not be read from object storage (${s3Reason(e)})`, { cause: e });
  }
  const temporary = `${path}.${randomBytes(6).toString("hex")}`;
  try {
    await pipeline(answer.Body as Readable, createWriteStream(temporary));
    await rename(temporary, path);
  } catch (e) {
    await rm(temporary, { force: true });
    throw new S3AccessError(`${label} could not be read from object storage (${s3Reason(e)})`, { cause: e });
  }
  return answer.ContentLength ?? 0;
}
