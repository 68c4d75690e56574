/**
 * Streaming statistics of a variable's valid values (min, max, mean, population standard
 * deviation, count, and a histogram), accumulated block by block while an output is written,
 * so image services can answer them without reading the data again.
 */
import type { TypedArray } from "../cube/types.js";
import type { ChunkRegion } from "../cube/chunkSummaries.js";
import { type StagedBlock, stageBlock } from "../kernels/statistics.js";
import { type FineHistogram, HistogramAccumulator, type TypedFineHistogram } from "./histogram.js";

export interface Statistics {
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly stddev: number;
  readonly count: number;
  /** The values' histogram (analysis/histogram.ts), where it was kept. */
  readonly histogram?: FineHistogram;
}

export interface StatisticsAccumulator {
  add(data: TypedArray, nodata: number | undefined): void;
  /** Add a block already in a kernel's memory (one that computed it), without copying it. */
  addStaged(block: StagedBlock, nodata: number | undefined): void;
  /** Add the statistics of a part of the values (without a histogram, the result has none). */
  addStatistics(part: Statistics | StatisticsPart | undefined): void;
  /**
   * Add a part once it is known (a chunk summarized on the thread that encoded it, BlockSink's
   * summaries); parts are added in the order given, so the result does not depend on timing.
   */
  addLater(part: Promise<unknown>): void;
  /** Resolves once every part given to addLater is added; rejects with the first that failed. */
  settled(): Promise<void>;
  result(): Statistics | undefined;
  /** result() as a part for another accumulator (its histogram's counts typed, to cross threads fast). */
  part(): StatisticsPart | undefined;
}

/** Statistics with the histogram's counts typed. */
export type StatisticsPart = Omit<Statistics, "histogram"> & { readonly histogram?: TypedFineHistogram };

/**
 * Values staged in the kernel's memory at once: a tile walk's 20 MB blocks staged whole kept
 * an arena of 20 MB on each of its threads.
 */
const STAGED_VALUES = 1 << 20;

/**
 * Per block, sums shifted by the running mean (in a WebAssembly kernel, kernels/statistics.ts);
 * blocks merged by Chan et al.'s formula, stable for long series. The histogram is kept unless `histogram` is false (a renderer's
 * statistics of what it draws need none).
 * @example
 * const acc = statisticsAccumulator(); acc.add(slab.data, v.nodata); acc.result();
 */
export function statisticsAccumulator(options: { histogram?: boolean | HistogramAccumulator } = {}): StatisticsAccumulator {
  let histogram =
    options.histogram === false
      ? undefined
      : options.histogram instanceof HistogramAccumulator
        ? options.histogram
        : new HistogramAccumulator();
  let n = 0;
  let mean = 0;
  let m2 = 0;
  let min = Infinity;
  let max = -Infinity;
  const block = new Float64Array(5);
  /** Chan's merge of a part's moments into the running ones. */
  const merge = (bn: number, bmean: number, bm2: number): void => {
    const total = n + bn;
    const delta = bmean - mean;
    mean += (delta * bn) / total;
    m2 += bm2 + (delta * delta * n * bn) / total;
    n = total;
  };
  const addStaged = (staged: StagedBlock, nodata: number | undefined): void => {
    const nd = nodata ?? NaN;
    // Sums shifted by K (the mean so far, else the block's first value), so nothing cancels.
    const k = n > 0 ? mean : firstValid(staged.values, nd);
    if (k === undefined) return;
    staged.sums(nd, k, block);
    const [bn, s1, s2, lo, hi] = block;
    if (lo < min) min = lo;
    if (hi > max) max = hi;
    if (bn === 0) return;
    histogram?.add(staged, nd, lo, hi);
    merge(bn, k + s1 / bn, Math.max(0, s2 - (s1 * s1) / bn));
  };
  const addStatistics = (part: Statistics | StatisticsPart | undefined): void => {
    if (!part || part.count === 0) return;
    if (part.histogram) histogram?.merge(part.histogram);
    else histogram = undefined;
    merge(part.count, part.mean, part.stddev * part.stddev * part.count);
    if (part.min < min) min = part.min;
    if (part.max > max) max = part.max;
  };
  let later: Promise<void> = Promise.resolve();
  return {
    add(data, nodata) {
      for (let i = 0; i < data.length; i += STAGED_VALUES) addStaged(stageBlock(data.subarray(i, i + STAGED_VALUES)), nodata);
    },
    addStaged,
    addStatistics,
    addLater(part) {
      later = later.then(async () => addStatistics((await part) as StatisticsPart | undefined));
      later.catch(() => {}); // rejected for settled(), not unhandled meanwhile
    },
    settled: () => later,
    result: () => finished(n, min, max, mean, m2, histogram?.result()),
    part: () => finished(n, min, max, mean, m2, histogram?.typedResult()),
  };
}

/**
 * The statistics of a chunk's values (the chunk summary behind CHUNK_STATISTICS): those of
 * its region that are neither NaN nor `options.nodata`.
 * @example
 * chunkStatistics(Float32Array.of(1, 2, NaN, 4), { shape: [2, 2], extent: [2, 1] }); // of 1 and NaN
 */
export function chunkStatistics(values: TypedArray, region: ChunkRegion, options?: { nodata?: number }): StatisticsPart | undefined {
  // One histogram's memory for every chunk this thread summarizes: a fresh one was 32 KB a
  // chunk, and with the summaries' clones it made a 2-thread anomaly's RSS climb ~30 MB a
  // second through its last pass (glibc keeping what the collector freed).
  (chunkHistogram ??= new HistogramAccumulator()).reset();
  const acc = statisticsAccumulator({ histogram: chunkHistogram });
  acc.add(regionValues(values, region), options?.nodata);
  return acc.part();
}

let chunkHistogram: HistogramAccumulator | undefined;

/** Where an output's chunk encoder finds chunkStatistics (BlockSink.writeBlock's summaries). */
export const CHUNK_STATISTICS = { module: import.meta.url, name: "chunkStatistics" } as const;

/** The values of a chunk's region, C order: the chunk itself when whole, else its region's rows copied out. */
function regionValues(values: TypedArray, { shape, extent }: ChunkRegion): TypedArray {
  if (extent.every((e, d) => e === shape[d])) return values;
  const nd = shape.length;
  const row = extent[nd - 1];
  const rows = extent.slice(0, -1).reduce((a, b) => a * b, 1);
  const out = new (values.constructor as new (n: number) => TypedArray)(rows * row);
  const at = new Array<number>(nd - 1).fill(0);
  for (let r = 0; r < rows; r++) {
    let offset = 0;
    for (let d = 0; d < nd - 1; d++) offset = offset * shape[d] + at[d];
    out.set(values.subarray(offset * shape[nd - 1], offset * shape[nd - 1] + row) as never, r * row);
    for (let d = nd - 2; d >= 0; d--) {
      if (++at[d] < extent[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

/** The statistics of n values from their running moments (m2: Σ(x−mean)²); undefined for none. */
function finished<H>(n: number, min: number, max: number, mean: number, m2: number, histogram: H | undefined) {
  if (n === 0) return undefined;
  return { min, max, mean, stddev: Math.sqrt(m2 / n), count: n, ...(histogram ? { histogram } : {}) };
}

/** The first value that is neither NaN nor `nd`. */
function firstValid(data: TypedArray, nd: number): number | undefined {
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    if (x === x && x !== nd) return x;
  }
  return undefined;
}

/**
 * The statistics of the union of disjoint parts (Chan et al.'s pairwise merge), e.g. of the
 * shares several threads computed; undefined parts (no valid value) are skipped.
 * @example
 * mergeStatistics([{ min: 0, max: 1, mean: 0.5, stddev: 0.5, count: 2 }, undefined]);
 */
export function mergeStatistics(parts: readonly (Statistics | undefined)[]): Statistics | undefined {
  const acc = statisticsAccumulator();
  for (const p of parts) acc.addStatistics(p);
  return acc.result();
}
