/**
 * The histograms behind the percent-clip and histogram-equalization stretches: ArcGIS's
 * image-service histogram (`size` equal bins over [min, max], as a service's `histograms`
 * resource and a Stretch's `Histograms` argument give it), taken from a variable's stored
 * statistics or counted from the pixels drawn (DRA).
 */
import type { FineHistogram } from "../../analysis/histogram.js";
import { histogramBins } from "../../analysis/histogram.js";
import type { PixelValues } from "./stretch.js";

/** Counts in equal bins over [min, max]; the last bin includes max. */
export interface BinnedHistogram {
  readonly min: number;
  readonly max: number;
  readonly counts: readonly number[];
}

/** Bins of the histograms Strata stores and serves. */
const HISTOGRAM_BINS = 256;

/**
 * The 256-bin histogram of stored statistics (undefined when they kept no histogram).
 * @example
 * storedHistogram(statistics); // { min: 271.2, max: 305.9, counts: [256 numbers] }
 */
export function storedHistogram(s: { min: number; max: number; histogram?: FineHistogram } | undefined): BinnedHistogram | undefined {
  if (!s?.histogram) return undefined;
  return { min: s.min, max: s.max, counts: histogramBins(s.histogram, s.min, s.max, HISTOGRAM_BINS) };
}

/**
 * A 256-bin histogram of the valid values over their own range (all in the first bin when
 * they are equal; no bins when there are none).
 * @example
 * valuesHistogram([0, 1, 2, 3], undefined); // { min: 0, max: 3, counts: [1, 0, …, 1, …, 1, …, 1] }
 */
export function valuesHistogram(values: PixelValues, nodata: number | undefined): BinnedHistogram {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v || v === nodata) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo > hi) return { min: 0, max: 0, counts: [] };
  const counts = new Array<number>(HISTOGRAM_BINS).fill(0);
  const bin = binOf({ min: lo, max: hi, counts });
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v || v === nodata) continue;
    counts[bin(v)]++;
  }
  return { min: lo, max: hi, counts };
}

/**
 * The bin of a value (values beyond the range clamp to the end bins).
 * @example
 * binOf({ min: 0, max: 10, counts: new Array(10).fill(0) })(3.5); // 3
 */
export function binOf(h: BinnedHistogram): (v: number) => number {
  const size = h.counts.length;
  const scale = h.max > h.min ? size / (h.max - h.min) : 0;
  return (v) => {
    const b = Math.floor((v - h.min) * scale);
    return b < 0 || b !== b ? 0 : b >= size ? size - 1 : b;
  };
}

/**
 * The percent-clip range of a histogram: from the lower edge of the bin holding the value of
 * rank floor(n · minPercent / 100) to the upper edge of the bin holding rank
 * n − 1 − floor(n · maxPercent / 100) (ranks from 0 in ascending order), so the clip is as
 * fine as the bins.
 * @example
 * // 100 values, one per bin of [0, 100]: clip 2% / 3% keeps bins 2..96
 * percentClipFromHistogram({ min: 0, max: 100, counts: new Array(100).fill(1) }, 2, 3); // { min: 2, max: 97 }
 */
export function percentClipFromHistogram(h: BinnedHistogram, minPercent: number, maxPercent: number): { min: number; max: number } {
  const n = h.counts.reduce((a, c) => a + c, 0);
  if (n === 0) return { min: h.min, max: h.max };
  const width = (h.max - h.min) / h.counts.length;
  const rankLo = Math.min(n - 1, Math.floor((n * minPercent) / 100));
  const rankHi = Math.max(rankLo, n - 1 - Math.floor((n * maxPercent) / 100));
  return { min: h.min + binOfRank(h.counts, rankLo) * width, max: h.min + (binOfRank(h.counts, rankHi) + 1) * width };
}

/**
 * Histogram equalization: for each bin, the share of the values in it or below (the
 * cumulative distribution), which spreads the values evenly over the output range.
 * @example
 * equalizationShares({ min: 0, max: 4, counts: [1, 0, 2, 1] }); // [0.25, 0.25, 0.75, 1]
 */
export function equalizationShares(h: BinnedHistogram): Float64Array {
  const n = h.counts.reduce((a, c) => a + c, 0);
  const shares = new Float64Array(h.counts.length);
  let below = 0;
  h.counts.forEach((c, b) => {
    below += c;
    shares[b] = n > 0 ? below / n : 0;
  });
  return shares;
}

/** The bin holding the value of rank `rank` (0-based, ascending). */
function binOfRank(counts: readonly number[], rank: number): number {
  let before = 0;
  for (let b = 0; b < counts.length; b++) {
    before += counts[b];
    if (before > rank) return b;
  }
  return counts.length - 1;
}
