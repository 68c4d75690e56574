/**
 * One dataset: its header decoded once, its chunk index read on first use, and hyperslab
 * reads assembled from chunks read concurrently (a bounded number of positional reads at a
 * time) and decoded on the calling thread as each arrives. A read of exactly one whole chunk
 * is one positional read, one inflate and the unshuffle straight into the returned array.
 */
import { strides } from "../../cube/combinations.js";
import type { TypedArray } from "../../cube/types.js";
import { inLanes } from "../../cube/inLanes.js";
import { readHyperslab } from "../hyperslab.js";
import { type WindowRead, arrayToFill, typedArrayFor } from "../raw.js";
import { type StoredChunk, storedChunks } from "./chunkIndex.js";
import { type ChunkFetcher, chunkFetcher } from "./chunkFetcher.js";
import { FilterId, INFLATE_SLACK, decodeChunk, unsupportedFilter } from "./filters.js";
import type { ReversedRows } from "../../kernels/arena.js";
import { flipRows } from "../flipRows.js";
import {
  type ChunkIndexName,
  ChunkIndexType,
  type Datatype,
  type ElementKind,
  type Filter,
  type Layout,
  decodeDataspace,
  decodeDatatype,
  decodeFillValue,
  decodeFilterPipeline,
  decodeLayout,
  decodeOldFillValue,
} from "./messages.js";
import { MessageType, findMessage, readObjectHeader } from "./objectHeader.js";
import { Hdf5FormatError, Hdf5Source, Hdf5UnsupportedError } from "./source.js";

/** Chunks (or runs of chunks) read and decoded at once by one hyperslab read. */
const CONCURRENT_CHUNKS = 8;
/**
 * Chunks stored one after another are read together, up to this many bytes a read: a file of
 * small chunks (netCDF-4's 1 × 45 × 90 of 16 KB) otherwise costs a trip through libuv's pool
 * for every chunk, and the job waits on those trips more than it inflates.
 */
const RUN_READ_BYTES = 1024 * 1024;
/** A gap between two chunks read through rather than ending the run (the chunk index's nodes lie between chunks). */
const RUN_READ_GAP = 16 * 1024;

export interface Hdf5Dataset {
  readonly path: string;
  readonly shape: readonly number[];
  /** The chunk shape; the whole shape for contiguous and compact storage. */
  readonly chunkShape: readonly number[];
  readonly storage: Layout["class"];
  /** How a chunked dataset finds its chunks. */
  readonly chunkIndex?: ChunkIndexName;
  readonly kind: ElementKind;
  readonly elementSize: number;
  /** Chunks read from the file (not counting fill-value chunks) since opening: for tests. */
  readonly chunksRead: number;
  /** Positional reads those took (a run of chunks stored one after another is one): for tests. */
  readonly chunkReadCalls: number;
  /**
   * Values of [start, start+count) in native byte order (WindowRead); `into` is taken when it
   * is of the dataset's type.
   */
  readonly read: WindowRead;
  /** The stored chunks, with grid coordinates (chunk index per dimension). */
  chunks(): Promise<readonly StoredChunk[]>;
}

/** Open the dataset whose object header is at `address`, or say why it cannot be read here. */
export async function openDataset(source: Hdf5Source, address: number, path: string): Promise<Hdf5Dataset> {
  const messages = await readObjectHeader(source, address);
  const need = (type: number, what: string) => {
    const message = findMessage(messages, type);
    if (!message) throw new Hdf5FormatError(`${path} has no ${what} message (not a dataset?)`);
    return message.data;
  };
  const layout = decodeLayout(need(MessageType.layout, "data layout"), source);
  const space = decodeDataspace(need(MessageType.dataspace, "dataspace"), source);
  const type = decodeDatatype(need(MessageType.datatype, "datatype"), source);
  if (findMessage(messages, MessageType.externalFiles)) throw new Hdf5UnsupportedError(`${path} is stored in external files`);
  const pipeline = findMessage(messages, MessageType.filterPipeline);
  const filters = pipeline ? decodeFilterPipeline(pipeline.data, source) : [];
  const unsupported = unsupportedFilter(filters);
  if (unsupported) throw new Hdf5UnsupportedError(`${path} is compressed with ${unsupported}`);
  const fillMessage = findMessage(messages, MessageType.fillValue);
  const oldFill = findMessage(messages, MessageType.fillValueOld);
  const fill = fillMessage ? decodeFillValue(fillMessage.data, source) : oldFill ? decodeOldFillValue(oldFill.data, source) : undefined;
  if (fill && fill.length !== type.size) throw new Hdf5UnsupportedError(`${path} has a fill value of another size than its type`);
  if (layout.class === "chunked" && layout.chunkShape.length !== space.shape.length) {
    throw new Hdf5FormatError(`${path} has chunks of another rank than its shape`);
  }
  return new Dataset(source, path, space.shape, space.maxShape, type, layout, filters, fill);
}

class Dataset implements Hdf5Dataset {
  readonly chunkShape: readonly number[];
  readonly storage: Layout["class"];
  readonly chunkIndex?: ChunkIndexName;
  chunksRead = 0;
  chunkReadCalls = 0;
  private readonly chunkBytes: number;
  private index?: Promise<Map<number, StoredChunk>>;
  private fillChunk?: Uint8Array;
  private readonly readBuffers: Buffer[] = [];
  private readonly runBuffers: Buffer[] = [];

  constructor(
    private readonly source: Hdf5Source,
    readonly path: string,
    readonly shape: number[],
    private readonly maxShape: number[],
    private readonly type: Datatype,
    private readonly layout: Layout,
    private readonly filters: Filter[],
    private readonly fill: Buffer | undefined,
  ) {
    this.chunkShape = layout.class === "chunked" ? layout.chunkShape : shape;
    this.storage = layout.class;
    if (layout.class === "chunked") {
      const entry = Object.entries(ChunkIndexType).find(([, id]) => id === layout.indexType);
      this.chunkIndex = entry?.[0] as ChunkIndexName | undefined;
    }
    this.chunkBytes = this.chunkShape.reduce((a, b) => a * b, 1) * type.size;
  }

  get kind(): ElementKind {
    return this.type.kind;
  }

  get elementSize(): number {
    return this.type.size;
  }

  async chunks(): Promise<readonly StoredChunk[]> {
    return [...(await this.chunkMap()).values()];
  }

  async read(
    start: readonly number[],
    count: readonly number[],
    signal?: AbortSignal,
    into?: TypedArray,
    rowsReversed = false,
  ): Promise<TypedArray> {
    signal?.throwIfAborted();
    const rank = this.shape.length;
    if (start.length !== rank || count.length !== rank || start.some((s, d) => s < 0 || count[d] < 0 || s + count[d] > this.shape[d])) {
      throw new RangeError(`${this.path}: window [${start}] + [${count}] is outside the shape [${this.shape}]`);
    }
    // Rows reversed as the chunks decode when each holds whole planes of the window (a grid's
    // time steps); otherwise flipped once read.
    const planes = rank >= 2 ? [rank - 2, rank - 1] : [];
    const whole = planes.length === 2 && planes.every((d) => start[d] % this.chunkShape[d] === 0 && count[d] === this.chunkShape[d]);
    const reversed =
      rowsReversed && whole && this.layout.class === "chunked"
        ? { rows: count[rank - 2], rowBytes: count[rank - 1] * this.type.size }
        : undefined;
    const values = await this.readWindow(start, count, signal, into, reversed);
    return rowsReversed && !reversed && rank >= 2 ? flipRows(values, count[rank - 2], count[rank - 1]) : values;
  }

  private async readWindow(
    start: readonly number[],
    count: readonly number[],
    signal: AbortSignal | undefined,
    into: TypedArray | undefined,
    reversed: ReversedRows | undefined,
  ): Promise<TypedArray> {
    const total = count.reduce((a, b) => a * b, 1);
    if (total === 0) return typedArrayFor(this.kind, 0);
    if (this.layout.class === "contiguous") return this.readContiguous(this.layout.address, start, count, signal);
    const out = arrayToFill(this.kind, total, into);
    const outBytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    const first = start.map((s, d) => Math.floor(s / this.chunkShape[d]));
    const last = start.map((s, d) => Math.floor((s + count[d] - 1) / this.chunkShape[d]));
    const wanted: number[][] = [];
    forEachIndex(first, last, (coords) => wanted.push(coords.slice()));
    if (wanted.length === 1 && start.every((s, d) => s === first[d] * this.chunkShape[d] && count[d] === this.chunkShape[d])) {
      const bytes = await this.chunk(wanted[0], outBytes, reversed);
      const result = bytes === outBytes ? out : this.asArray(bytes, total, bytes !== this.fillChunk && this.layout.class !== "compact");
      this.toNativeOrder(result);
      return result;
    }
    // A chunk that is one contiguous run of the window decodes straight into it.
    const place = async (coords: readonly number[], decode: (into?: Uint8Array) => Promise<Uint8Array>) => {
      const at = this.contiguousOffset(coords, start, count);
      const into = at >= 0 ? outBytes.subarray(at, at + this.chunkBytes) : undefined;
      const bytes = await decode(into);
      if (!into) this.copyRegion(bytes, coords, outBytes, start, count);
      else if (bytes !== into) into.set(bytes);
    };
    const { runs, unstored } = await this.readRuns(wanted);
    // Nothing to read for these (the fill value, or compact data held in the header).
    for (const coords of unstored) await place(coords, (into) => this.chunk(coords, into, reversed));
    await inLanes(runs, CONCURRENT_CHUNKS, async (run) => {
      signal?.throwIfAborted();
      if (run.length === 1) return place(run[0].coords, (into) => this.readStored(run[0], into, reversed));
      const buffer = this.runBuffers.pop() ?? Buffer.allocUnsafeSlow(RUN_READ_BYTES);
      try {
        const first = run[0].address;
        const last = run[run.length - 1];
        await this.source.readInto(buffer.subarray(0, last.address + last.size - first), first);
        this.chunkReadCalls++;
        this.chunksRead += run.length;
        await Promise.all(
          run.map((stored) =>
            place(stored.coords, async (into) =>
              this.decode(stored, buffer.subarray(stored.address - first, stored.address - first + stored.size), into, reversed),
            ),
          ),
        );
      } finally {
        if (this.runBuffers.length < CONCURRENT_CHUNKS) this.runBuffers.push(buffer);
      }
    });
    this.toNativeOrder(out);
    return out;
  }

  /**
   * Decoded bytes of the chunk at grid `coords` (the fill value if it was never written), rows
   * reversed as asked (a compact dataset's are not: read() does not ask it of one).
   */
  private async chunk(coords: readonly number[], into?: Uint8Array, reversed?: ReversedRows): Promise<Uint8Array> {
    if (this.layout.class === "compact") {
      if (this.layout.data.length !== this.chunkBytes) throw new Hdf5FormatError(`${this.path}: compact data of the wrong size`);
      return this.layout.data;
    }
    const stored = (await this.chunkMap()).get(this.linear(coords));
    // The fill value's chunk reads the same with its rows reversed.
    return stored ? this.readStored(stored, into, reversed) : this.filledChunk();
  }

  /** A stored chunk read on its own and decoded. */
  private async readStored(stored: StoredChunk, into?: Uint8Array, reversed?: ReversedRows): Promise<Uint8Array> {
    const fetcher = this.inflatesAside(stored) ? chunkFetcher(stored.size) : undefined;
    if (fetcher) return this.readAside(stored, fetcher, into, reversed);
    // Stored bytes are read into a buffer of the dataset's own, reused once decoded: a fresh
    // one per chunk was garbage the collector and the kernel then paid for. A filtered chunk's
    // needs room for its stored bytes only (and some, for the next chunk's): sized for the
    // decoded chunk, 8 of 365 × 60 × 60 float32 values were 42 MB a thread.
    const i = this.readBuffers.findIndex((b) => b.length >= stored.size);
    const room = this.filtersOf(stored).length > 0 ? Math.min(this.chunkBytes, stored.size + (stored.size >> 2)) : this.chunkBytes;
    const buffer = i >= 0 ? this.readBuffers.splice(i, 1)[0] : Buffer.allocUnsafeSlow(Math.max(stored.size, room));
    try {
      const bytes = buffer.subarray(0, stored.size);
      await this.source.readInto(bytes, stored.address);
      this.chunkReadCalls++;
      this.chunksRead++;
      const decoded = this.decode(stored, bytes, into, reversed);
      // Unfiltered, the chunk is the read buffer itself, which the finally hands to the next
      // read (whose pread may land while the caller copies): copied out first.
      if (decoded.buffer !== buffer.buffer) return decoded;
      if (!into || into.length !== decoded.length) return new Uint8Array(decoded);
      into.set(decoded);
      return into;
    } finally {
      if (this.readBuffers.length < CONCURRENT_CHUNKS) this.readBuffers.push(buffer);
    }
  }

  /** Whether the chunk fetcher may read and inflate this chunk: one whose decoding starts with the inflate. */
  private inflatesAside(stored: StoredChunk): boolean {
    return stored.filterMask === 0 && this.filtersOf(stored).at(-1)?.id === FilterId.deflate;
  }

  /** A chunk read and inflated on the fetcher's thread (chunkFetcher.ts), its other filters undone here. */
  private async readAside(stored: StoredChunk, fetcher: ChunkFetcher, into?: Uint8Array, reversed?: ReversedRows): Promise<Uint8Array> {
    const fetch = (fd: number, position: number) => fetcher.fetch(fd, position, stored.size, this.chunkBytes + INFLATE_SLACK);
    const { bytes, release } = await this.source.readAside(stored.address, stored.size, fetch);
    this.chunkReadCalls++;
    this.chunksRead++;
    try {
      const decoded = decodeChunk(bytes, this.filtersOf(stored).slice(0, -1), 0, this.chunkBytes, this.type.size, into, reversed);
      // Decoded where the fetcher inflated it (no filter after the inflate): copied out before that memory goes back.
      if (decoded.buffer !== bytes.buffer) return decoded;
      if (!into || into.length !== decoded.length) return new Uint8Array(decoded);
      into.set(decoded);
      return into;
    } finally {
      release();
    }
  }

  /** A stored chunk's bytes through its filters. */
  private decode(stored: StoredChunk, bytes: Buffer, into?: Uint8Array, reversed?: ReversedRows): Uint8Array {
    return decodeChunk(bytes, this.filtersOf(stored), stored.filterMask, this.chunkBytes, this.type.size, into, reversed);
  }

  /** The filters a stored chunk went through: none for an edge chunk of a layout that skips them there. */
  private filtersOf(stored: StoredChunk): readonly Filter[] {
    const partial = stored.coords.some((c, d) => (c + 1) * this.chunkShape[d] > this.shape[d]);
    return this.layout.class === "chunked" && this.layout.unfilteredEdges && partial ? [] : this.filters;
  }

  /**
   * The wanted chunks grouped into runs read at once: stored chunks that follow one another in
   * the file (RUN_READ_GAP apart at most), in file order, up to RUN_READ_BYTES a run; a chunk
   * too big to share a read is a run of its own. `unstored`: the wanted chunks not in the file.
   */
  private async readRuns(wanted: readonly number[][]): Promise<{ runs: StoredChunk[][]; unstored: number[][] }> {
    const map = await this.chunkMap();
    const runs: StoredChunk[][] = [];
    const unstored: number[][] = [];
    const small: StoredChunk[] = [];
    for (const coords of wanted) {
      const stored = map.get(this.linear(coords));
      if (!stored) unstored.push(coords);
      // A chunk the fetcher inflates is read there, on its own.
      else if (stored.size <= RUN_READ_BYTES / 4 && !(this.inflatesAside(stored) && chunkFetcher(stored.size))) small.push(stored);
      else runs.push([stored]);
    }
    small.sort((a, b) => a.address - b.address);
    let run: StoredChunk[] = [];
    for (const stored of small) {
      const first = run[0];
      const last = run[run.length - 1];
      const gap = last ? stored.address - (last.address + last.size) : -1;
      if (gap < 0 || gap > RUN_READ_GAP || stored.address + stored.size - first.address > RUN_READ_BYTES) {
        if (run.length) runs.push(run);
        run = [];
      }
      run.push(stored);
    }
    if (run.length) runs.push(run);
    return { runs, unstored };
  }

  /** Byte offset in the window's bytes of a chunk that lies whole in it as one contiguous run; -1 otherwise. */
  private contiguousOffset(coords: readonly number[], start: readonly number[], count: readonly number[]): number {
    const cs = this.chunkShape;
    const rank = cs.length;
    let offset = 0;
    for (let d = 0; d < rank; d++) {
      const from = coords[d] * cs[d];
      if (from < start[d] || from + cs[d] > start[d] + count[d]) return -1; // partly outside the window
      offset = offset * count[d] + (from - start[d]);
    }
    // Contiguous when the chunk takes the window's whole extent in its last dimensions and is
    // one element thick in all before the first it does not take whole.
    let d = rank - 1;
    while (d > 0 && cs[d] === count[d]) d--;
    for (let e = 0; e < d; e++) if (cs[e] !== 1) return -1;
    return offset * this.type.size;
  }

  private chunkMap(): Promise<Map<number, StoredChunk>> {
    this.index ??= (async () => {
      if (this.layout.class !== "chunked") return new Map();
      const list = await storedChunks(this.source, this.layout, {
        shape: this.shape,
        maxShape: this.maxShape,
        chunkShape: this.chunkShape,
        chunkBytes: this.chunkBytes,
      });
      const map = new Map<number, StoredChunk>();
      for (const chunk of list) {
        // Chunks beyond the current extent (the dataset shrank) hold nothing readable.
        if (chunk.coords.every((c, d) => c * this.chunkShape[d] < this.shape[d])) map.set(this.linear(chunk.coords), chunk);
      }
      return map;
    })();
    return this.index;
  }

  /** C-order position of a chunk in the grid of the current shape. */
  private linear(coords: readonly number[]): number {
    let i = 0;
    coords.forEach((c, d) => (i = i * Math.ceil(this.shape[d] / this.chunkShape[d]) + c));
    return i;
  }

  private filledChunk(): Uint8Array {
    if (!this.fillChunk) {
      this.fillChunk = new Uint8Array(this.chunkBytes);
      this.fillWithFillValue(this.fillChunk);
    }
    return this.fillChunk;
  }

  private fillWithFillValue(bytes: Uint8Array): void {
    const fill = this.fill;
    if (fill && fill.some((b) => b !== 0)) for (let i = 0; i < bytes.length; i += fill.length) bytes.set(fill, i);
  }

  /** Copy the part of a chunk that falls in the window into the window's C-order bytes. */
  private copyRegion(
    chunk: Uint8Array,
    coords: readonly number[],
    out: Uint8Array,
    start: readonly number[],
    count: readonly number[],
  ): void {
    const rank = this.shape.length;
    const es = this.type.size;
    if (rank === 0) {
      out.set(chunk.subarray(0, es));
      return;
    }
    const cs = this.chunkShape;
    const lo = coords.map((c, d) => Math.max(start[d], c * cs[d]));
    const hi = coords.map((c, d) => Math.min(start[d] + count[d], (c + 1) * cs[d]) - 1);
    // One copy spans the trailing dimensions the region takes whole in both the chunk and the
    // window (a whole-plane chunk of a whole-plane window is one copy, not one per row).
    let k = rank - 1;
    while (k > 0 && hi[k] - lo[k] + 1 === cs[k] && count[k] === cs[k]) k--;
    let runBytes = es;
    for (let d = k; d < rank; d++) runBytes *= hi[d] - lo[d] + 1;
    const index = lo.slice();
    forEachIndex(lo.slice(0, k), hi.slice(0, k), (o) => {
      for (let d = 0; d < k; d++) index[d] = o[d];
      let inChunk = 0;
      let inOut = 0;
      for (let d = 0; d < rank; d++) {
        inChunk = inChunk * cs[d] + (index[d] - coords[d] * cs[d]);
        inOut = inOut * count[d] + (index[d] - start[d]);
      }
      out.set(chunk.subarray(inChunk * es, inChunk * es + runBytes), inOut * es);
    });
  }

  /** A typed array of decoded bytes, a view when they are the caller's alone and fill their own buffer. */
  private asArray(bytes: Uint8Array, total: number, owned: boolean): TypedArray {
    const Ctor = typedArrayFor(this.kind, 0).constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => TypedArray;
    if (owned && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return new Ctor(bytes.buffer, 0, total);
    const out = typedArrayFor(this.kind, total);
    new Uint8Array(out.buffer).set(bytes);
    return out;
  }

  private toNativeOrder(values: TypedArray): void {
    if (!this.type.bigEndian || this.type.size === 1) return;
    const b = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
    if (this.type.size === 2) b.swap16();
    else if (this.type.size === 4) b.swap32();
    else b.swap64();
  }

  private async readContiguous(
    address: number,
    start: readonly number[],
    count: readonly number[],
    signal?: AbortSignal,
  ): Promise<TypedArray> {
    if (address < 0) {
      const out = typedArrayFor(
        this.kind,
        count.reduce((a, b) => a * b, 1),
      );
      this.fillWithFillValue(new Uint8Array(out.buffer));
      this.toNativeOrder(out);
      return out;
    }
    const es = this.type.size;
    const steps = strides(this.shape);
    return readHyperslab(
      {
        shape: this.shape,
        dtype: this.kind,
        bigEndian: this.type.bigEndian,
        contiguousDims: this.shape.length,
        position: (index) => address + index.reduce((p, i, d) => p + i * steps[d], 0) * es,
        readBytes: (into, position) => this.source.readInto(into, position),
      },
      start,
      count,
      signal,
    );
  }
}

/** Call `visit` with every index tuple from `lo` to `hi` inclusive, last dimension fastest. */
function forEachIndex(lo: readonly number[], hi: readonly number[], visit: (index: readonly number[]) => void): void {
  const index = lo.slice();
  if (lo.some((l, d) => l > hi[d])) return;
  for (;;) {
    visit(index);
    let d = index.length - 1;
    while (d >= 0 && index[d] === hi[d]) {
      index[d] = lo[d];
      d--;
    }
    if (d < 0) return;
    index[d]++;
  }
}
