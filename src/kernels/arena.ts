/**
 * WebAssembly kernels: the tight loops V8 does not vectorise, written in AssemblyScript
 * (assembly/) and compiled with SIMD by scripts/build-kernels.mjs into the generated
 * `<name>.wasm.ts` beside this file. A kernel works on arrays in its own memory: an arena
 * places them there, sized once (growing the memory would detach every view on it), from a
 * layout that says which arrays: run once to measure, once to place. They go after the
 * module's static data (Math's tables, written into the memory when it is instantiated),
 * which every kernel tells by its export heapBase.
 *
 * ```ts
 * const { arena, placed } = KernelArena.create(kernelModule("linearSums", WASM_BASE64), (space) => space.allocate(Float64Array, 1000));
 * arena.exports.someKernel(placed.byteOffset, ...);
 * ```
 */
import type { PixelType, TypedArray } from "../cube/types.js";

const PAGE = 65536;
/** The most a shared kernel memory may grow to (4 GiB, as its module declares): room reserved, not committed. */
const MAX_PAGES = 65536;
/** Arrays start on a 16-byte boundary (a SIMD lane's width). */
const ALIGN = 16;
const aligned = (bytes: number) => Math.ceil(bytes / ALIGN) * ALIGN;

const modules = new Map<string, WebAssembly.Module>();

/** The arena of each kernel memory, by its buffer: a reader decoding into an array finds it here. */
const arenas = new WeakMap<ArrayBufferLike, KernelArena>();

/** The compiled module of a kernel (compiled once per thread). */
export function kernelModule(name: string, base64: string): WebAssembly.Module {
  let module = modules.get(name);
  if (!module) {
    module = new WebAssembly.Module(Buffer.from(base64, "base64"));
    modules.set(name, module);
  }
  return module;
}

type ArrayKind<T> = {
  new (length: number): T;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
};

/** Where arrays are made: a kernel's memory, or the heap (plainArrays). */
export interface ArraySpace {
  /** A zeroed array of `length` elements. */
  allocate<T>(kind: ArrayKind<T>, length: number): T;
  /** Whether an array lives here (a kernel can take it by offset). */
  holds(array: ArrayBufferView): boolean;
}

export const plainArrays: ArraySpace = {
  allocate: (kind, length) => new kind(length),
  holds: () => false,
};

export class KernelArena implements ArraySpace {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kernel's exports have their own signatures
  readonly exports: Record<string, (...args: any[]) => any>;
  private readonly memory: WebAssembly.Memory;
  /** Where the next array goes: after the module's static data (and never at offset 0, the null pointer). */
  private top: number;
  /** Where a chunk to unshuffle is copied (RunInput's staging array), if the kernel has an unshuffle. */
  private decodeStaging?: Uint8Array;

  /**
   * An instance of `module` over a memory that holds exactly what `layout` places, and what it
   * placed. `sharedMemory` for a module compiled to import a shared memory
   * (scripts/build-kernels.mjs SHARED_MEMORY): its arrays' buffer is then a SharedArrayBuffer,
   * which another thread can write files from (io/chunkEncoder.ts putShared).
   */
  static create<P>(
    module: WebAssembly.Module,
    layout: (space: ArraySpace) => P,
    { sharedMemory = false }: { sharedMemory?: boolean } = {},
  ): { arena: KernelArena; placed: P } {
    let bytes = 0;
    layout({
      allocate: (kind, length) => {
        bytes += aligned(length * kind.BYTES_PER_ELEMENT);
        return new kind(0);
      },
      holds: () => false,
    });
    const arena = new KernelArena(module, bytes, sharedMemory);
    return { arena, placed: layout(arena) };
  }

  private constructor(module: WebAssembly.Module, bytes: number, shared: boolean) {
    const initial = Math.max(1, Math.ceil(bytes / PAGE));
    this.memory = new WebAssembly.Memory(shared ? { initial, maximum: MAX_PAGES, shared } : { initial });
    const instance = new WebAssembly.Instance(module, { env: { memory: this.memory } });
    this.exports = instance.exports as KernelArena["exports"];
    this.top = aligned(Math.max(ALIGN, this.exports.heapBase()));
    // Room for the arrays beyond the static data, made before any view on the memory exists.
    const short = this.top + bytes - this.memory.buffer.byteLength;
    if (short > 0) this.memory.grow(Math.ceil(short / PAGE));
    arenas.set(this.memory.buffer, this);
  }

  /** Let decodes into this memory stage their chunks in `bytes` (an array of this arena's, idle meanwhile). */
  stageDecodesIn(bytes: Uint8Array): void {
    if (this.exports.unshuffle) this.decodeStaging ??= bytes;
  }

  /** See kernelStagingFor. */
  stagingFor(bytes: number): Uint8Array | undefined {
    return this.decodeStaging && this.decodeStaging.length >= bytes ? this.decodeStaging.subarray(0, bytes) : undefined;
  }

  /** See unshuffleIntoKernel. */
  unshuffleInto(src: Uint8Array, size: number, into: Uint8Array, reversed?: ReversedRows): boolean {
    const count = Math.floor(src.length / size);
    const staging = this.decodeStaging;
    if (!staging || (size !== 2 && size !== 4) || src.length > staging.length || into.length < src.length) return false;
    const columns = reversed ? reversed.rowBytes / size : 0;
    if (reversed && (!Number.isInteger(columns) || count % (columns * reversed.rows) !== 0 || count * size !== src.length)) return false;
    // A chunk inflated into the staging array (kernelStagingFor) is there already.
    if (src.buffer !== staging.buffer || src.byteOffset !== staging.byteOffset) staging.set(src);
    this.exports.unshuffle(staging.byteOffset, into.byteOffset, count, size, columns, reversed?.rows ?? 0);
    // Bytes beyond whole elements were left in place by the shuffle filter.
    if (count * size < src.length) into.set(src.subarray(count * size), count * size);
    return true;
  }

  allocate<T>(kind: ArrayKind<T>, length: number): T {
    const bytes = length * kind.BYTES_PER_ELEMENT;
    if (this.top + bytes > this.memory.buffer.byteLength) throw new Error(`kernel arena: ${bytes} bytes more do not fit`);
    const array = new kind(this.memory.buffer, this.top, length);
    this.top += aligned(bytes);
    return array;
  }

  holds(array: ArrayBufferView): boolean {
    return array.buffer === this.memory.buffer;
  }
}

/**
 * Runs of slices as a kernel takes them (f32 or f64, in its memory): two arrays a walk can
 * read float runs into, so a run is used where it was decoded, and a staging array where any
 * other run is copied (converted to f64 unless float32). While every run comes in the
 * kernel's own arrays, the staging array only stages chunks unshuffled into them (one
 * chunk's worth of it is ever written, so resident).
 */
export class RunInput {
  private readonly staging: Float32Array | Float64Array;
  private readonly free: TypedArray[] = [];
  /** Every run array, free or handed out. */
  private readonly arrays: TypedArray[] = [];

  /** `arrays` run arrays (two: the run being used and the one read meanwhile; more where runs are held after their use). */
  constructor(
    private readonly space: ArraySpace,
    readonly values: number,
    pixelType: PixelType,
    arrays = 2,
  ) {
    const array = () => (pixelType === "F32" ? space.allocate(Float32Array, values) : space.allocate(Float64Array, values));
    this.staging = array();
    // Idle while runs come in the kernel's own arrays: chunks decoded into those are staged here.
    if (space instanceof KernelArena)
      space.stageDecodesIn(new Uint8Array(this.staging.buffer, this.staging.byteOffset, this.staging.byteLength));
    if (pixelType === "F32" || pixelType === "F64") for (let i = 0; i < arrays; i++) this.arrays.push(array());
    this.free.push(...this.arrays);
  }

  /** Every run array free again, once the walk that took them is done with them (its reads and holds settled). */
  reclaim(): void {
    this.free.splice(0, this.free.length, ...this.arrays);
  }

  /** An array in the kernel's memory to read a run of `length` values into, while one is free (float input only). */
  runArray(length: number): TypedArray | undefined {
    return length <= this.values ? this.free.pop() : undefined;
  }

  /** The run where the kernel can take it: in place when it is one of runArray's, else copied to the staging array. */
  place(values: TypedArray): Float32Array | Float64Array {
    if (values.length > this.values) throw new Error(`kernel: a run of ${values.length} values, sized for ${this.values}`);
    if (this.space.holds(values) && (values instanceof Float32Array || values instanceof Float64Array)) return values;
    this.staging.set(values);
    return this.staging;
  }

  /** The run's bytes, as they are, where the kernel can take them: in place when it is in the kernel's memory, else copied to the staging array (never shorter). */
  bytes(values: TypedArray): Uint8Array {
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    if (this.space.holds(values)) return bytes;
    const staged = new Uint8Array(this.staging.buffer, this.staging.byteOffset, this.staging.byteLength);
    if (bytes.length > staged.length) throw new Error(`kernel: a run of ${bytes.length} bytes, sized for ${staged.length}`);
    staged.set(bytes);
    return staged.subarray(0, bytes.length);
  }
}

/** Rows to put last to first while unshuffling: each plane's `rows` rows of `rowBytes` bytes. */
export interface ReversedRows {
  readonly rows: number;
  readonly rowBytes: number;
}

/**
 * Bytes of staging a kernel holds to unshuffle chunks of `chunkBytes` that walks read into
 * `roomBytes` of its arrays: the chunk when it is at most a quarter of them (a tile of
 * 365 × 60 × 60 chunks holds 4), else none, and the reader's own loop unshuffles (staging
 * larger chunks would cost more memory than that loop costs time).
 */
export function chunkStagingBytes(chunkBytes: number, roomBytes: number): number {
  return chunkBytes <= roomBytes / 4 ? chunkBytes : 0;
}

/**
 * The first `bytes` of the staging array of the kernel whose memory holds `into`, where a
 * decode may put a chunk it is about to unshuffle into `into` (saving unshuffleIntoKernel's
 * copy); undefined when `into` is no kernel's or its staging is smaller.
 */
export function kernelStagingFor(into: Uint8Array, bytes: number): Uint8Array | undefined {
  return arenas.get(into.buffer)?.stagingFor(bytes);
}

/**
 * Undo HDF5's shuffle filter of `src` (elements of `size` bytes) into `into` with the SIMD
 * loop of the kernel whose memory holds `into` (a run a walk reads into a kernel's memory),
 * rows reversed if asked: the chunk is copied to the kernel's staging array, then unshuffled
 * where the kernel takes it, about a third of the JavaScript loop's time. False when `into`
 * is no kernel's, or the kernel cannot (no unshuffle or staging, an element size other than
 * 2 or 4 bytes, rows that do not divide the chunk).
 */
export function unshuffleIntoKernel(src: Uint8Array, size: number, into: Uint8Array, reversed?: ReversedRows): boolean {
  return arenas.get(into.buffer)?.unshuffleInto(src, size, into, reversed) ?? false;
}
