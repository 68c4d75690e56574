/**
 * Streaming statistics of a variable's valid values (min, max, mean, population standard
 * deviation, count), accumulated block by block while an output is written, so image
 * services can answer them without reading the data again.
 */
import type { TypedArray } from "../cube/types.js";

export interface Statistics {
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly stddev: number;
  readonly count: number;
}

export interface StatisticsAccumulator {
  add(data: TypedArray, nodata: number | undefined): void;
  result(): Statistics | undefined;
}

/**
 * Per block, sums shifted by the running mean; blocks merged by Chan et al.'s formula,
 * stable for long series.
 * @example
 * const acc = statisticsAccumulator(); acc.add(slab.data, v.nodata); acc.result();
 */
export function statisticsAccumulator(): StatisticsAccumulator {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  let min = Infinity;
  let max = -Infinity;
  return {
    add(data, nodata) {
      // One pass over the block with sums shifted by K (the mean so far, else the block's
      // first value), so nothing cancels; then Chan's merge. Locals in the loop: closure
      // variables written per value cost several times more.
      let bn = 0;
      let s1 = 0;
      let s2 = 0;
      let lo = min;
      let hi = max;
      const nd = nodata ?? NaN;
      const masked = nd === nd;
      let i = 0;
      let k = mean;
      // K found in a loop of its own: a test for it in the main loop made that several times slower.
      if (n === 0) {
        for (; i < data.length; i++) {
          const x = data[i];
          if (x === x && !(masked && x === nd)) {
            k = x;
            break;
          }
        }
      }
      for (; i < data.length; i++) {
        const x = data[i];
        if (x !== x || (masked && x === nd)) continue; // NaN or nodata
        const d = x - k;
        bn++;
        s1 += d;
        s2 += d * d;
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
      min = lo;
      max = hi;
      if (bn === 0) return;
      const bmean = k + s1 / bn;
      const bm2 = Math.max(0, s2 - (s1 * s1) / bn);
      const total = n + bn;
      const delta = bmean - mean;
      mean += (delta * bn) / total;
      m2 += bm2 + (delta * delta * n * bn) / total;
      n = total;
    },
    result() {
      return n === 0 ? undefined : { min, max, mean, stddev: Math.sqrt(m2 / n), count: n };
    },
  };
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
  for (const p of parts) {
    if (!p || p.count === 0) continue;
    const total = n + p.count;
    const delta = p.mean - mean;
    m2 += p.stddev * p.stddev * p.count + (delta * delta * n * p.count) / total;
    mean += (delta * p.count) / total;
    n = total;
    if (p.min < min) min = p.min;
    if (p.max > max) max = p.max;
  }
  return n === 0 ? undefined : { min, max, mean, stddev: Math.sqrt(m2 / n), count: n };
}
