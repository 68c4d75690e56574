/**
 * Zarr v2 and v3 reader on zarrita, from a directory, an HTTP(S) base URL or an S3 prefix
 * (`s3://bucket/key`, read through s3Store.ts). Arrays are listed from consolidated metadata
 * when present, else (directories and S3 prefixes) by walking the tree. Chunks are fetched and decoded only when a window touches them.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import * as zarr from "zarrita";
import { CorruptDataError, UnsupportedDataError } from "../cube/errors.js";
import type { TypedArray } from "../cube/types.js";
import { checkSeparator, confinedFetchStore, confinedFileStore } from "./confinedStore.js";
import { flipRows } from "./flipRows.js";
import { isS3Location, parseS3Url, type S3Location } from "./s3Location.js";
import { type RawDataset, type RawDtype, type RawVariable, type SkippedNote, widenedValues } from "./raw.js";
import { OVERVIEWS_ATTRIBUTE } from "./zarrOverviews.js";
import { type RangeRead, type RawChunks, rawChunksOf, readRawWindow } from "./zarrRawWindow.js";

type Store = zarr.Readable;

/** Zarr's numeric data types, which are also the raw ones of the same names. */
export const ZARR_NUMERIC_DTYPES: Readonly<Record<string, RawDtype>> = {
  int8: "int8",
  uint8: "uint8",
  int16: "int16",
  uint16: "uint16",
  int32: "int32",
  uint32: "uint32",
  float32: "float32",
  float64: "float64",
};

/** 64-bit integer types, read into Float64Array (exact up to 2^53, refused beyond). */
const WIDE_DTYPES: Readonly<Record<string, RawDtype>> = { int64: "int64", uint64: "uint64" };

/**
 * Open a Zarr hierarchy (v2 or v3) lazily.
 * @example
 * const ds = await openZarr("/data/rasters/abc/data.zarr");
 * const ds2 = await openZarr(new URL("https://host/bucket/era5.zarr"));
 */
export async function openZarr(location: string | URL): Promise<RawDataset> {
  const s3 = isS3Location(location) ? parseS3Url(location.toString()) : undefined;
  // The AWS SDK is loaded only by a thread that reads S3 (it costs ~100 ms and ~30 MB).
  const base: Store = s3
    ? (await import("./s3Store.js")).s3ZarrStore(s3, location.toString())
    : location instanceof URL
      ? confinedFetchStore(location.href, location.href)
      : await confinedFileStore(location, location);
  // A store with both (Strata's outputs: v2 metadata beside v3 for GDAL 3.6 and zarr-python 2)
  // is read as v3, the fuller; zarrita alone would choose v2 and could mix the two.
  const v3 = (await base.get("/zarr.json")) !== undefined;
  const store = await zarr.withMaybeConsolidatedMetadata(base, v3 ? { format: "v3" } : {});
  let rootAttrs: Record<string, unknown> = {};
  try {
    const root = await (v3 ? zarr.open.v3(store, { kind: "group" }) : zarr.open(store, { kind: "group" }));
    rootAttrs = { ...root.attrs };
  } catch (e) {
    if (!(e instanceof zarr.NotFoundError)) throw asCorrupt(location, e);
  }
  // Consolidated metadata keeps the writer's order; a walked tree is sorted by name.
  const paths =
    "contents" in store
      ? (store as zarr.Listable<Store>)
          .contents()
          .filter((c) => c.kind === "array")
          .map((c) => c.path)
      : s3
        ? (await walkS3Arrays(s3, base, location.toString())).sort()
        : location instanceof URL
          ? undefined
          : (await walkArrays(location)).sort();
  if (!paths) {
    throw new UnsupportedDataError(`${location.toString()}: a Zarr store read over HTTP needs consolidated metadata to list its arrays`);
  }
  // Overview levels (io/zarrOverviews.ts) are stores of their own, opened by their path.
  const levels = ((rootAttrs[OVERVIEWS_ATTRIBUTE] ?? []) as { path?: unknown }[]).map((l) => `/${String(l.path)}/`);
  const variables: RawVariable[] = [];
  const skipped: SkippedNote[] = [];
  // Raw chunks are read by range from the store itself (zarrRawWindow.ts).
  const rangeRead = rangeReadOf(base);
  for (const path of paths) {
    if (levels.some((l) => path.startsWith(l))) continue;
    let arr: zarr.Array<zarr.DataType, Store>;
    try {
      const at = zarr.root(store).resolve(path);
      arr = await (v3 ? zarr.open.v3(at, { kind: "array" }) : zarr.open(at, { kind: "array" }));
    } catch (e) {
      throw asCorrupt(location, e);
    }
    // 64-bit integers (xarray's integer time axes) are read as exact float64 up to 2^53.
    const dtype = ZARR_NUMERIC_DTYPES[arr.dtype] ?? WIDE_DTYPES[arr.dtype];
    if (!dtype) {
      const name = path.replace(/^\//, "");
      skipped.push({ name, reason: `${name} holds ${arr.dtype} values, which Strata does not read` });
      continue;
    }
    const prefix = path === "/" ? "" : path;
    const zarray = v3 ? undefined : await store.get(`${prefix}/.zarray` as zarr.AbsolutePath);
    const v2 = zarray !== undefined;
    const metaBytes = zarray ?? (await store.get(`${prefix}/zarr.json` as zarr.AbsolutePath));
    const meta = metaBytes && (JSON.parse(new TextDecoder().decode(metaBytes)) as Record<string, unknown>);
    if (meta) checkSeparator(meta, path, location.toString());
    // 64-bit integers go through zarrita, which widens them.
    const raw = rangeRead && meta && ZARR_NUMERIC_DTYPES[arr.dtype] && rawChunksOf(meta, v2, path, arr, dtype);
    variables.push(toVariable(arr, path.replace(/^\//, ""), dtype, v2, location, raw && rangeRead && { raw, read: rangeRead }));
  }
  return { format: "zarr", variables, attrs: rootAttrs, skipped, close: async () => {} };
}

function toVariable(
  arr: zarr.Array<zarr.DataType, Store>,
  name: string,
  dtype: RawDtype,
  v2: boolean,
  location: string | URL,
  ranges?: { raw: RawChunks; read: RangeRead },
): RawVariable {
  const attrs: Record<string, unknown> = { ...arr.attrs };
  delete attrs["_ARRAY_DIMENSIONS"];
  // Zarr v2 has no attribute for nodata; xarray writes it as the array's fill_value.
  const fill = arr.fillValue;
  if (attrs["_FillValue"] === undefined && v2 && typeof fill === "number") attrs["_FillValue"] = fill;
  const dims = arr.dimensionNames ?? arr.shape.map((_, i) => `${name}_dim${i}`);
  const widen = widenedValues(name, dtype, attrs);
  return {
    name,
    dims: dims.map((d, i) => d ?? `${name}_dim${i}`),
    shape: arr.shape,
    dtype,
    attrs,
    chunkShape: arr.chunks,
    async read(start, count, signal, _into, rowsReversed) {
      let chunk: TypedArray;
      try {
        if (ranges) {
          chunk = await readRawWindow(ranges.raw, ranges.read, start, count, Number(fill ?? 0), boundedQueue(), signal);
        } else {
          const sel = start.map((s, i) => zarr.slice(s, s + count[i]));
          const got = await zarr.get(arr, sel, { signal, createQueue: boundedQueue });
          chunk = (typeof got === "object" && "data" in got ? got.data : got) as unknown as TypedArray;
        }
      } catch (e) {
        if (signal?.aborted) throw e;
        throw asCorrupt(location, e);
      }
      // Outside the try: a 64-bit value beyond 2^53 is unsupported, not a corrupt store.
      const values = widen(chunk);
      return rowsReversed ? flipRows(values, count[count.length - 2] ?? 1, count[count.length - 1] ?? 1) : values;
    },
  };
}

async function walkArrays(dir: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  const names = new Set(entries.map((e) => e.name));
  const out: string[] = [];
  if (names.has(".zarray")) return [`/${prefix}`];
  if (names.has("zarr.json")) {
    const meta = JSON.parse(await readFile(join(dir, prefix, "zarr.json"), "utf8")) as { node_type?: string };
    if (meta.node_type === "array") return [`/${prefix}`];
  }
  for (const e of entries) {
    if (e.isDirectory() && !e.name.startsWith(".")) out.push(...(await walkArrays(dir, prefix ? `${prefix}/${e.name}` : e.name)));
  }
  return out;
}

/** The arrays of a Zarr hierarchy under an S3 prefix, from a listing of its keys. */
async function walkS3Arrays(root: S3Location, store: Store, label: string): Promise<string[]> {
  const out: string[] = [];
  const { listS3Objects } = await import("./s3Store.js");
  for await (const o of listS3Objects(root, label)) {
    const match = /^(?:(.*)\/)?(\.zarray|zarr\.json)$/.exec(o.key);
    if (!match) continue;
    const path = `/${match[1] ?? ""}`;
    if (path.split("/").some((s) => s.startsWith("."))) continue;
    if (match[2] === ".zarray") {
      out.push(path);
      continue;
    }
    const meta = await store.get(`${path === "/" ? "" : path}/zarr.json` as zarr.AbsolutePath);
    if (meta && (JSON.parse(new TextDecoder().decode(meta)) as { node_type?: string }).node_type === "array") out.push(path);
  }
  return out;
}

/** Chunks fetched and decoded at once per read: enough to overlap I/O, few enough to bound memory. */
const CHUNK_CONCURRENCY = 8;

type ChunkQueue = ReturnType<NonNullable<zarr.GetOptions["createQueue"]>>;

/**
 * zarrita's default queue starts every chunk of a selection at once: a tile through 1000
 * time steps would hold 1000 compressed and decoded chunks in memory together.
 */
function boundedQueue(): ChunkQueue {
  const pending: (() => Promise<void>)[] = [];
  const done: Promise<void>[] = [];
  let running = 0;
  let failed: unknown;
  const next = (): void => {
    while (running < CHUNK_CONCURRENCY && pending.length && failed === undefined) {
      const task = pending.shift()!;
      running++;
      done.push(
        task()
          .catch((e: unknown) => {
            failed ??= e;
          })
          .finally(() => {
            running--;
            next();
          }),
      );
    }
  };
  return {
    add(fn: () => Promise<void>) {
      pending.push(fn);
      next();
    },
    async onIdle() {
      while (running > 0 || (pending.length && failed === undefined)) await Promise.all(done);
      if (failed !== undefined) throw failed;
      return [];
    },
  };
}

/** `store`'s ranges as readRawWindow reads them: exactly the bytes asked for, fewer only where the value ends. */
function rangeReadOf(store: Store): RangeRead | undefined {
  const getRange = store.getRange?.bind(store);
  return getRange && (async (key, offset, length, signal) => getRange(key, { offset, length }, { signal }));
}

function asCorrupt(location: string | URL, e: unknown): Error {
  return new CorruptDataError(`${location.toString()} is not a readable Zarr store: ${e instanceof Error ? e.message : String(e)}`, {
    cause: e,
  });
}
