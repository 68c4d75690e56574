/**
 * The streamed anomaly's pass 1 (analysis/anomalyStream.ts) as a WebAssembly SIMD kernel
 * (assembly/anomalyApply.ts): each run's anomalies against its groups' µ (and s) computed
 * into an output array in the kernel's memory, whose statistics are then taken there. The
 * values are analysis/anomaly.ts's applyRow's, value for value.
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { KernelArena, RunInput, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./anomalyApply.wasm.js";
import { BlockStatistics, type StagedBlock } from "./statistics.js";

/** Runs in the kernel's memory at once: the one computed, the one read meanwhile, and two being written. */
const RUN_ARRAYS = 4;

export class AnomalyApplyKernel {
  /** µ of each slot's group and pixel ([slot][p]), to be filled by the caller. */
  readonly mean: Float64Array;
  /** s of each slot's group and pixel, for Z_SCORE. */
  readonly sd: Float64Array | undefined;
  private readonly arena: KernelArena;
  private readonly runs: RunInput;
  private readonly out: Float32Array | Float64Array;
  private readonly statistics: BlockStatistics;

  /**
   * For `slots` × `pixels` references (a group each), runs of at most `runValues` values of
   * `pixelType`, anomalies written as `output` (F32 or F64).
   */
  constructor(
    slots: number,
    readonly pixels: number,
    withSd: boolean,
    runValues: number,
    pixelType: PixelType,
    output: "F32" | "F64",
  ) {
    const cells = slots * pixels;
    // Shared: a run computed in place is written to its chunks from here by the encoder's
    // thread, which holds it meanwhile: RUN_ARRAYS runs, so that reading goes on.
    const { arena, placed } = KernelArena.create(
      kernelModule("anomalyApply", WASM_BASE64),
      (space) => ({
        mean: space.allocate(Float64Array, cells),
        sd: withSd ? space.allocate(Float64Array, cells) : undefined,
        out: output === "F32" ? space.allocate(Float32Array, runValues) : space.allocate(Float64Array, runValues),
        runs: new RunInput(space, runValues, pixelType, RUN_ARRAYS),
        statistics: new BlockStatistics(space),
      }),
      { sharedMemory: true },
    );
    this.arena = arena;
    ({ mean: this.mean, sd: this.sd, out: this.out, runs: this.runs, statistics: this.statistics } = placed);
  }

  /** An array in the kernel's memory to read a run of `length` values into, while one is free (float input only). */
  runArray(length: number): TypedArray | undefined {
    return this.runs.runArray(length);
  }

  /**
   * The anomalies of a run (slice k against the group in slot slotOf(k)) by method `kind`
   * (anomaly.ts's numbering), NaN where x is `nodata` or the anomaly is beyond ±limit. The
   * result lies in the kernel's memory until the next run; with `inPlace`, over the run's own
   * values when they are in an array of the kernel's (runArray) of the output's type (each
   * value is read before its anomaly is stored), so that it stays while the run's array does.
   */
  apply(
    values: TypedArray,
    slotOf: (slice: number) => number,
    kind: number,
    nodata: number,
    limit: number,
    { inPlace = false }: { inPlace?: boolean } = {},
  ): StagedBlock {
    const P = this.pixels;
    const run = this.runs.place(values);
    const out = inPlace && run === values && run.constructor === this.out.constructor ? run : this.out.subarray(0, values.length);
    const f32in = run instanceof Float32Array;
    const f32out = out instanceof Float32Array;
    const e = this.arena.exports;
    const apply = f32in ? (f32out ? e.applyF32toF32 : e.applyF32toF64) : f32out ? e.applyF64toF32 : e.applyF64toF64;
    const slices = Math.floor(values.length / P);
    for (let k = 0; k < slices; k++) {
      const cell = slotOf(k) * P * 8;
      const sd = this.sd ? this.sd.byteOffset + cell : 0;
      apply(
        kind,
        run.byteOffset + k * P * run.BYTES_PER_ELEMENT,
        out.byteOffset + k * P * out.BYTES_PER_ELEMENT,
        P,
        nodata,
        this.mean.byteOffset + cell,
        sd,
        limit,
      );
    }
    return this.statistics.block(this.arena, out);
  }
}
