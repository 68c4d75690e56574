/**
 * WebAssembly kernels: the tight loops V8 does not vectorise, written in AssemblyScript
 * (assembly/) and compiled with SIMD by scripts/build-kernels.mjs into the generated
 * `<name>.wasm.ts` beside this file. A kernel works on arrays in its own memory: an arena
 * places them there, sized once (growing the memory would detach every view on it).
 *
 * ```ts
 * const arena = new KernelArena(kernelModule("linearSums", WASM_BASE64), 1 << 20);
 * const sums = arena.allocate(Float64Array, 1000);
 * arena.exports.someKernel(sums.byteOffset, ...);
 * ```
 */
import type { PixelType, TypedArray } from "../cube/types.js";

const PAGE = 65536;
/** Arrays start on a 16-byte boundary (a SIMD lane's width). */
const ALIGN = 16;

const modules = new Map<string, WebAssembly.Module>();

/** The compiled module of a kernel (compiled once per thread). */
export function kernelModule(name: string, base64: string): WebAssembly.Module {
  let module = modules.get(name);
  if (!module) {
    module = new WebAssembly.Module(Buffer.from(base64, "base64"));
    modules.set(name, module);
  }
  return module;
}

type ArrayKind<T> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number };

/** Bytes an arena needs for arrays of these byte lengths (each aligned). */
export function arenaBytes(...lengths: number[]): number {
  return lengths.reduce((sum, bytes) => sum + Math.ceil(bytes / ALIGN) * ALIGN, ALIGN);
}

export class KernelArena {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kernel's exports have their own signatures
  readonly exports: Record<string, (...args: any[]) => any>;
  private readonly memory: WebAssembly.Memory;
  /** Offset 0 is left unused, so no array sits at the null pointer. */
  private top = ALIGN;

  constructor(module: WebAssembly.Module, bytes: number) {
    const pages = Math.max(1, Math.ceil(bytes / PAGE));
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const instance = new WebAssembly.Instance(module, { env: { memory: this.memory } });
    this.exports = instance.exports as KernelArena["exports"];
  }

  /** A zeroed array of `length` elements in the kernel's memory. */
  allocate<T>(kind: ArrayKind<T>, length: number): T {
    const bytes = length * kind.BYTES_PER_ELEMENT;
    if (this.top + bytes > this.memory.buffer.byteLength) throw new Error(`kernel arena: ${bytes} bytes more do not fit`);
    const array = new kind(this.memory.buffer, this.top, length);
    this.top += Math.ceil(bytes / ALIGN) * ALIGN;
    return array;
  }

  /** Whether an array lives in this arena (a kernel can take it by offset). */
  holds(array: ArrayBufferView): boolean {
    return array.buffer === this.memory.buffer;
  }
}

/**
 * Runs of slices as a kernel takes them (f32 or f64, in its memory): two arrays a walk can
 * read float runs into, so a run is used where it was decoded, and a staging array where any
 * other run is copied (converted to f64 unless float32).
 */
export class RunInput {
  private readonly staging: Float32Array | Float64Array;
  private readonly free: TypedArray[] = [];

  /** Bytes an arena needs for runs of at most `values` values of `pixelType`. */
  static bytes(values: number, pixelType: PixelType): number[] {
    const run = values * (pixelType === "F32" ? 4 : 8);
    return isFloat(pixelType) ? [run, run, run] : [run];
  }

  constructor(
    private readonly arena: KernelArena,
    readonly values: number,
    pixelType: PixelType,
  ) {
    const array = () => (pixelType === "F32" ? arena.allocate(Float32Array, values) : arena.allocate(Float64Array, values));
    this.staging = array();
    if (isFloat(pixelType)) this.free.push(array(), array());
  }

  /** An array in the kernel's memory to read a run of `length` values into, while one is free (float input only). */
  runArray(length: number): TypedArray | undefined {
    return length <= this.values ? this.free.pop() : undefined;
  }

  /** The run where the kernel can take it: in place when it is one of runArray's, else copied to the staging array. */
  place(values: TypedArray): Float32Array | Float64Array {
    if (values.length > this.values) throw new Error(`kernel: a run of ${values.length} values, sized for ${this.values}`);
    if (this.arena.holds(values) && (values instanceof Float32Array || values instanceof Float64Array)) return values;
    this.staging.set(values);
    return this.staging;
  }
}

const isFloat = (t: PixelType) => t === "F32" || t === "F64";
