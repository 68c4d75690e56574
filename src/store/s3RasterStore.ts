/**
 * The raster store on S3 (or any S3-compatible server), under `s3://bucket/prefix`:
 *
 *   <prefix>/<id>/...        a dataset's objects (a Zarr store's keys, or one uploaded file)
 *   <prefix>/.commits/<id>   its commit marker: {"id","bytes","objects","committed"}
 *
 * Write then commit: the engine writes a dataset into a local pending directory
 * (`<dataDir>/rasters/.pending/<id>`, fast local writes); commit uploads its files (chunks
 * first, Zarr metadata after them, the root's last, so a reader that ignores markers still
 * never sees metadata before its chunks), checks by listing that every object arrived whole,
 * and then puts the marker: the one final put that makes the dataset exist. list() and
 * resolve() see only datasets with a marker. remove() deletes the marker first (the dataset
 * is gone at once), then its objects. A prefix without a marker is a commit under way or a
 * crash's leftover: the sweep removes those whose newest object is older than a grace period
 * (several API nodes may share a bucket, so one node's start cannot know that another's
 * upload is dead), at open and then every SWEEP_EVERY_MS while the server runs.
 */
import { mkdir, open, readdir, rm, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { inLanes } from "../cube/inLanes.js";
import { S3AccessError, describeS3Error, isS3NotFound, s3Client, s3Reason } from "../io/s3Client.js";
import { type S3Location, childKey, parseS3Url, s3Url } from "../io/s3Location.js";
import { listS3Objects } from "../io/s3Store.js";
import { isDatasetId, newDatasetId } from "./datasetId.js";
import { pendingDataset } from "./pendingDataset.js";
import { type RasterStore, type SweepOptions, type SweepReport, describeId, sweepLocalPending } from "./rasterStore.js";

/** Uncommitted prefixes idle this long are taken for a dead writer's. */
export const DEFAULT_SWEEP_GRACE_MS = 60 * 60 * 1000;
/** How often a server sweeps while it runs. */
const SWEEP_EVERY_MS = 15 * 60 * 1000;
/** Files uploaded at once. */
const UPLOAD_CONCURRENCY = 8;
/** Files larger than this go up in parts (S3's smallest part is 5 MiB). */
const MULTIPART_BYTES = 16 * 1024 * 1024;
const PART_BYTES = 8 * 1024 * 1024;
/** Where the markers are, beside the datasets (ids never start with "."). */
const COMMITS = ".commits";
/** Zarr metadata files, uploaded after every chunk of their store. */
const METADATA = new Set(["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"]);

export interface S3StoreOptions {
  /** Sweep at open and periodically (the server); false when attaching (a thread). */
  readonly sweep?: boolean;
  /** Check at open that the bucket can be used (default: as `sweep`): a process starting, not a thread. */
  readonly check?: boolean;
  readonly graceMs?: number;
}

/**
 * @example
 * const store = await openS3RasterStore("/srv/strata", "s3://rasters/strata");
 * const pending = await store.begin();
 * await writeZarr(pending.path, cube);
 * await pending.commit(); // "s3://rasters/strata/01JABC..."
 */
export async function openS3RasterStore(dataDir: string, url: string, options: S3StoreOptions = {}): Promise<RasterStore> {
  const root = parseS3Url(url);
  const location = s3Url(root);
  const s3 = s3Client();
  const graceMs = options.graceMs ?? DEFAULT_SWEEP_GRACE_MS;
  const pendingDir = join(dataDir, "rasters", ".pending");
  await mkdir(pendingDir, { recursive: true });

  // Messages can reach clients (a job's failure): a reason, never the endpoint or the bucket.
  const failed = (what: string, e: unknown): Error =>
    e instanceof InvalidInputError || e instanceof NotFoundError
      ? e
      : new S3AccessError(`${what} failed in object storage (${s3Reason(e)})`, { cause: e });
  const send = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw failed(what, e);
    }
  };
  const datasetRoot = (id: string): S3Location => ({ bucket: root.bucket, key: childKey(root, id) });
  const markerKey = (id: string): string => childKey(root, `${COMMITS}/${id}`);
  const checkId = (id: string): void => {
    if (!isDatasetId(id)) throw new NotFoundError(`No dataset ${describeId(id)} in the raster store.`);
  };

  const isCommitted = async (id: string): Promise<boolean> => {
    try {
      await s3.send(new HeadObjectCommand({ Bucket: root.bucket, Key: markerKey(id) }));
      return true;
    } catch (e) {
      if (isS3NotFound(e)) return false;
      throw failed(`Checking dataset ${id}`, e);
    }
  };

  const deletePrefix = async (prefix: S3Location): Promise<void> => {
    const keys: string[] = [];
    for await (const o of listS3Objects(prefix, "a dataset")) keys.push(childKey(prefix, o.key));
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      await send("Deleting objects", () =>
        s3.send(new DeleteObjectsCommand({ Bucket: root.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
      );
    }
  };

  const upload = async (key: string, file: string, size: number): Promise<void> => {
    if (size <= MULTIPART_BYTES) {
      const fh = await open(file, "r");
      const body = Buffer.alloc(size);
      try {
        await fh.read(body, 0, size, 0);
      } finally {
        await fh.close();
      }
      await send("Uploading a dataset", () => s3.send(new PutObjectCommand({ Bucket: root.bucket, Key: key, Body: body })));
      return;
    }
    const started = await send("Uploading a dataset", () => s3.send(new CreateMultipartUploadCommand({ Bucket: root.bucket, Key: key })));
    const UploadId = started.UploadId!;
    try {
      const parts: { ETag: string; PartNumber: number }[] = [];
      const fh = await open(file, "r");
      try {
        for (let offset = 0, PartNumber = 1; offset < size; offset += PART_BYTES, PartNumber++) {
          // A part in memory (8 MiB), not a stream: a sized body every S3-compatible server takes.
          const Body = Buffer.alloc(Math.min(PART_BYTES, size - offset));
          await fh.read(Body, 0, Body.length, offset);
          const answer = await s3.send(new UploadPartCommand({ Bucket: root.bucket, Key: key, UploadId, PartNumber, Body }));
          parts.push({ ETag: answer.ETag!, PartNumber });
        }
      } finally {
        await fh.close();
      }
      await s3.send(new CompleteMultipartUploadCommand({ Bucket: root.bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (e) {
      await s3.send(new AbortMultipartUploadCommand({ Bucket: root.bucket, Key: key, UploadId })).catch(() => undefined);
      throw failed("Uploading a dataset", e);
    }
  };

  /** Upload files not on S3 yet (or not whole); true when every one is there. */
  const uploadMissing = async (id: string, files: readonly LocalFile[]): Promise<boolean> => {
    const there = new Map<string, number>();
    for await (const o of listS3Objects(datasetRoot(id), `dataset ${id}`)) there.set(o.key, o.size);
    const missing = files.filter((f) => there.get(f.key) !== f.size);
    // Chunks first, then metadata from the deepest to the root's.
    const data = missing.filter((f) => !METADATA.has(basename(f.key)));
    const meta = missing.filter((f) => METADATA.has(basename(f.key))).sort((a, b) => depth(b.key) - depth(a.key));
    await inLanes(data, UPLOAD_CONCURRENCY, (f) => upload(childKey(datasetRoot(id), f.key), f.path, f.size));
    for (const f of meta) await upload(childKey(datasetRoot(id), f.key), f.path, f.size);
    return missing.length === 0;
  };

  const publish = async (id: string, path: string): Promise<string> => {
    let files: LocalFile[];
    try {
      files = await listFiles(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") {
        throw new NotFoundError(`Dataset ${id} can no longer be committed: its pending directory is gone (swept or aborted).`);
      }
      throw e;
    }
    // Upload, then check by listing (and upload again what a sweep or a failure lost) before the marker.
    await uploadMissing(id, files);
    if (!(await uploadMissing(id, files)) && !(await uploadMissing(id, files))) {
      throw new S3AccessError(`Dataset ${id} could not be uploaded whole to object storage`);
    }
    const marker = { id, bytes: files.reduce((n, f) => n + f.size, 0), objects: files.length, committed: new Date().toISOString() };
    await send("Committing a dataset", () =>
      s3.send(
        new PutObjectCommand({
          Bucket: root.bucket,
          Key: markerKey(id),
          Body: JSON.stringify(marker),
          ContentType: "application/json",
        }),
      ),
    );
    await rm(path, { recursive: true, force: true });
    return s3Url(datasetRoot(id));
  };

  const discard = async (id: string, path: string): Promise<void> => {
    await rm(path, { recursive: true, force: true });
    if (!(await isCommitted(id))) await deletePrefix(datasetRoot(id));
  };

  const list = async (): Promise<string[]> => {
    const ids: string[] = [];
    for await (const o of listS3Objects({ bucket: root.bucket, key: childKey(root, COMMITS) }, "the raster store")) {
      if (isDatasetId(o.key)) ids.push(o.key);
    }
    return ids.sort();
  };

  /** Dataset prefixes present under the root, marker or not. */
  const prefixes = async (): Promise<string[]> => {
    const ids: string[] = [];
    let token: string | undefined;
    const base = root.key ? `${root.key}/` : "";
    do {
      const page = await send("Listing", () =>
        s3.send(
          new ListObjectsV2Command({ Bucket: root.bucket, Prefix: base, Delimiter: "/", ...(token ? { ContinuationToken: token } : {}) }),
        ),
      );
      for (const p of page.CommonPrefixes ?? []) {
        const id = p.Prefix?.slice(base.length).replace(/\/$/, "");
        if (id && isDatasetId(id)) ids.push(id);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return ids;
  };

  const sweepPending = async (sweepOptions: SweepOptions = {}): Promise<SweepReport> => {
    const olderThanMs = sweepOptions.olderThanMs ?? 0;
    const now = Date.now();
    const pending = await sweepLocalPending(pendingDir, olderThanMs);
    const committed = new Set(await list());
    for (const id of await prefixes()) {
      if (committed.has(id)) continue;
      let newest = 0;
      for await (const o of listS3Objects(datasetRoot(id), `dataset ${id}`)) newest = Math.max(newest, o.lastModified);
      if (now - newest < Math.max(olderThanMs, graceMs)) continue;
      // Its commit may have finished since the listing.
      if (await isCommitted(id)) continue;
      await deletePrefix(datasetRoot(id));
      pending.push(id);
    }
    return { pending, trash: [] };
  };

  if (options.check ?? options.sweep !== false) {
    // Fail at start, with the reason for the operator, if the bucket cannot be used.
    try {
      await s3.send(new HeadBucketCommand({ Bucket: root.bucket }));
    } catch (e) {
      throw new S3AccessError(describeS3Error(e, root.bucket), { cause: e });
    }
  }
  const swept = options.sweep === false ? { pending: [], trash: [] } : await sweepPending();
  let timer: NodeJS.Timeout | undefined;
  if (options.sweep !== false) {
    timer = setInterval(() => void sweepPending({ olderThanMs: graceMs }).catch(() => undefined), SWEEP_EVERY_MS);
    timer.unref();
  }

  return {
    dataDir,
    location,
    swept,
    async begin() {
      const id = newDatasetId();
      const path = join(pendingDir, id);
      await mkdir(pendingDir, { recursive: true });
      await mkdir(path);
      return pendingDataset(
        id,
        path,
        () => publish(id, path),
        () => discard(id, path),
      );
    },
    async resolve(id) {
      checkId(id);
      if (!(await isCommitted(id))) throw new NotFoundError(`No dataset ${describeId(id)} in the raster store.`);
      return s3Url(datasetRoot(id));
    },
    list,
    async remove(id) {
      checkId(id);
      if (!(await isCommitted(id))) throw new NotFoundError(`No dataset ${describeId(id)} in the raster store.`);
      // The marker first: the dataset is gone from view at once; what follows a sweep can redo.
      await send("Removing a dataset", () => s3.send(new DeleteObjectCommand({ Bucket: root.bucket, Key: markerKey(id) })));
      await deletePrefix(datasetRoot(id)).catch(() => undefined);
    },
    sweepPending,
    async discardPending(id) {
      checkId(id);
      await discard(id, join(pendingDir, id));
    },
    async close() {
      if (timer) clearInterval(timer);
    },
  };
}

interface LocalFile {
  /** Relative to the dataset, "/"-separated. */
  readonly key: string;
  readonly path: string;
  readonly size: number;
}

async function listFiles(dir: string): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out.push({ key: relative(dir, path).split("\\").join("/"), path, size: (await stat(path)).size });
  }
  return out;
}

const basename = (key: string): string => key.slice(key.lastIndexOf("/") + 1);
const depth = (key: string): number => key.split("/").length;
