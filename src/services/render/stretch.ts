/**
 * Stretches: map pixel values to byte indices 0..255 (into a colour ramp) by the ArcGIS Stretch
 * raster function's types, with a validity mask (nodata and NaN are never valid).
 *
 * A stretch first fixes an input range [lo, hi] (from statistics, a histogram, the values
 * themselves, or given), then maps t = (v - lo) / (hi - lo) onto the output range, by default
 * 0..255, in equal-width bins as matplotlib's colormaps do (index = floor(t * 256), clamped),
 * so values outside the range clamp to the end indices. Sigmoid bends t through an S-curve,
 * histogram equalization replaces t by the share of values at or below v, and a gamma bends
 * the result: t' = t^(1/gamma).
 */
import type { TypedArray } from "../../cube/types.js";
import { type Statistics, statisticsAccumulator } from "../../analysis/statistics.js";
import {
  type BinnedHistogram,
  binOf,
  equalizationShares,
  percentClipFromHistogram,
  storedHistogram,
  valuesHistogram,
} from "./stretchHistogram.js";

/**
 * The statistics a stretch needs (the shape of analysis/statistics `Statistics`, count
 * optional); a stored histogram serves percent clip and histogram equalization.
 */
export type StretchStatistics = Pick<Statistics, "min" | "max" | "mean" | "stddev" | "histogram">;

/** Values a stretch reads: any typed array or plain numeric array. */
export type PixelValues = TypedArray | ArrayLike<number>;

interface StretchCommon {
  /** Gamma applied to the stretched fraction: t' = t^(1/gamma), so gamma > 1 lightens mid-tones. */
  readonly gamma?: number;
  /** Output index range (ArcGIS Min/Max, "the output minimum/maximum"), default 0 and 255. */
  readonly outputMin?: number;
  readonly outputMax?: number;
  /** Statistics to use instead of the dataset's (ArcGIS Statistics argument). */
  readonly statistics?: StretchStatistics;
  /** Compute statistics from the values being rendered (ArcGIS DRA, dynamic range adjustment). */
  readonly dra?: boolean;
  /** A histogram to use instead of the dataset's (ArcGIS Histograms argument). */
  readonly histogram?: BinnedHistogram;
}

/**
 * How values become indices. ArcGIS StretchType codes: 0 none, 3 standardDeviation,
 * 4 histogramEqualization, 5 minMax, 6 percentClip, 9 sigmoid.
 */
export type StretchSpec = StretchCommon &
  (
    | { readonly type: "none" }
    | {
        readonly type: "minMax";
        /** Input range; each defaults to the statistics' min/max. */
        readonly min?: number;
        readonly max?: number;
        /** Centre the statistics' range on zero (see `symmetricRange`), for diverging ramps. */
        readonly symmetric?: boolean;
      }
    | { readonly type: "standardDeviation"; readonly numberOfStandardDeviations?: number }
    | { readonly type: "percentClip"; readonly minPercent?: number; readonly maxPercent?: number }
    | { readonly type: "histogramEqualization" }
    | {
        readonly type: "sigmoid";
        /** 1 (the middle of the curve only: dim, soft) to 6 (the whole curve: bright, sharp). */
        readonly sigmoidStrengthLevel?: number;
      }
  );

export interface StretchResult {
  /** Ramp index of each pixel (0 where invalid). */
  readonly indices: Uint8Array;
  /** 1 where the pixel has a value, 0 for nodata and NaN. */
  readonly valid: Uint8Array;
  /** The input range that was mapped onto the output range (undefined for type "none"). */
  readonly range?: { readonly min: number; readonly max: number };
}

/** ArcGIS's default number of standard deviations. */
export const DEFAULT_STANDARD_DEVIATIONS = 2;
/** Percents clipped when a rule names none: the ArcGIS Stretch function's defaults. */
export const DEFAULT_MIN_PERCENT = 0.25;
export const DEFAULT_MAX_PERCENT = 0.5;
/** The ArcGIS Stretch function's default sigmoid strength. */
const DEFAULT_SIGMOID_STRENGTH = 2;

/**
 * Stretch values to ramp indices. `statistics` are the dataset's; they are used unless the spec
 * carries its own or asks for DRA, and computed from the values when neither is available.
 * @example
 * const { indices, valid } = stretchToBytes(new Float32Array([0, 1, 2, NaN]), undefined, { type: "minMax" }, { min: 0, max: 2, mean: 1, stddev: 1 });
 * // indices [0, 128, 255, 0], valid [1, 1, 1, 0]
 */
export function stretchToBytes(
  values: PixelValues,
  nodata: number | undefined,
  spec: StretchSpec,
  statistics?: StretchStatistics,
): StretchResult {
  const n = values.length;
  const indices = new Uint8Array(n);
  const valid = new Uint8Array(n);
  if (spec.type === "none") {
    // No stretch: the value is the index (a U8 raster displays as is), truncated and clamped.
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v !== v || v === nodata) continue;
      valid[i] = 1;
      indices[i] = v <= 0 ? 0 : v >= 255 ? 255 : v;
    }
    return { indices, valid };
  }
  const outMin = spec.outputMin ?? 0;
  const outMax = spec.outputMax ?? 255;
  const bins = outMax - outMin + 1;
  const curve = curveTable(spec, outMin, bins);
  /** The index of a stretched fraction t (clamped to [0, 1]). */
  const indexOf = (t: number): number => {
    if (curve) return curve[t <= 0 ? 0 : t >= 1 ? CURVE_STEPS - 1 : (t * CURVE_STEPS) | 0];
    return t <= 0 ? outMin : t >= 1 ? outMax : outMin + Math.min(bins - 1, (t * bins) | 0);
  };
  if (spec.type === "histogramEqualization") {
    const histogram = stretchHistogram(values, nodata, spec, statistics);
    const bin = binOf(histogram);
    const byBin = Uint8Array.from(equalizationShares(histogram), indexOf);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v !== v || v === nodata) continue;
      valid[i] = 1;
      indices[i] = byBin[bin(v)];
    }
    return { indices, valid, range: { min: histogram.min, max: histogram.max } };
  }
  const range = stretchRange(values, nodata, spec, statistics);
  const { min: lo, max: hi } = range;
  // A degenerate range (constant field, or a symmetric range of all zeros) gets the middle index.
  const middle = outMin + (bins >> 1);
  const scale = hi > lo ? 1 / (hi - lo) : 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== v || v === nodata) continue;
    valid[i] = 1;
    if (scale === 0) {
      indices[i] = v < lo ? outMin : v > hi ? outMax : middle;
      continue;
    }
    // indexOf, inline: this loop runs once per pixel.
    const t = (v - lo) * scale;
    if (curve) indices[i] = curve[t <= 0 ? 0 : t >= 1 ? CURVE_STEPS - 1 : (t * CURVE_STEPS) | 0];
    else if (t <= 0) indices[i] = outMin;
    else if (t >= 1) indices[i] = outMax;
    else indices[i] = outMin + Math.min(bins - 1, (t * bins) | 0);
  }
  return { indices, valid, range };
}

/**
 * The input range [min, max] a stretch maps onto its output range.
 * @example
 * stretchRange(values, -9999, { type: "standardDeviation", numberOfStandardDeviations: 2 }, { min: 0, max: 10, mean: 5, stddev: 1 });
 * // { min: 3, max: 7 }
 */
export function stretchRange(
  values: PixelValues,
  nodata: number | undefined,
  spec: Exclude<StretchSpec, { type: "none" }>,
  statistics?: StretchStatistics,
): { min: number; max: number } {
  if (spec.type === "histogramEqualization") {
    const { min, max } = stretchHistogram(values, nodata, spec, statistics);
    return { min, max };
  }
  if (spec.type === "percentClip") {
    const minPercent = spec.minPercent ?? DEFAULT_MIN_PERCENT;
    const maxPercent = spec.maxPercent ?? DEFAULT_MAX_PERCENT;
    // A histogram at hand (given, or the dataset's) clips to its bins; the drawn pixels exactly.
    const histogram = spec.dra ? undefined : (spec.histogram ?? storedHistogram(statistics));
    return histogram
      ? percentClipFromHistogram(histogram, minPercent, maxPercent)
      : percentClipRange(values, nodata, minPercent, maxPercent);
  }
  if (spec.type === "minMax" && spec.min !== undefined && spec.max !== undefined) return { min: spec.min, max: spec.max };
  // Only now are statistics needed: explicit ones, else the dataset's, else the values' own.
  const stats = (spec.dra ? undefined : (spec.statistics ?? statistics)) ?? computeStatistics(values, nodata);
  if (spec.type === "standardDeviation") {
    // Never beyond the data (as the Maps SDK's stretch cuts off).
    const k = spec.numberOfStandardDeviations ?? DEFAULT_STANDARD_DEVIATIONS;
    return { min: Math.max(stats.min, stats.mean - k * stats.stddev), max: Math.min(stats.max, stats.mean + k * stats.stddev) };
  }
  if (spec.type === "sigmoid") return { min: stats.min, max: stats.max };
  const base = spec.symmetric ? symmetricRange(stats) : { min: stats.min, max: stats.max };
  return { min: spec.min ?? base.min, max: spec.max ?? base.max };
}

/**
 * Whether a stretch needs the drawn pixels before it can colour any of them (DRA, or no
 * statistics or histogram to fix its range in advance), so an image must be read whole.
 * @example
 * stretchNeedsPixels({ type: "percentClip" }, statisticsWithHistogram); // false
 */
export function stretchNeedsPixels(spec: StretchSpec, statistics: StretchStatistics | undefined): boolean {
  if (spec.type === "none") return false;
  if (spec.dra) return true;
  if (spec.type === "minMax" && spec.min !== undefined && spec.max !== undefined) return false;
  if (spec.type === "percentClip" || spec.type === "histogramEqualization") return !(spec.histogram ?? statistics?.histogram);
  return (spec.statistics ?? statistics) === undefined;
}

/** The histogram a histogram equalization uses: given, else the dataset's, else the pixels' (always with DRA). */
function stretchHistogram(
  values: PixelValues,
  nodata: number | undefined,
  spec: StretchSpec,
  statistics?: StretchStatistics,
): BinnedHistogram {
  return (spec.dra ? undefined : (spec.histogram ?? storedHistogram(statistics))) ?? valuesHistogram(values, nodata);
}

/**
 * A range centred on zero that covers the data, for diverging ramps: [-M, M] with
 * M = max(|min|, |max|), so zero falls on the ramp's centre colour.
 * @example
 * symmetricRange({ min: -1, max: 3, mean: 0.5, stddev: 1 }); // { min: -3, max: 3 }
 */
export function symmetricRange(stats: Pick<StretchStatistics, "min" | "max">): { min: number; max: number } {
  const m = Math.max(Math.abs(stats.min), Math.abs(stats.max));
  return { min: -m, max: m };
}

/**
 * The range that excludes the lowest `minPercent` and the highest `maxPercent` percent of the
 * valid values: the values of rank floor(n * minPercent / 100) and n - 1 - floor(n * maxPercent / 100)
 * in ascending order (0..99 clipped 2% / 2% gives [2, 97]). Exact, in O(n): a histogram finds
 * the bin holding each rank, and only that bin's values are sorted.
 * @example
 * percentClipRange(Float64Array.from({ length: 100 }, (_, i) => i), undefined, 2, 2); // { min: 2, max: 97 }
 */
export function percentClipRange(
  values: PixelValues,
  nodata: number | undefined,
  minPercent: number,
  maxPercent: number,
): { min: number; max: number } {
  let n = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v || v === nodata) continue;
    n++;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (n === 0) return { min: 0, max: 0 };
  const rankLo = Math.min(n - 1, Math.floor((n * minPercent) / 100));
  const rankHi = Math.max(rankLo, n - 1 - Math.floor((n * maxPercent) / 100));
  if (hi === lo) return { min: lo, max: hi };
  const BINS = 4096;
  const scale = BINS / (hi - lo);
  const bin = (v: number): number => Math.min(BINS - 1, ((v - lo) * scale) | 0);
  const counts = new Uint32Array(BINS);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v || v === nodata) continue;
    counts[bin(v)]++;
  }
  return { min: rankValue(values, nodata, counts, bin, rankLo), max: rankValue(values, nodata, counts, bin, rankHi) };
}

/** The value of rank `rank` (0-based, ascending): find its bin, sort that bin's values. */
function rankValue(values: PixelValues, nodata: number | undefined, counts: Uint32Array, bin: (v: number) => number, rank: number): number {
  let b = 0;
  let before = 0;
  while (before + counts[b] <= rank) before += counts[b++];
  const members = new Float64Array(counts[b]);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v || v === nodata) continue;
    if (bin(v) === b) members[k++] = v;
  }
  members.sort();
  return members[rank - before];
}

/**
 * Min, max, mean and population standard deviation of the valid values (zeros when there are
 * none, so an all-nodata tile renders transparent without failing).
 * @example
 * computeStatistics(new Float32Array([1, 2, 3]), undefined); // { min: 1, max: 3, mean: 2, stddev: 0.816... }
 */
export function computeStatistics(values: PixelValues, nodata: number | undefined): StretchStatistics {
  const acc = statisticsAccumulator({ histogram: false });
  acc.add(ArrayBuffer.isView(values) ? (values as TypedArray) : Float64Array.from(values), nodata);
  return acc.result() ?? { min: 0, max: 0, mean: 0, stddev: 0 };
}

/** Resolution of the curve table over t in [0, 1]. */
const CURVE_STEPS = 65536;

/**
 * Index for each of CURVE_STEPS fractions when the stretch bends t (sigmoid, gamma): the
 * curve is evaluated once per step, not once per pixel. Undefined for a straight stretch.
 */
function curveTable(spec: StretchSpec, outMin: number, bins: number): Uint8Array | undefined {
  const gamma = spec.gamma !== undefined && spec.gamma !== 1 ? spec.gamma : undefined;
  const sigmoid = spec.type === "sigmoid" ? sigmoidCurve(spec.sigmoidStrengthLevel ?? DEFAULT_SIGMOID_STRENGTH) : undefined;
  if (gamma === undefined && sigmoid === undefined) return undefined;
  const lut = new Uint8Array(CURVE_STEPS);
  for (let s = 0; s < CURVE_STEPS; s++) {
    let t = s / (CURVE_STEPS - 1);
    if (sigmoid) t = sigmoid(t);
    if (gamma !== undefined) t = Math.pow(t, 1 / gamma);
    lut[s] = outMin + Math.min(bins - 1, Math.floor(t * bins));
  }
  return lut;
}

/**
 * The sigmoid stretch: the logistic curve 1 / (1 + e^(−2·level·(t − ½))) over t in [0, 1], so
 * level 1 spans only its middle (outputs 0.27..0.73: dim, soft) and level 6 nearly all of it
 * (0.0025..0.9975: bright, sharp), as ArcGIS describes the strength levels.
 */
function sigmoidCurve(level: number): (t: number) => number {
  const gain = 2 * level;
  return (t) => 1 / (1 + Math.exp(-gain * (t - 0.5)));
}
