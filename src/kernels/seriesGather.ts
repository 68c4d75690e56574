/**
 * The per-pixel fits' gather (assembly/seriesGather.ts): a tile's slice-major slab into each
 * pixel's series in x order, with its valid flags, through a block of pixels copied slice by
 * slice. The slab is taken where it lies when it was read into the kernel's own array
 * (slabArray), else copied in once (float32 as it is, any other type as f64); the kernel is
 * made again larger when a slab does not fit (tiles are one size in a job but for the
 * edges), as the statistics' stageBlock does.
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

interface Space {
  readonly arena: KernelArena;
  /** The slab's room, in bytes, seen as f32 and as f64. */
  readonly bytes: number;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly series: Float64Array;
  readonly valid: Uint8Array;
}

export class SeriesGather {
  private space?: Space;
  private taken?: Float32Array | Float64Array;

  /** For series of order.length slices taken in that order, in blocks of `blockWidth` pixels. */
  constructor(
    private readonly order: Int32Array,
    private readonly blockWidth: number,
  ) {}

  /** The series pixel() filled (valid until the next call), and its valid flags; after a take(). */
  get series(): Float64Array {
    return this.space!.series;
  }
  get valid(): Uint8Array {
    return this.space!.valid;
  }

  /** An array in the kernel's memory to read a slab of `length` values of `pixelType` into (float types only). */
  slabArray(length: number, pixelType: PixelType): TypedArray | undefined {
    if (pixelType === "F32") return this.room(4 * length).f32.subarray(0, length);
    if (pixelType === "F64") return this.room(8 * length).f64.subarray(0, length);
    return undefined;
  }

  /** The tile's slab (slice-major, order.length slices): in place if slabArray gave it, else copied in. */
  take(data: TypedArray): void {
    const f32 = data instanceof Float32Array;
    const space = this.room(data.length * (f32 ? 4 : 8));
    if (space.arena.holds(data) && (f32 || data instanceof Float64Array)) this.taken = data as Float32Array | Float64Array;
    else {
      this.taken = f32 ? space.f32.subarray(0, data.length) : space.f64.subarray(0, data.length);
      this.taken.set(data);
    }
  }

  /** Copy pixels [p0, p0 + count) of the taken slab (`pixels` a slice) into the block, count ≤ blockWidth. */
  block(pixels: number, p0: number, count: number): void {
    const slab = this.taken!;
    const { exports } = this.space!.arena;
    (slab instanceof Float32Array ? exports.blockF32 : exports.blockF64)(slab.byteOffset, pixels, p0, count);
  }

  /** Pixel j of the block into series and valid (NaN and `nodata` invalid); returns how many are valid. */
  pixel(j: number, nodata: number): number {
    return this.space!.arena.exports.pixel(j, nodata);
  }

  /** The kernel, made (again, larger) when there is none or its slab's room is under `bytes`. */
  private room(bytes: number): Space {
    if (this.space && bytes <= this.space.bytes) return this.space;
    const n = this.order.length;
    const { arena, placed } = KernelArena.create(kernelModule("seriesGather", WASM_BASE64), (space) => ({
      order: space.allocate(Int32Array, n),
      block: space.allocate(Float64Array, n * this.blockWidth),
      series: space.allocate(Float64Array, n),
      valid: space.allocate(Uint8Array, n),
      f64: space.allocate(Float64Array, Math.ceil(bytes / 8)),
    }));
    const { order, block, series, valid, f64 } = placed;
    order.set(this.order);
    arena.exports.bind(order.byteOffset, block.byteOffset, series.byteOffset, valid.byteOffset, n, this.blockWidth);
    const f32 = new Float32Array(f64.buffer, f64.byteOffset, 2 * f64.length);
    this.space = { arena, bytes: f64.byteLength, f32, f64, series, valid };
    return this.space;
  }
}
