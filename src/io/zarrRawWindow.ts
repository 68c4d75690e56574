/**
 * A window of a Zarr array whose chunks are raw values (v3: the `bytes` codec alone; v2: no
 * compressor, no filters, C order), little-endian on a little-endian machine, read by byte
 * ranges: of each chunk the window touches, only the span from its first value there to its
 * last. zarrita's get reads and decodes whole chunks, and a raw anomaly output holds a run of
 * slices a chunk (io/zarrChunks.ts: 8 days of a daily 360 × 720 grid, 8 MB), so one slice
 * drawn by an image service read 8 MB for 1 (0.55 → 1.4-1.7 ms a slice from the page cache,
 * and eight times the bytes from S3). A chunk that is missing holds the fill value; one that
 * holds fewer bytes than its shape is a CorruptDataError.
 */
import { endianness } from "node:os";
import type { AbsolutePath } from "@zarrita/storage";
import { combinationAt, combinationCount, strides } from "../cube/combinations.js";
import { CorruptDataError } from "../cube/errors.js";
import type { TypedArray } from "../cube/types.js";
import { type RawDtype, typedArrayFor } from "./raw.js";
import { chunkKeyOf } from "./zarrChunks.js";

/** What reading an array's raw chunks by ranges needs from its metadata. */
export interface RawChunks {
  readonly shape: readonly number[];
  readonly chunks: readonly number[];
  readonly dtype: RawDtype;
  /** A chunk's key in the store, from its indices. */
  key(coords: readonly number[]): AbsolutePath;
}

/** Bytes `length` from `offset` of the value under `key` (fewer where it ends), or undefined when there is none. */
export type RangeRead = (key: AbsolutePath, offset: number, length: number, signal?: AbortSignal) => Promise<Uint8Array | undefined>;

/** Runs a read's chunks a few at a time (zarrRead.ts boundedQueue). */
export interface ChunkQueue {
  add(fn: () => Promise<void>): void;
  onIdle(): Promise<unknown>;
}

/**
 * The raw layout of the array at `path` (e.g. "/tas") as zarrita opened it (`array`: its shape,
 * chunk shape and type, which zarrita parsed from either version's metadata), when its
 * metadata (zarr.json, or .zarray when `v2`) `meta` says its chunks are raw values in this
 * machine's (little-endian) byte order; undefined otherwise, or when it has no dimensions.
 * @example
 * const raw = rawChunksOf(JSON.parse(zarrJson), false, "/tas", { shape: arr.shape, chunks: arr.chunks }, "float32");
 */
export function rawChunksOf(
  meta: Record<string, unknown>,
  v2: boolean,
  path: string,
  array: { readonly shape: readonly number[]; readonly chunks: readonly number[] },
  dtype: RawDtype,
): RawChunks | undefined {
  if (endianness() !== "LE") return undefined;
  const oneByte = dtype === "int8" || dtype === "uint8";
  let key: ((coords: readonly number[]) => string) | undefined;
  if (v2) {
    const filters = meta.filters as unknown[] | null | undefined;
    const order = String(meta.dtype)[0]; // "<" little-endian, "|" one byte
    if (meta.compressor !== null || (filters && filters.length > 0) || meta.order !== "C" || (order !== "<" && order !== "|"))
      return undefined;
    key = chunkKeyOf({ name: "v2", configuration: { separator: (meta.dimension_separator as string | undefined) ?? "." } });
  } else {
    const codecs = meta.codecs as { name: string; configuration?: { endian?: string } }[] | undefined;
    const [bytes, ...more] = codecs ?? [];
    if (bytes?.name !== "bytes" || more.length > 0 || (bytes.configuration?.endian !== "little" && !oneByte)) return undefined;
    key = chunkKeyOf(meta.chunk_key_encoding as Parameters<typeof chunkKeyOf>[0]);
  }
  const { shape, chunks } = array;
  if (!key || shape.length === 0 || chunks.length !== shape.length || chunks.some((c) => !(c > 0))) return undefined;
  const prefix = path === "/" ? "" : path;
  const keyOf = key;
  return { shape, chunks, dtype, key: (coords) => `${prefix}/${keyOf(coords)}` as AbsolutePath };
}

/**
 * The values of `raw` in the window at `start` of `count` (C order), each chunk's span read
 * through `read` on `queue`; `fill` where a chunk is missing.
 * @example
 * const slice = await readRawWindow(raw, range, [t, 0, 0], [1, 360, 720], NaN, queue);
 */
export async function readRawWindow(
  raw: RawChunks,
  read: RangeRead,
  start: readonly number[],
  count: readonly number[],
  fill: number,
  queue: ChunkQueue,
  signal?: AbortSignal,
): Promise<TypedArray> {
  const { chunks, shape } = raw;
  if (start.some((s, d) => s < 0 || count[d] < 0 || s + count[d] > shape[d])) {
    throw new RangeError(`the window [${start.join(", ")}] + [${count.join(", ")}] lies outside the array's shape [${shape.join(", ")}]`);
  }
  const out = typedArrayFor(raw.dtype, combinationCount(count));
  if (out.length === 0) return out;
  const size = out.BYTES_PER_ELEMENT;
  const inChunk = strides(chunks);
  const inOut = strides(count);
  const first = start.map((s, d) => Math.floor(s / chunks[d]));
  const along = start.map((s, d) => Math.floor((s + count[d] - 1) / chunks[d]) - first[d] + 1);
  for (let k = 0; k < combinationCount(along); k++) {
    const coords = combinationAt(k, along).map((i, d) => first[d] + i);
    // The window's part of this chunk, in the chunk's indices.
    const from = coords.map((c, d) => Math.max(start[d], c * chunks[d]) - c * chunks[d]);
    const to = coords.map((c, d) => Math.min(start[d] + count[d], (c + 1) * chunks[d]) - c * chunks[d]);
    const extent = from.map((f, d) => to[d] - f);
    const offsetOf = (at: readonly number[]) => at.reduce((n, i, d) => n + i * inChunk[d], 0);
    const low = offsetOf(from);
    const length = offsetOf(to.map((t) => t - 1)) + 1 - low;
    queue.add(async () => {
      signal?.throwIfAborted();
      const key = raw.key(coords);
      const bytes = await read(key, low * size, length * size, signal);
      const values = bytes && valuesOf(bytes, length, raw.dtype);
      if (bytes && !values) throw new CorruptDataError(`chunk ${coords.join(".")} holds fewer bytes than its shape`);
      // Row by row (the last dimension's run) into the window.
      const rows = combinationCount(extent.slice(0, -1));
      const row = extent[extent.length - 1];
      for (let r = 0; r < rows; r++) {
        const at = [...combinationAt(r, extent.slice(0, -1)), 0].map((i, d) => from[d] + i);
        const dst = at.reduce((n, i, d) => n + (coords[d] * chunks[d] + i - start[d]) * inOut[d], 0);
        if (values) {
          const src = offsetOf(at) - low;
          out.set(values.subarray(src, src + row) as never, dst);
        } else out.fill(fill as never, dst, dst + row);
      }
    });
  }
  await queue.onIdle();
  return out;
}

/** `length` values of `dtype` from `bytes` (copied when not aligned), or undefined when it holds fewer. */
function valuesOf(bytes: Uint8Array, length: number, dtype: RawDtype): TypedArray | undefined {
  const empty = typedArrayFor(dtype, 0);
  const size = empty.BYTES_PER_ELEMENT;
  if (bytes.byteLength < length * size) return undefined;
  const aligned = bytes.byteOffset % size === 0 ? bytes : bytes.slice(0, length * size);
  const Values = empty.constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => TypedArray;
  return new Values(aligned.buffer, aligned.byteOffset, length);
}
