/**
 * The per-pixel fits' gather (assembly/seriesGather.ts): a tile's slice-major slab into each
 * pixel's series in x order, with its valid flags, through a block of pixels copied slice by
 * slice; and, for a least-squares fit, the sweeps of the whole slab that fit its complete
 * pixels at once (sweep). The slab is taken where it lies when it was read into the
 * kernel's own array (slabArray; chunks decoded into it are unshuffled by the kernel), else
 * copied in once (float32 as it is, any other type as f64); the kernel is made again larger
 * when a slab does not fit (tiles are one size in a job but for the edges), as the
 * statistics' stageBlock does.
 *
 * ```ts
 * const gather = new SeriesGather(order, 64);
 * gather.take(slab.data);
 * gather.block(pixels, 0, 64);
 * const valid = gather.pixel(0, NaN); // gather.series, gather.valid: pixel 0's series
 * ```
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { KernelArena, chunkStagingBytes, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./seriesGather.wasm.js";

/** A least-squares fit's p × n arrays (row j, slice in x order k at j·n + k): its solution map R⁻¹Qᵀ and its basis. */
export interface SweepMaps {
  readonly p: number;
  readonly map: Float64Array;
  readonly basis: Float64Array;
}

/** What sweep() sums per pixel (views of the kernel's memory, valid until the next sweep). */
export interface CompleteSums {
  /** Valid values. */
  readonly count: Float64Array;
  /** Σy / n (every value counted, valid or not). */
  readonly mean: Float64Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
  /** Σ(y − fitted)², fitted = Σj basis[j·n + k]·a[j]. */
  readonly sse: Float64Array;
  /** Σ(y − mean)². */
  readonly sst: Float64Array;
  /** The coefficients Σk map[j·n + k]·y, coefficient j of pixel q at j·pixels + q. */
  readonly coefficients: Float64Array;
}

interface Space {
  readonly arena: KernelArena;
  /** The slab's room, in bytes, seen as f32 and as f64. */
  readonly bytes: number;
  /** Bytes of a chunk the kernel can stage to unshuffle into the slab. */
  readonly chunkBytes: number;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly series: Float64Array;
  readonly valid: Uint8Array;
  /** The maps at sweepMap and sweepBasis, and the sums at sweepSums (for as many pixels as an f32 slab holds). */
  readonly sweepMap: Float64Array;
  readonly sweepBasis: Float64Array;
  readonly sweepSums: Float64Array;
}

export class SeriesGather {
  private space?: Space;
  private taken?: Float32Array | Float64Array;

  /** For series of order.length slices taken in that order, in blocks of `blockWidth` pixels; `sweeps` for a least-squares fit. */
  constructor(
    private readonly order: Int32Array,
    private readonly blockWidth: number,
    private readonly sweeps?: SweepMaps,
  ) {}

  /** The series pixel() filled (valid until the next call), and its valid flags; after a take(). */
  get series(): Float64Array {
    return this.space!.series;
  }
  get valid(): Uint8Array {
    return this.space!.valid;
  }

  /**
   * An array in the kernel's memory to read a slab of `length` values of `pixelType` into
   * (float types only); chunks of `chunkBytes` decoded into it are unshuffled by the kernel.
   */
  slabArray(length: number, pixelType: PixelType, chunkBytes = 0): TypedArray | undefined {
    if (pixelType === "F32") return this.room(4 * length, chunkBytes).f32.subarray(0, length);
    if (pixelType === "F64") return this.room(8 * length, chunkBytes).f64.subarray(0, length);
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

  /**
   * The sums that fit the taken slab's complete pixels (`pixels` a slice, NaN and `nodata`
   * invalid), both sweeps; the caller keeps the pixels whose count is n.
   */
  sweep(pixels: number, nodata: number): CompleteSums {
    const slab = this.taken!;
    const { arena, sweepMap, sweepBasis, sweepSums } = this.space!;
    const p = this.sweeps!.p;
    (slab instanceof Float32Array ? arena.exports.sweepF32 : arena.exports.sweepF64)(
      slab.byteOffset,
      pixels,
      p,
      sweepMap.byteOffset,
      sweepBasis.byteOffset,
      nodata,
      sweepSums.byteOffset,
    );
    const part = (i: number, count = 1) => sweepSums.subarray(i * pixels, (i + count) * pixels);
    return { count: part(0), mean: part(1), min: part(2), max: part(3), sse: part(4), sst: part(5), coefficients: part(6, p) };
  }

  /** Pixel j of the block into series and valid (NaN and `nodata` invalid); returns how many are valid. */
  pixel(j: number, nodata: number): number {
    return this.space!.arena.exports.pixel(j, nodata);
  }

  /**
   * The kernel, made (again, larger) when there is none, its slab's room is under `bytes` or
   * its staging under what chunks of `chunkBytes` need (chunkStagingBytes).
   */
  private room(bytes: number, chunkBytes = 0): Space {
    const staged = chunkStagingBytes(chunkBytes, bytes);
    if (this.space && bytes <= this.space.bytes && staged <= this.space.chunkBytes) return this.space;
    const n = this.order.length;
    const p = this.sweeps?.p ?? 0;
    // As many pixels as a float32 slab of this room holds.
    const pixels = p > 0 ? Math.floor(bytes / 4 / Math.max(1, n)) : 0;
    const { arena, placed } = KernelArena.create(kernelModule("seriesGather", WASM_BASE64), (space) => ({
      order: space.allocate(Int32Array, n),
      block: space.allocate(Float64Array, n * this.blockWidth),
      series: space.allocate(Float64Array, n),
      valid: space.allocate(Uint8Array, n),
      f64: space.allocate(Float64Array, Math.ceil(bytes / 8)),
      staging: space.allocate(Uint8Array, staged),
      sweepMap: space.allocate(Float64Array, p * n),
      sweepBasis: space.allocate(Float64Array, p * n),
      sweepSums: space.allocate(Float64Array, (6 + p) * pixels),
    }));
    const { order, block, series, valid, f64, staging, sweepMap, sweepBasis, sweepSums } = placed;
    order.set(this.order);
    if (this.sweeps) {
      sweepMap.set(this.sweeps.map);
      sweepBasis.set(this.sweeps.basis);
    }
    if (staged > 0) arena.stageDecodesIn(staging);
    arena.exports.bind(order.byteOffset, block.byteOffset, series.byteOffset, valid.byteOffset, n, this.blockWidth);
    const f32 = new Float32Array(f64.buffer, f64.byteOffset, 2 * f64.length);
    this.space = { arena, bytes: f64.byteLength, chunkBytes: staged, f32, f64, series, valid, sweepMap, sweepBasis, sweepSums };
    return this.space;
  }
}
