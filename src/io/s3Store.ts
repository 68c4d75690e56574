/**
 * Zarr stores on S3 for zarrita: `get` and `getRange` are GetObject requests (with a Range
 * header for ranges), through the thread's bounded disk cache (rangeCache.ts). Keys are
 * checked like every other store's (confinedStore.ts): plain segments only, so a key built
 * from hostile metadata never leaves the store's prefix. Also the few plain object reads the
 * format detection needs.
 */
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import type { AbsolutePath, GetOptions, RangeQuery } from "@zarrita/storage";
import type * as zarr from "zarrita";
import { NotFoundError } from "../cube/errors.js";
import { checkKey } from "./confinedStore.js";
import { type RangeCache, threadRangeCache } from "./rangeCache.js";
import { S3AccessError, isS3NotFound, s3Client, s3Reason } from "./s3Client.js";
import { type S3Location, childKey, s3Url } from "./s3Location.js";

/**
 * A read-only Zarr store rooted at an S3 prefix.
 * @example
 * const store = s3ZarrStore({ bucket: "rasters", key: "strata/01JABC" }, "dataset 01JABC");
 * const meta = await store.get("/zarr.json");
 */
export function s3ZarrStore(root: S3Location, label: string, cache: RangeCache = threadRangeCache()): zarr.AsyncReadable {
  const keyOf = (key: AbsolutePath): string => {
    checkKey(key, label);
    return childKey(root, key.slice(1));
  };
  return {
    get: (key: AbsolutePath, opts?: GetOptions) => {
      const objectKey = keyOf(key);
      const location = { bucket: root.bucket, key: objectKey };
      return cache.get(s3Url(location), () => readS3Object(location, label, undefined, opts?.signal));
    },
    getRange: (key: AbsolutePath, range: RangeQuery, opts?: GetOptions) => {
      const objectKey = keyOf(key);
      const location = { bucket: root.bucket, key: objectKey };
      const suffix = "suffixLength" in range ? `-${range.suffixLength}` : `${range.offset}-${range.offset + range.length - 1}`;
      return cache.get(`${s3Url(location)}#${suffix}`, () => readS3Object(location, label, range, opts?.signal));
    },
  } as zarr.AsyncReadable;
}

/**
 * An object's bytes (or a range of them); undefined if there is no such object. Any other
 * failure is an S3AccessError naming `label`, never the bucket, key or endpoint.
 * @example
 * const head = await readS3Object({ bucket: "b", key: "p/01JABC/data.nc" }, "item 7", { offset: 0, length: 8 });
 */
export async function readS3Object(
  location: S3Location,
  label: string,
  range?: RangeQuery,
  signal?: AbortSignal,
): Promise<Uint8Array | undefined> {
  const header =
    range === undefined
      ? undefined
      : "suffixLength" in range
        ? `bytes=-${range.suffixLength}`
        : `bytes=${range.offset}-${range.offset + range.length - 1}`;
  try {
    const answer = await s3Client().send(
      new GetObjectCommand({ Bucket: location.bucket, Key: location.key, ...(header ? { Range: header } : {}) }),
      signal ? { abortSignal: signal } : {},
    );
    if (!answer.Body) return new Uint8Array(0);
    return await answer.Body.transformToByteArray();
  } catch (e) {
    if (signal?.aborted) throw e;
    if (isS3NotFound(e)) return undefined;
    // A range past the end of a shorter object: what a file read would give, nothing.
    if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416) return new Uint8Array(0);
    throw new S3AccessError(`${label} could not be read from object storage (${s3Reason(e)})`, { cause: e });
  }
}

/**
 * An object's size, or undefined if there is none.
 * @example
 * await s3ObjectSize({ bucket: "b", key: "p/01JABC/data.nc" }, "item 7"); // 1048576
 */
export async function s3ObjectSize(location: S3Location, label: string): Promise<number | undefined> {
  try {
    const answer = await s3Client().send(new HeadObjectCommand({ Bucket: location.bucket, Key: location.key }));
    return answer.ContentLength ?? 0;
  } catch (e) {
    if (isS3NotFound(e)) return undefined;
    throw new S3AccessError(`${label} could not be read from object storage (${s3Reason(e)})`, { cause: e });
  }
}

/** One object of a listing. */
export interface S3Object {
  /** Key relative to the prefix listed (no leading "/"). */
  readonly key: string;
  readonly size: number;
  readonly lastModified: number;
}

/**
 * Every object under a prefix (page after page), keys relative to it.
 * @example
 * for await (const o of listS3Objects({ bucket: "b", key: "p/01JABC" }, "dataset")) total += o.size;
 */
export async function* listS3Objects(prefix: S3Location, label: string, signal?: AbortSignal): AsyncGenerator<S3Object> {
  const base = prefix.key ? `${prefix.key}/` : "";
  let token: string | undefined;
  do {
    let page;
    try {
      page = await s3Client().send(
        new ListObjectsV2Command({ Bucket: prefix.bucket, Prefix: base, ...(token ? { ContinuationToken: token } : {}) }),
        signal ? { abortSignal: signal } : {},
      );
    } catch (e) {
      if (isS3NotFound(e)) throw new NotFoundError(`${label} does not exist`);
      throw new S3AccessError(`${label} could not be listed in object storage (${s3Reason(e)})`, { cause: e });
    }
    for (const o of page.Contents ?? []) {
      if (!o.Key?.startsWith(base)) continue;
      yield { key: o.Key.slice(base.length), size: o.Size ?? 0, lastModified: o.LastModified?.getTime() ?? 0 };
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}
