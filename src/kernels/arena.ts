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
