/**
 * Whole chunks of a Zarr v3 array written directly: a block that covers whole chunks (or
 * reaches the array's edge) is cut into chunks, each encoded as Strata creates its arrays
 * (bytes little-endian, then zstd) and written under its key by the chunk encoder
 * (io/chunkEncoder.ts: on a thread of its own while the caller goes on, or on the caller's
 * when that thread is behind; io/chunkFile.ts makes the chunk's directory). zarrita's `set`
 * allocates every chunk, copies it element by element and makes its directory at every
 * write; for the blocks the analyses write (whole chunks nearly always) that was a fifth of
 * an anomaly's time. Any other block, or an array encoded otherwise, is left to zarrita.
 */
import { closeSync, fstatSync, openSync, readvSync, renameSync, unlinkSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { endianness } from "node:os";
import { join } from "node:path";
import { combinationAt, combinationCount } from "../cube/combinations.js";
import type { Slab, TypedArray } from "../cube/types.js";
import { typedArrayFor } from "./raw.js";
import { ZARR_NUMERIC_DTYPES } from "./zarrRead.js";
import { type ChunkEncoder, chunkEncoder } from "./chunkEncoder.js";
import type { BlockHold } from "../cube/blockHold.js";
import type { ChunkSummaries } from "../cube/chunkSummaries.js";

/** Buffers per vectored read (Linux's IOV_MAX). */
const MAX_READ_PARTS = 1024;

export interface ChunkWriter {
  /**
   * Write `slab` at `start` when it covers whole chunks (or ends at the array's edge); false,
   * with nothing written, otherwise. Resolves once the slab is copied (the caller may reuse
   * it); its chunks are written in the background: flush waits for them. With `summaries`,
   * each chunk is summarized where it is encoded (the summary of the values it holds of the
   * array, not its padding). With `hold`, a block in a kernel's shared memory whose chunks
   * are its values in order (whole slices) is encoded from where it is instead of copied:
   * `hold` is given what settles once it is written, until when the caller leaves it alone.
   */
  tryWrite(start: readonly number[], slab: Slab, summaries?: ChunkSummaries, hold?: BlockHold): Promise<boolean>;
  /** Wait until every chunk handed over so far is written (or failed); throws the first failure. */
  flush(): Promise<void>;
  /**
   * Keep `slab` cut as tryWrite would cut it, but as raw values and apart from the array's
   * chunks (one file for the block in the writer's kept directory, named by its first chunk's
   * key and its shape), for a later pass to take back with takeKept instead of decoding its
   * input again; false, with nothing written, where tryWrite would be false or the writer has
   * no kept directory. With `hold`, as tryWrite's.
   */
  keep(start: readonly number[], slab: Slab, hold?: BlockHold): Promise<boolean>;
  /**
   * The block of `shape` at `start` as keep kept it (and flush wrote it), read into `into`
   * when given, its file then removed; undefined when that block is not kept whole (never
   * kept, kept with another shape, or taken already: a pass run again reads its input instead).
   * A block that is one chunk of a raw array (no codec but bytes) is not removed but becomes
   * that chunk's file, which tryWrite then writes over in place: no file made for the chunk,
   * none removed (a daily raw anomaly's 1461 files made and 183 removed were its second
   * pass's largest cost on ext4). The claim is a rename, so a kept file still holds the
   * input's values while it is there.
   */
  takeKept(start: readonly number[], shape: readonly number[], into?: TypedArray): Promise<TypedArray | undefined>;
}

interface ArrayMetadata {
  shape: number[];
  data_type: string;
  chunk_grid: { configuration: { chunk_shape: number[] } };
  chunk_key_encoding: { name: string; configuration?: { separator?: string } };
  codecs: { name: string; configuration?: Record<string, unknown> }[];
  fill_value: number | string | null;
}

/**
 * A direct writer for the array at `arrayDir` when it is encoded as Strata writes (bytes
 * little-endian, then zstd or nothing) on a little-endian machine with v3's default chunk
 * keys or v2's (see chunkKeyOf); else undefined. Blocks kept (keep) go to `keptDir`, under
 * the same keys; without it nothing is kept. Chunks go through `encoder`: by default the
 * thread's (chunkEncoder), which encodes them on a thread of its own.
 * @example
 * const direct = await openChunkWriter("/data/x.zarr/tas");
 * if (!(await direct?.tryWrite([0, 0, 0], slab))) await zarr.set(...);
 */
export async function openChunkWriter(
  arrayDir: string,
  keptDir?: string,
  encoder: ChunkEncoder = chunkEncoder(),
): Promise<ChunkWriter | undefined> {
  const meta = JSON.parse(await readFile(join(arrayDir, "zarr.json"), "utf8")) as ArrayMetadata;
  const dtype = ZARR_NUMERIC_DTYPES[meta.data_type];
  const chunkKey = chunkKeyOf(meta.chunk_key_encoding);
  const [bytes, zstd, ...more] = meta.codecs;
  if (
    !dtype ||
    endianness() !== "LE" ||
    bytes?.name !== "bytes" ||
    bytes.configuration?.endian !== "little" ||
    (zstd !== undefined && (zstd.name !== "zstd" || zstd.configuration?.checksum === true)) ||
    more.length > 0 ||
    !chunkKey ||
    meta.shape.length === 0
  )
    return undefined;
  // null: the chunk is stored as its raw bytes.
  const level = zstd ? Number(zstd.configuration?.level ?? 3) : null;
  const { shape } = meta;
  const chunk = meta.chunk_grid.configuration.chunk_shape;
  const fill = fillValue(meta.fill_value);
  const empty = typedArrayFor(dtype, 0);
  const Chunk = empty.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => TypedArray;
  const values = combinationCount(chunk);
  const chunkBytes = values * empty.BYTES_PER_ELEMENT;
  const writes = new Set<Promise<void>>();
  let failure: Error | undefined;
  const isWhole = (start: readonly number[], count: readonly number[]) =>
    count.every((n, d) => start[d] % chunk[d] === 0 && (n % chunk[d] === 0 || start[d] + n === shape[d]));
  /** Where a chunk's file is, in `dir`. */
  const fileOf = (dir: string, coords: readonly number[]) => join(dir, chunkKey(coords));
  /** A kept block's file, named by its first chunk's key and its shape: only the same block finds it. */
  const keptFileOf = (dir: string, start: readonly number[], count: readonly number[]) =>
    `${fileOf(
      dir,
      start.map((s, d) => s / chunk[d]),
    )}_${count.join("x")}`;
  /**
   * Whether a block of whole chunks of the array's type can be written or kept from where it
   * is: it lies in shared memory (a kernel's) and its chunks, one after another, are its values
   * as they are (chunks that take its full extent in every dimension but the first: a run of
   * whole slices).
   */
  const writableInPlace = (slab: Slab): slab is Slab & { data: TypedArray & { buffer: SharedArrayBuffer } } =>
    slab.data.buffer instanceof SharedArrayBuffer && slab.shape.every((n, d) => (d === 0 ? n % chunk[0] === 0 : n === chunk[d]));
  /** Where a vectored read puts the bytes of a chunk that fall outside the block. */
  let skip: Uint8Array | undefined;
  /** Chunk files takeKept made of kept blocks: tryWrite writes over them rather than making them again. */
  const claimed = new Set<string>();

  /** A chunk's write, its failure kept for flush and the next write (never rejecting itself). */
  const track = (written: Promise<void>): Promise<void> => {
    const write = written.catch((e: Error) => {
      failure ??= e;
    });
    writes.add(write);
    void write.finally(() => writes.delete(write));
    return write;
  };

  /**
   * The block's chunks, each cut from `slab` and handed to the encoder, to be encoded at
   * `chunkLevel` into `dir`: each its own file, or with `blockFile` one after another in it.
   * With `hold`, a block writableInPlace is encoded from where it is (ChunkWriter.tryWrite).
   */
  const writeChunks = async (
    dir: string,
    start: readonly number[],
    slab: Slab,
    chunkLevel: number | null,
    { summaries, blockFile, hold }: { summaries?: ChunkSummaries; blockFile?: string; hold?: BlockHold } = {},
  ): Promise<boolean> => {
    if (failure) throw failure;
    const count = slab.shape;
    if (!isWhole(start, count) || slab.data.constructor !== Chunk) return false;
    if (hold && writableInPlace(slab)) {
      const { data } = slab;
      const written: Promise<void>[] = [];
      for (let k = 0; k < count[0] / chunk[0]; k++) {
        const file =
          blockFile ??
          fileOf(
            dir,
            start.map((s, d) => s / chunk[d] + (d === 0 ? k : 0)),
          );
        const piece = new Uint8Array(data.buffer, data.byteOffset + k * chunkBytes, chunkBytes);
        const summarize = summaries && { summarizer: summaries.summarizer, type: Chunk.name, shape: chunk, extent: chunk };
        const inPlace = blockFile === undefined && claimed.delete(file);
        const put = await encoder.putShared(file, piece, {
          level: chunkLevel,
          summarize,
          at: blockFile !== undefined ? k * chunkBytes : inPlace ? 0 : undefined,
        });
        if (put.summary) summaries!.take(put.summary);
        written.push(track(put.written));
      }
      hold(Promise.all(written));
      return true;
    }
    const chunksAlong = count.map((n, d) => Math.ceil(n / chunk[d]));
    const chunks = combinationCount(chunksAlong);
    for (let k = 0; k < chunks; k++) {
      const at = combinationAt(k, chunksAlong);
      const from = at.map((i, d) => i * chunk[d]);
      const extent = from.map((f, d) => Math.min(chunk[d], count[d] - f));
      const file =
        blockFile ??
        fileOf(
          dir,
          at.map((i, d) => start[d] / chunk[d] + i),
        );
      const summarize = summaries && { summarizer: summaries.summarizer, type: Chunk.name, shape: chunk, extent };
      const fillChunk = (buffer: ArrayBuffer) => {
        const target = new Chunk(buffer, 0, values);
        if (extent.some((e, d) => e < chunk[d])) target.fill(fill);
        eachRow(chunk, count, from, extent, (src, dst, row) => target.set(slab.data.subarray(src, src + row) as never, dst));
      };
      const inPlace = blockFile === undefined && claimed.delete(file);
      const { written, summary } = await encoder.put(file, chunkBytes, fillChunk, {
        level: chunkLevel,
        summarize,
        at: blockFile !== undefined ? k * chunkBytes : inPlace ? 0 : undefined,
      });
      if (summary) summaries!.take(summary);
      track(written);
    }
    return true;
  };

  return {
    tryWrite: (start, slab, summaries, hold) => writeChunks(arrayDir, start, slab, level, { summaries, hold }),
    // A block kept is one file (its chunks one after another): a file made and removed per
    // chunk cost the encoder ~0.4 ms each here (ext4 scans past every inode freed in the
    // last minutes to make one).
    keep: async (start, slab, hold) =>
      keptDir !== undefined && writeChunks(keptDir, start, slab, null, { blockFile: keptFileOf(keptDir, start, slab.shape), hold }),
    async takeKept(start, count, into) {
      if (keptDir === undefined || !isWhole(start, count)) return undefined;
      const block = into?.constructor === Chunk ? into : typedArrayFor(dtype, combinationCount(count));
      const size = block.BYTES_PER_ELEMENT;
      skip ??= new Uint8Array(chunkBytes);
      const sink = skip;
      const chunksAlong = count.map((n, d) => Math.ceil(n / chunk[d]));
      // The block's file, as keep wrote it. Read on this thread: each trip through libuv's
      // pool (open, read, close) cost this thread ~0.1 ms of waking a pool thread on the VMs
      // measured, more than copying a chunk from the page cache (a daily raw anomaly 5.0-5.3
      // -> 4.7-5.0 s).
      const path = keptFileOf(keptDir, start, count);
      const fd = openKept(path);
      if (fd === undefined) return undefined;
      try {
        // Short: the block was not kept whole (its pass cut short); its input is read instead.
        if (fstatSync(fd).size !== combinationCount(chunksAlong) * chunkBytes) return undefined;
        for (let k = 0; k < combinationCount(chunksAlong); k++) {
          const at = combinationAt(k, chunksAlong);
          // Each row of the chunk read straight to its place in the block (a vectored read; what
          // lies beyond the block goes to `sink`): no buffer to copy from.
          const from = at.map((i, d) => i * chunk[d]);
          const extent = from.map((f, d) => Math.min(chunk[d], count[d] - f));
          const parts: Uint8Array[] = [];
          let placed = 0;
          eachRow(chunk, count, from, extent, (src, dst, row) => {
            if (dst * size > placed) parts.push(sink.subarray(0, dst * size - placed));
            parts.push(new Uint8Array(block.buffer, block.byteOffset + src * size, row * size));
            placed = (dst + row) * size;
          });
          for (let i = 0, position = k * chunkBytes; i < parts.length; i += MAX_READ_PARTS) {
            const group = parts.slice(i, i + MAX_READ_PARTS);
            const wanted = group.reduce((n, part) => n + part.length, 0);
            const bytesRead = readvSync(fd, group, position);
            if (bytesRead !== wanted) throw new Error(`a kept block read back ${bytesRead} bytes of ${wanted} at ${position}`);
            position += wanted;
          }
        }
      } finally {
        closeSync(fd);
      }
      // Taken: a kept block is read once (its pages need never reach the disk), or made the
      // chunk's file it is the size of. One that cannot be removed goes with the kept
      // directory when the store is finished.
      if (level === null && combinationCount(chunksAlong) === 1) {
        const chunkFile = fileOf(
          arrayDir,
          start.map((s, d) => s / chunk[d]),
        );
        try {
          renameSync(path, chunkFile);
          claimed.add(chunkFile);
          return block;
        } catch {
          // Not claimed (a key's directory not made yet): removed, and the chunk written anew.
        }
      }
      try {
        unlinkSync(path);
      } catch {
        // left for finish
      }
      return block;
    },
    async flush() {
      await Promise.all(writes);
      if (failure) throw failure;
    },
  };
}

/** A kept chunk's file opened for reading; undefined when it is not there (taken already, or never kept). */
function openKept(path: string): number | undefined {
  try {
    return openSync(path, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/**
 * A chunk's key under its array (of at least one dimension): v3's default keys ("c/0/0/0",
 * or "c.0.0.0") or v2 keys ("0.0.0", which Strata writes so Zarr v2 metadata can name the
 * same chunks, or "0/0/0"); undefined for any other encoding, left to zarrita.
 */
export function chunkKeyOf(keys: ArrayMetadata["chunk_key_encoding"] | undefined): ((coords: readonly number[]) => string) | undefined {
  if (!keys) return undefined;
  const separator = keys.configuration?.separator ?? (keys.name === "default" ? "/" : ".");
  if (separator !== "/" && separator !== ".") return undefined;
  if (keys.name === "default") return (coords) => ["c", ...coords].join(separator);
  if (keys.name === "v2") return (coords) => coords.join(separator);
  return undefined;
}

/**
 * Each row of the block's region at `from` of `extent`, with its offset in the block, its
 * offset in the chunk (both C order) and its length: to copy the region into a chunk buffer,
 * or back out of one. Rows that follow each other in both come as one run (a chunk that is
 * a whole slice of the block is one copy, or one part of a vectored read, not 360).
 */
function eachRow(
  chunkShape: readonly number[],
  blockShape: readonly number[],
  from: readonly number[],
  extent: readonly number[],
  copy: (src: number, dst: number, row: number) => void,
): void {
  const nd = chunkShape.length;
  const row = extent[nd - 1];
  const rows = combinationCount(extent.slice(0, -1));
  const at = new Array<number>(nd).fill(0); // the row's index within the region; the last stays 0
  let [runSrc, runDst, runLength] = [0, 0, 0];
  for (let r = 0; r < rows; r++) {
    let src = 0;
    let dst = 0;
    for (let d = 0; d < nd; d++) {
      src = src * blockShape[d] + from[d] + at[d];
      dst = dst * chunkShape[d] + at[d];
    }
    if (runLength > 0 && src === runSrc + runLength && dst === runDst + runLength) runLength += row;
    else {
      if (runLength > 0) copy(runSrc, runDst, runLength);
      [runSrc, runDst, runLength] = [src, dst, row];
    }
    for (let d = nd - 2; d >= 0; d--) {
      if (++at[d] < extent[d]) break;
      at[d] = 0;
    }
  }
  if (runLength > 0) copy(runSrc, runDst, runLength);
}

/** Zarr v3 writes non-finite fill values as strings. */
function fillValue(value: ArrayMetadata["fill_value"]): number {
  if (typeof value === "number") return value;
  if (value === "NaN") return NaN;
  if (value === "Infinity") return Infinity;
  if (value === "-Infinity") return -Infinity;
  return 0;
}
