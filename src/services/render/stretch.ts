/**
 * Stretches: map pixel values to byte indices 0..255 (into a colour ramp) by the ArcGIS Stretch
 * raster function's types, with a validity mask (nodata and NaN are never valid).
 *
 * A stretch first fixes an input range [lo, hi] (from statistics, the values themselves, or
 * given), then maps it linearly onto the output range, by default 0..255, in equal-width bins
 * as matplotlib's colormaps do (index = floor(t * 256) for t = (v - lo) / (hi - lo), clamped),
 * so values outside the range clamp to the end indices. An optional gamma bends t first.
 */
import type { TypedArray } from "../../cube/types.js";
import { type Statistics, statisticsAccumulator } from "../../analysis/statistics.js";

/** The statistics a stretch needs (the shape of analysis/statistics `Statistics`, count optional). */
export type StretchStatistics = Pick<Statistics, "min" | "max" | "mean" | "stddev">;

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
}

/**
 * How values become indices. ArcGIS StretchType codes: 0 none, 3 standardDeviation, 5 minMax,
 * 6 percentClip.
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
/** Percent clipped at each end when a rule names no percent (ArcGIS clients normally send both). */
export const DEFAULT_CLIP_PERCENT = 0.25;

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
  const range = stretchRange(values, nodata, spec, statistics);
  const outMin = spec.outputMin ?? 0;
  const outMax = spec.outputMax ?? 255;
  const bins = outMax - outMin + 1;
  const { min: lo, max: hi } = range;
  const gammaLut = spec.gamma !== undefined && spec.gamma !== 1 ? gammaTable(spec.gamma, outMin, bins) : undefined;
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
    const t = (v - lo) * scale;
    if (t <= 0) indices[i] = outMin;
    else if (t >= 1) indices[i] = outMax;
    else if (gammaLut) indices[i] = gammaLut[(t * GAMMA_STEPS) | 0];
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
  if (spec.type === "percentClip") {
    return percentClipRange(values, nodata, spec.minPercent ?? DEFAULT_CLIP_PERCENT, spec.maxPercent ?? DEFAULT_CLIP_PERCENT);
  }
  if (spec.type === "minMax" && spec.min !== undefined && spec.max !== undefined) return { min: spec.min, max: spec.max };
  // Only now are statistics needed: explicit ones, else the dataset's, else the values' own.
  const stats = (spec.dra ? undefined : (spec.statistics ?? statistics)) ?? computeStatistics(values, nodata);
  if (spec.type === "standardDeviation") {
    const k = spec.numberOfStandardDeviations ?? DEFAULT_STANDARD_DEVIATIONS;
    return { min: stats.mean - k * stats.stddev, max: stats.mean + k * stats.stddev };
  }
  const base = spec.symmetric ? symmetricRange(stats) : { min: stats.min, max: stats.max };
  return { min: spec.min ?? base.min, max: spec.max ?? base.max };
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

/** Resolution of the gamma table over t in [0, 1). */
const GAMMA_STEPS = 65536;

/** Index for each of GAMMA_STEPS fractions: pow once per step, not once per pixel. */
function gammaTable(gamma: number, outMin: number, bins: number): Uint8Array {
  const lut = new Uint8Array(GAMMA_STEPS);
  const e = 1 / gamma;
  for (let s = 0; s < GAMMA_STEPS; s++) lut[s] = outMin + Math.min(bins - 1, (Math.pow((s + 0.5) / GAMMA_STEPS, e) * bins) | 0);
  return lut;
}
