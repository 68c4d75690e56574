/**
 * The pass-0 sums of the streamed LINEAR trend (TrendSums with p = 2, analysis/trendStream.ts)
 * as a WebAssembly SIMD kernel (assembly/linearSums.ts): 3-4 times the JavaScript loop's
 * speed, with the same sums bit for bit. The sums (laid out by the caller) live in the
 * kernel's memory; so do two arrays a walk can read its runs into (float input), so that a
 * run is summed where it was decoded.
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { type ArraySpace, KernelArena, RunInput, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./linearSums.wasm.js";

/** The sums the kernel adds to, per pixel (xty two a pixel, missing three). */
export interface LinearSumArrays {
  readonly count: Uint32Array;
  readonly bad: Uint8Array;
  readonly ymin: Float64Array;
  readonly ymax: Float64Array;
  readonly sumY: Float64Array;
  readonly shift: Float64Array;
  readonly syy: Float64Array;
  readonly xty: Float64Array;
  readonly missing: Float64Array;
}

export class LinearSumsKernel {
  /** The sums, as `layout` made them in the kernel's memory. */
  readonly sums: LinearSumArrays;
  private readonly arena: KernelArena;
  private readonly phi: Float64Array;
  private readonly runs: RunInput;

  /** The sums `layout` makes, and runs of at most `runValues` values of `pixelType`. */
  constructor(layout: (space: ArraySpace) => LinearSumArrays, runValues: number, pixelType: PixelType) {
    const { arena, placed } = KernelArena.create(kernelModule("linearSums", WASM_BASE64), (space) => {
      const sums = layout(space);
      const slices = Math.ceil(runValues / Math.max(1, sums.count.length));
      return { sums, phi: space.allocate(Float64Array, 2 * slices), runs: new RunInput(space, runValues, pixelType) };
    });
    ({ sums: this.sums, phi: this.phi, runs: this.runs } = placed);
    this.arena = arena;
    const { count, bad, ymin, ymax, sumY, shift, syy, xty, missing } = this.sums;
    arena.exports.bind(...[count, bad, ymin, ymax, sumY, shift, syy, xty, missing].map((a) => a.byteOffset));
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
    sum(run.byteOffset, slices, this.sums.count.length, this.phi.byteOffset, nodata);
  }
}
