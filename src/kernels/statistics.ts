/**
 * The output statistics' per-block loops (analysis/statistics.ts, analysis/histogram.ts) as
 * WebAssembly (assembly/lib/statistics.ts): a block's values, in a kernel's memory, summed in
 * SIMD lanes and binned there. A block another kernel computed is taken where it lies
 * (BlockStatistics in that kernel's arena); any other is copied once into this thread's
 * statistics arena (stageBlock), made again larger when a block does not fit (blocks are one
 * size in a job).
 *
 * ```ts
 * const block = stageBlock(values);
 * block.sums(NaN, k, out); // count, Σ(x−k), Σ(x−k)², min, max
 * block.bin(NaN, scale, origin, counts);
 * ```
 */
import type { TypedArray } from "../cube/types.js";
import { type ArraySpace, KernelArena, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./statistics.wasm.js";

/** A block of values in a kernel's memory, valid until that memory is written again. */
export interface StagedBlock {
  readonly values: Float32Array | Float64Array;
  /** Count, Σ(x−k), Σ(x−k)², min and max of the values neither NaN nor `nodata`, into out[0..5). */
  sums(nodata: number, k: number, out: Float64Array): void;
  /** counts[⌊x·scale − origin⌋] += 1 for each valid x; every one must fall in counts. */
  bin(nodata: number, scale: number, origin: number, counts: Float64Array): void;
}

/** Bins a tally holds (the fine histogram's, analysis/histogram.ts). */
export const TALLY_BINS = 4096;
/** Tallies the kernel counts into in turn (see assembly/lib/statistics.ts). */
const TALLIES = 4;

/** The statistics' working arrays, in the memory of a kernel that exports blockSums* and binValues*. */
export class BlockStatistics {
  private readonly out: Float64Array;
  private readonly tally: Int32Array;

  constructor(space: ArraySpace) {
    this.out = space.allocate(Float64Array, 5);
    this.tally = space.allocate(Int32Array, TALLIES * TALLY_BINS);
  }

  /** The block `values`, an array in `arena`'s memory (where these working arrays are too). */
  block(arena: KernelArena, values: Float32Array | Float64Array): StagedBlock {
    const { out: sums, tally } = this;
    const f32 = values instanceof Float32Array;
    const { byteOffset, length } = values;
    return {
      values,
      sums(nodata, k, out) {
        (f32 ? arena.exports.blockSumsF32 : arena.exports.blockSumsF64)(byteOffset, length, nodata, k, sums.byteOffset);
        out.set(sums);
      },
      bin(nodata, scale, origin, counts) {
        if (counts.length > TALLY_BINS) throw new RangeError(`a histogram of ${counts.length} bins (the tally holds ${TALLY_BINS})`);
        const bin = f32 ? arena.exports.binValuesF32 : arena.exports.binValuesF64;
        bin(byteOffset, length, nodata, scale, origin, tally.byteOffset, TALLY_BINS);
        for (let t = 0; t < TALLIES * TALLY_BINS; t += TALLY_BINS) {
          for (let j = 0; j < counts.length; j++) {
            counts[j] += tally[t + j];
            tally[t + j] = 0;
          }
        }
      },
    };
  }
}

let space: { arena: KernelArena; bytes: number; f32: Float32Array; f64: Float64Array; statistics: BlockStatistics } | undefined;

/** Copy `data` into this thread's statistics arena (float32 as it is, any other type as f64). */
export function stageBlock(data: TypedArray): StagedBlock {
  const f32 = data instanceof Float32Array;
  const bytes = data.length * (f32 ? 4 : 8);
  if (!space || bytes > space.bytes) {
    const { arena, placed } = KernelArena.create(kernelModule("statistics", WASM_BASE64), (s) => {
      const f64 = s.allocate(Float64Array, Math.ceil(bytes / 8));
      return { f64, f32: new Float32Array(f64.buffer, f64.byteOffset, 2 * f64.length), statistics: new BlockStatistics(s) };
    });
    space = { arena, bytes, ...placed };
  }
  const values = f32 ? space.f32.subarray(0, data.length) : space.f64.subarray(0, data.length);
  values.set(data);
  return space.statistics.block(space.arena, values);
}
