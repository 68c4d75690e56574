/**
 * The per-pixel fits' gather (assembly/seriesGather.ts): a tile's slice-major slab into each
 * pixel's series in x order, with its valid flags, through a block of pixels copied slice by
 * slice. The slab is taken where it lies when it was read into the kernel's own array
 * (slabArray), else copied in once; the kernel is made again larger when a slab does not fit
 * (tiles are one size in a job but for the edges).
 *
 * ```ts
 * const gather = new SeriesGather(order, 64);
 * gather.take(slab.data);
 * gather.block(pixels, 0, 64);
 * const valid = gather.pixel(0, NaN); // gather.series, gather.valid: pixel 0's series
 * ```
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { KernelArena, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./seriesGather.wasm.js";

interface Placed {
  readonly order: Int32Array;
  readonly series: Float64Array;
  readonly valid: Uint8Array;
  readonly slab: Float32Array | Float64Array;
}

export class SeriesGather {
  private kernel?: { arena: KernelArena; placed: Placed };
  private taken?: Float32Array | Float64Array;

  /** For series of order.length slices taken in that order, in blocks of `blockWidth` pixels. */
  constructor(
    private readonly order: Int32Array,
    private readonly blockWidth: number,
  ) {}

  /** The series pixel() filled (valid until the next call), and its valid flags. */
  get series(): Float64Array {
    return this.made().placed.series;
  }
  get valid(): Uint8Array {
    return this.made().placed.valid;
  }

  /** An array in the kernel's memory to read a slab of `length` values of `pixelType` into (float types only). */
  slabArray(length: number, pixelType: PixelType): TypedArray | undefined {
    if (pixelType !== "F32" && pixelType !== "F64") return undefined;
    const { slab } = this.made(length, pixelType === "F32").placed;
    return slab.subarray(0, length);
  }

  /** The tile's slab (slice-major, order.length slices): in place if slabArray gave it, else copied in. */
  take(data: TypedArray): void {
    const float32 = data instanceof Float32Array;
    const { arena, placed } = this.made(data.length, float32);
    if (arena.holds(data) && (data instanceof Float32Array || data instanceof Float64Array)) this.taken = data;
    else {
      placed.slab.set(data);
      this.taken = placed.slab.subarray(0, data.length);
    }
  }

  /** Copy pixels [p0, p0 + count) of the taken slab (`pixels` a slice) into the block, count ≤ blockWidth. */
  block(pixels: number, p0: number, count: number): void {
    const slab = this.taken!;
    const copy = slab instanceof Float32Array ? this.made().arena.exports.blockF32 : this.made().arena.exports.blockF64;
    copy(slab.byteOffset, pixels, p0, count);
  }

  /** Pixel j of the block into series and valid (NaN and `nodata` invalid); returns how many are valid. */
  pixel(j: number, nodata: number): number {
    return this.made().arena.exports.pixel(j, nodata);
  }

  /** The kernel, made (again) when there is none or its slab is smaller than `length` values or of the other type. */
  private made(length = 0, float32?: boolean): { arena: KernelArena; placed: Placed } {
    const current = this.kernel;
    const fits =
      current && current.placed.slab.length >= length && (float32 === undefined || current.placed.slab instanceof Float32Array === float32);
    if (current && fits) return current;
    const n = this.order.length;
    const capacity = Math.max(length, current?.placed.slab.length ?? 0);
    const kernel = KernelArena.create(kernelModule("seriesGather", WASM_BASE64), (space) => {
      const order = space.allocate(Int32Array, n);
      const block = space.allocate(Float64Array, n * this.blockWidth);
      return {
        order,
        block,
        series: space.allocate(Float64Array, n),
        valid: space.allocate(Uint8Array, n),
        slab: float32 === false ? space.allocate(Float64Array, capacity) : space.allocate(Float32Array, capacity),
      };
    });
    const { order, block, series, valid } = kernel.placed;
    order.set(this.order);
    kernel.arena.exports.bind(order.byteOffset, block.byteOffset, series.byteOffset, valid.byteOffset, n, this.blockWidth);
    this.kernel = kernel;
    return kernel;
  }
}
