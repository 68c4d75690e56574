/**
 * The streamed anomaly's pass-0 sums (GroupMoments, analysis/groupMoments.ts) as a
 * WebAssembly SIMD kernel (assembly/groupSums.ts): the sums bit for bit the JavaScript
 * loop's, in a fraction of its time. The sums live in the kernel's memory; so do two arrays a
 * walk can read its runs into (float input).
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { KernelArena, RunInput, arenaBytes, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./groupSums.wasm.js";

export class GroupSumsKernel {
  /** K per pixel and group with s, else per pixel ([g][p] / [p]). */
  readonly shift: Float64Array;
  readonly s1: Float64Array;
  readonly s2: Float64Array | undefined;
  readonly n: Uint32Array;
  readonly bad: Uint8Array;
  private readonly arena: KernelArena;
  private readonly runs: RunInput;

  constructor(
    readonly groups: number,
    readonly pixels: number,
    withSd: boolean,
    runValues: number,
    pixelType: PixelType,
  ) {
    const cells = groups * pixels;
    const f64 = withSd ? [cells * 8, cells * 8, cells * 8] : [pixels * 8, cells * 8];
    this.arena = new KernelArena(
      kernelModule("groupSums", WASM_BASE64),
      arenaBytes(...f64, cells * 4, cells, ...RunInput.bytes(runValues, pixelType)),
    );
    const a = this.arena;
    this.shift = a.allocate(Float64Array, withSd ? cells : pixels).fill(Number.NaN);
    this.s1 = a.allocate(Float64Array, cells);
    this.s2 = withSd ? a.allocate(Float64Array, cells) : undefined;
    this.n = a.allocate(Uint32Array, cells);
    this.bad = a.allocate(Uint8Array, cells);
    this.runs = new RunInput(a, runValues, pixelType);
  }

  /** An array in the kernel's memory to read a run of `length` values into, while one is free (float input only). */
  runArray(length: number): TypedArray | undefined {
    return this.runs.runArray(length);
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
      const cell = g * P;
      add(
        run.byteOffset + k0 * P * run.BYTES_PER_ELEMENT,
        k1 - k0,
        P,
        nodata,
        this.shift.byteOffset + (this.s2 ? cell * 8 : 0),
        this.s1.byteOffset + cell * 8,
        this.s2 ? this.s2.byteOffset + cell * 8 : 0,
        this.n.byteOffset + cell * 4,
        this.bad.byteOffset + cell,
      );
      k0 = k1;
    }
  }
}
