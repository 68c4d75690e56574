/**
 * The pass-0 sums of the streamed LINEAR trend (TrendSums with p = 2, analysis/trendStream.ts) as a
 * WebAssembly SIMD kernel (assembly/linearSums.ts): 3-4 times the JavaScript loop's speed,
 * with the same sums bit for bit. The sums live in the kernel's memory; so do two arrays a
 * walk can read its runs into (float input), so that a run is summed where it was decoded.
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { KernelArena, RunInput, arenaBytes, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./linearSums.wasm.js";

/** Per pixel: count, bad, then f64 ymin, ymax, ΣY, K, Σ(y−K)², Xᵀy (2) and the missing Σφφᵀ (3). */
const F64_PER_PIXEL = 10;

export class LinearSumsKernel {
  readonly count: Uint32Array;
  readonly bad: Uint8Array;
  readonly ymin: Float64Array;
  readonly ymax: Float64Array;
  readonly sumY: Float64Array;
  readonly shift: Float64Array;
  readonly syy: Float64Array;
  readonly xty: Float64Array;
  readonly missing: Float64Array;
  private readonly arena: KernelArena;
  private readonly phi: Float64Array;
  private readonly runs: RunInput;

  /**
   * For `pixels` pixels and runs of at most `runValues` values of `pixelType`; float runs
   * may be read into the two arrays runArray hands out.
   */
  constructor(
    readonly pixels: number,
    runValues: number,
    pixelType: PixelType,
  ) {
    const slices = Math.ceil(runValues / Math.max(1, pixels));
    const perPixel = [pixels * 4, pixels, ...Array(F64_PER_PIXEL).fill(pixels * 8)];
    this.arena = new KernelArena(
      kernelModule("linearSums", WASM_BASE64),
      arenaBytes(...perPixel, slices * 16, ...RunInput.bytes(runValues, pixelType)),
    );
    const a = this.arena;
    this.count = a.allocate(Uint32Array, pixels);
    this.bad = a.allocate(Uint8Array, pixels);
    this.ymin = a.allocate(Float64Array, pixels).fill(Infinity);
    this.ymax = a.allocate(Float64Array, pixels).fill(-Infinity);
    this.sumY = a.allocate(Float64Array, pixels);
    this.shift = a.allocate(Float64Array, pixels).fill(Number.NaN);
    this.syy = a.allocate(Float64Array, pixels);
    this.xty = a.allocate(Float64Array, 2 * pixels);
    this.missing = a.allocate(Float64Array, 3 * pixels);
    this.phi = a.allocate(Float64Array, 2 * slices);
    this.runs = new RunInput(a, runValues, pixelType);
  }

  /** An array in the kernel's memory to read a run of `length` values into, while one is free (float input only). */
  runArray(length: number): TypedArray | undefined {
    return this.runs.runArray(length);
  }

  /** Add a run of `slices` slices (slice-major) whose basis rows (φ0, φ1) are phi[0 .. 2·slices). */
  addRun(values: TypedArray, slices: number, phi: Float64Array, nodata: number): void {
    const run = this.runs.place(values);
    this.phi.set(phi.subarray(0, 2 * slices));
    const sum = run instanceof Float32Array ? this.arena.exports.sumRunF32 : this.arena.exports.sumRunF64;
    sum(
      run.byteOffset,
      slices,
      this.pixels,
      this.phi.byteOffset,
      nodata,
      this.count.byteOffset,
      this.bad.byteOffset,
      this.ymin.byteOffset,
      this.ymax.byteOffset,
      this.sumY.byteOffset,
      this.shift.byteOffset,
      this.syy.byteOffset,
      this.xty.byteOffset,
      this.missing.byteOffset,
    );
  }
}
