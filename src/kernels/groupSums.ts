/**
 * The streamed anomaly's pass-0 sums (GroupMoments, analysis/groupMoments.ts) as a
 * WebAssembly SIMD kernel (assembly/groupSums.ts): the sums bit for bit the JavaScript
 * loop's, in a fraction of its time. The sums (laid out by the caller) live in the kernel's
 * memory; so do two arrays a walk can read its runs into (float input). The memory is shared,
 * so that a run kept for the next pass is written from where it was read.
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { type ArraySpace, KernelArena, RunInput, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./groupSums.wasm.js";

/** The sums per cell (group g, pixel p at g·pixels + p); shift per cell, or per pixel when shorter; s2 kept or not. */
export interface GroupSumArrays {
  readonly shift: Float64Array;
  readonly s1: Float64Array;
  readonly s2: Float64Array | undefined;
  readonly n: Uint32Array;
  readonly bad: Uint8Array;
}

export class GroupSumsKernel {
  /** The sums, as `layout` made them in the kernel's memory. */
  readonly sums: GroupSumArrays;
  private readonly arena: KernelArena;
  private readonly runs: RunInput;

  /** The sums `layout` makes for groups of `pixels` pixels, and runs of at most `runValues` values of `pixelType`. */
  constructor(
    layout: (space: ArraySpace) => GroupSumArrays,
    readonly pixels: number,
    runValues: number,
    pixelType: PixelType,
  ) {
    // Shared: the runs an anomaly keeps are written to their files from here by the encoder's thread.
    const { arena, placed } = KernelArena.create(
      kernelModule("groupSums", WASM_BASE64),
      (space) => ({ sums: layout(space), runs: new RunInput(space, runValues, pixelType) }),
      { sharedMemory: true },
    );
    ({ sums: this.sums, runs: this.runs } = placed);
    this.arena = arena;
    const { shift, s1, s2, n, bad } = this.sums;
    arena.exports.bind(shift.byteOffset, shift.length > pixels, s1.byteOffset, s2?.byteOffset ?? 0, n.byteOffset, bad.byteOffset);
  }

  /** An array in the kernel's memory to read a run of `length` values into, while one is free (float input only). */
  runArray(length: number): TypedArray | undefined {
    return this.runs.runArray(length);
  }

  /** Every run array free again (see RunInput.reclaim). */
  reclaimRuns(): void {
    this.runs.reclaim();
  }

  /** Add a run of slices, values[k·P .. (k+1)·P) to group groups[t0 + k]; NaN and `nodata` are nodata. */
  addRun(values: TypedArray, groups: ArrayLike<number>, t0: number, nodata: number): void {
    const P = this.pixels;
    const run = this.runs.place(values);
    const add = run instanceof Float32Array ? this.arena.exports.addSegmentF32 : this.arena.exports.addSegmentF64;
    const slices = Math.floor(values.length / P);
    // Segments of consecutive slices in one group (a month's days): one call each.
    for (let k0 = 0; k0 < slices;) {
      const g = groups[t0 + k0];
      let k1 = k0 + 1;
      while (k1 < slices && groups[t0 + k1] === g) k1++;
      add(run.byteOffset + k0 * P * run.BYTES_PER_ELEMENT, k1 - k0, P, nodata, g * P);
      k0 = k1;
    }
  }
}
