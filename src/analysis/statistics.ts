/**
 * Streaming statistics of a variable's valid values (min, max, mean, population standard
 * deviation, count, and a histogram), accumulated block by block while an output is written,
 * so image services can answer them without reading the data again.
 */
import type { TypedArray } from "../cube/types.js";
import { type StagedBlock, stageBlock } from "../kernels/statistics.js";
import { type FineHistogram, HistogramAccumulator } from "./histogram.js";

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
  result(): Statistics | undefined;
}

/**
 * Per block, sums shifted by the running mean (in a WebAssembly kernel, kernels/statistics.ts);
 * blocks merged by Chan et al.'s formula, stable for long series. The histogram is kept unless `histogram` is false (a renderer's
 * statistics of what it draws need none).
 * @example
 * const acc = statisticsAccumulator(); acc.add(slab.data, v.nodata); acc.result();
 */
export function statisticsAccumulator(options: { histogram?: boolean } = {}): StatisticsAccumulator {
  const histogram = options.histogram === false ? undefined : new HistogramAccumulator();
  let n = 0;
  let mean = 0;
  let m2 = 0;
  let min = Infinity;
  let max = -Infinity;
  const block = new Float64Array(5);
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
    // Chan's merge of the block into the running moments.
    const bmean = k + s1 / bn;
    const bm2 = Math.max(0, s2 - (s1 * s1) / bn);
    const total = n + bn;
    const delta = bmean - mean;
    mean += (delta * bn) / total;
    m2 += bm2 + (delta * delta * n * bn) / total;
    n = total;
  };
  return {
    add: (data, nodata) => addStaged(stageBlock(data), nodata),
    addStaged,
    result() {
      return finished(n, min, max, mean, m2, histogram);
    },
  };
}

/** The statistics of n values from their running moments (m2: Σ(x−mean)²); undefined for none. */
function finished(n: number, min: number, max: number, mean: number, m2: number, histogram: HistogramAccumulator | undefined) {
  if (n === 0) return undefined;
  const counts = histogram?.result();
  return { min, max, mean, stddev: Math.sqrt(m2 / n), count: n, ...(counts ? { histogram: counts } : {}) };
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
  let n = 0;
  let mean = 0;
  let m2 = 0;
  let min = Infinity;
  let max = -Infinity;
  // A histogram for the union only when every part with values has one.
  const histogram: HistogramAccumulator | undefined = parts.every((p) => !p || p.count === 0 || p.histogram)
    ? new HistogramAccumulator()
    : undefined;
  for (const p of parts) {
    if (!p || p.count === 0) continue;
    histogram?.merge(p.histogram);
    const total = n + p.count;
    const delta = p.mean - mean;
    m2 += p.stddev * p.stddev * p.count + (delta * delta * n * p.count) / total;
    mean += (delta * p.count) / total;
    n = total;
    if (p.min < min) min = p.min;
    if (p.max > max) max = p.max;
  }
  return finished(n, min, max, mean, m2, histogram);
}
