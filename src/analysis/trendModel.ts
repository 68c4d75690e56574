/**
 * The trend models of GenerateTrendRaster / PredictUsingTrendRaster (docs/tasks.md): their
 * bands, the bases they are fitted on and stored in, and the `strata:trend` metadata a trend
 * raster carries so that prediction never guesses.
 *
 * Fits are computed on centred and scaled x (x' = (x − c)/h, c the mean of the dimension's
 * values, h half their range, or 1) and stored converted back to the documented basis:
 *
 * | model      | fitted on                                   | stored (band order)                                |
 * | ---------- | ------------------------------------------- | -------------------------------------------------- |
 * | LINEAR     | a0 + a1·x'                                  | Slope b1 = a1/h, Intercept b0 = a0 − a1·c/h         |
 * | POLYNOMIAL | Σk ak·x'^k                                  | Polynomial_p .. Polynomial_0, bj = Σ_{k≥j} ak·C(k,j)·(−c)^(k−j)/h^k |
 * | HARMONIC   | a0 + a1·x' + Σi (si·sin(2πix/L) + ci·cos(..)) | Slope, Intercept as LINEAR, then s1, c1, .. sn, cn unchanged |
 *
 * The harmonic terms use x itself (days since 1970-01-01 for StdTime), so their coefficients
 * need no conversion.
 *
 * ```ts
 * bandNames({ type: "POLYNOMIAL", order: 2 }, { rmse: true, r2: false, slopePValue: false });
 * // ["Polynomial_2", "Polynomial_1", "Polynomial_0", "RMSE"]
 * ```
 */
import { STD_TIME } from "../cube/types.js";

export type TrendLineType = "LINEAR" | "HARMONIC" | "POLYNOMIAL" | "MANN-KENDALL" | "SEASONAL-KENDALL";
export const TREND_LINE_TYPES: readonly TrendLineType[] = ["LINEAR", "HARMONIC", "POLYNOMIAL", "MANN-KENDALL", "SEASONAL-KENDALL"];
export type SeasonalPeriod = "DAYS" | "MONTHS";

export interface TrendModel {
  readonly type: TrendLineType;
  /** POLYNOMIAL: the order p ≥ 1. */
  readonly order?: number;
  /** HARMONIC: the number of harmonic pairs n ≥ 1. */
  readonly harmonics?: number;
  /** HARMONIC: the cycle length L in units of x (days for StdTime). */
  readonly cycleLengthDays?: number;
  /** SEASONAL-KENDALL: how slices are grouped into seasons. */
  readonly seasonalPeriod?: SeasonalPeriod;
}

/** The optional statistic bands of the least-squares models. */
export interface TrendStatistics {
  readonly rmse: boolean;
  readonly r2: boolean;
  readonly slopePValue: boolean;
}

export const KENDALL_BANDS: readonly string[] = ["Sens_Slope", "P_Value", "MK_Score", "S_Variance", "Z_Score"];
export const MS_PER_DAY = 86_400_000;
export const X_ENCODING_TIME = "days since 1970-01-01T00:00:00Z";
export const X_ENCODING_VALUE = "value";
/** Variable attribute holding the TrendMetadata. */
export const TREND_ATTRIBUTE = "strata:trend";
/** Name of the band dimension of a trend raster. */
export const BAND_DIMENSION = "Band";

/**
 * The key of one band's statistics in a trend raster's `strata:statistics` (beside the
 * variable's own, over all its bands): Zarr names hold no "/", so the key is unambiguous.
 * @example
 * bandStatisticsKey("sst", "Slope"); // "sst/Slope"
 */
export function bandStatisticsKey(variable: string, band: string): string {
  return `${variable}/${band}`;
}

export function isKendall(model: TrendModel): boolean {
  return model.type === "MANN-KENDALL" || model.type === "SEASONAL-KENDALL";
}

/** Number of fitted coefficients p (0 for the Kendall tests). */
export function coefficientCount(model: TrendModel): number {
  switch (model.type) {
    case "LINEAR":
      return 2;
    case "POLYNOMIAL":
      return model.order! + 1;
    case "HARMONIC":
      return 2 + 2 * model.harmonics!;
    default:
      return 0;
  }
}

/** Names of the coefficient bands, in band order. */
export function coefficientNames(model: TrendModel): string[] {
  switch (model.type) {
    case "LINEAR":
      return ["Slope", "Intercept"];
    case "POLYNOMIAL":
      return Array.from({ length: model.order! + 1 }, (_, i) => `Polynomial_${model.order! - i}`);
    case "HARMONIC": {
      const names = ["Slope", "Intercept"];
      for (let i = 1; i <= model.harmonics!; i++) names.push(`Harmonic_sin${i}`, `Harmonic_cos${i}`);
      return names;
    }
    default:
      return [...KENDALL_BANDS];
  }
}

/** All band names: coefficients, then RMSE, R2, SlopePValue as requested (not for Kendall). */
export function bandNames(model: TrendModel, stats: TrendStatistics): string[] {
  const names = coefficientNames(model);
  if (isKendall(model)) return names;
  if (stats.rmse) names.push("RMSE");
  if (stats.r2) names.push("R2");
  if (stats.slopePValue) names.push("SlopePValue");
  return names;
}

/** x of a dimension value: days since 1970-01-01 for StdTime (epoch ms / 86 400 000), else the value. */
export function encodeX(dimension: string, value: number): number {
  return dimension === STD_TIME ? value / MS_PER_DAY : value;
}

export function xEncoding(dimension: string): string {
  return dimension === STD_TIME ? X_ENCODING_TIME : X_ENCODING_VALUE;
}

/** Centre c (mean) and scale h (half the range, or 1) of the x values. */
export function centreAndScale(x: ArrayLike<number>): { center: number; scale: number } {
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) {
    sum += x[i];
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
  }
  const half = (max - min) / 2;
  return { center: x.length ? sum / x.length : 0, scale: half > 0 && Number.isFinite(half) ? half : 1 };
}

/**
 * Row of the fitting basis at x (x' = (x − center)/scale) into out[at + j·stride], j < p.
 * Column 1 is always the (scaled) slope term of LINEAR and HARMONIC.
 */
export function fitBasis(model: TrendModel, x: number, center: number, scale: number, out: Float64Array, at = 0, stride = 1): void {
  const xs = (x - center) / scale;
  out[at] = 1;
  if (model.type === "POLYNOMIAL") {
    let v = 1;
    for (let k = 1; k <= model.order!; k++) out[at + k * stride] = v *= xs;
    return;
  }
  out[at + stride] = xs;
  if (model.type === "HARMONIC") {
    const w = (2 * Math.PI * x) / model.cycleLengthDays!;
    for (let i = 1; i <= model.harmonics!; i++) {
      out[at + 2 * i * stride] = Math.sin(i * w);
      out[at + (2 * i + 1) * stride] = Math.cos(i * w);
    }
  }
}

/**
 * Coefficients a of the fitting basis converted to the documented basis, in band order,
 * into out[0..p).
 * @example
 * // y = 1 + 2x' with x' = (x − 10)/5, i.e. y = −3 + 0.4x:
 * toDocumentedCoefficients({ type: "LINEAR" }, [1, 2], 10, 5, out); // out = [0.4, -3]
 */
export function toDocumentedCoefficients(model: TrendModel, a: ArrayLike<number>, center: number, scale: number, out: Float64Array): void {
  if (model.type === "POLYNOMIAL") {
    const p = model.order!;
    const b = polynomialToRaw(a, p, center, scale);
    for (let i = 0; i <= p; i++) out[i] = b[p - i];
    return;
  }
  out[0] = a[1] / scale;
  out[1] = a[0] - (a[1] * center) / scale;
  if (model.type === "HARMONIC") for (let j = 2; j < 2 + 2 * model.harmonics!; j++) out[j] = a[j];
}

/**
 * b_j = Σ_{k≥j} a_k·C(k, j)·(−c)^(k−j) / h^k: Σ a_k·((x − c)/h)^k expanded in powers of x
 * (binomial expansion), b in increasing powers.
 */
export function polynomialToRaw(a: ArrayLike<number>, order: number, center: number, scale: number): Float64Array {
  const b = new Float64Array(order + 1);
  let hk = 1; // h^k
  for (let k = 0; k <= order; k++) {
    if (k > 0) hk *= scale;
    let binom = 1; // C(k, j), j from k down
    let pow = 1; // (−c)^(k−j)
    for (let j = k; j >= 0; j--) {
      b[j] += (a[k] * binom * pow) / hk;
      // Next j − 1: C(k, j−1) = C(k, j)·j/(k − j + 1); one more factor −c.
      binom = (binom * j) / (k - j + 1);
      pow *= -center;
    }
  }
  return b;
}

/** The documented basis at x in band order (LINEAR [x, 1], POLYNOMIAL [x^p .. 1], HARMONIC [x, 1, sin1, cos1 ..]). */
export function documentedBasis(model: TrendModel, x: number, out: Float64Array): void {
  if (model.type === "POLYNOMIAL") {
    const p = model.order!;
    let v = 1;
    out[p] = 1;
    for (let k = 1; k <= p; k++) out[p - k] = v *= x;
    return;
  }
  out[0] = x;
  out[1] = 1;
  if (model.type === "HARMONIC") {
    const w = (2 * Math.PI * x) / model.cycleLengthDays!;
    for (let i = 1; i <= model.harmonics!; i++) {
      out[2 * i] = Math.sin(i * w);
      out[2 * i + 1] = Math.cos(i * w);
    }
  }
}

/** Season of a StdTime instant: its UTC month (1..12) or day of year (1..366). */
export function seasonOf(epochMs: number, period: SeasonalPeriod): number {
  const d = new Date(epochMs);
  if (period === "MONTHS") return d.getUTCMonth() + 1;
  const jan1 = new Date(0);
  jan1.setUTCFullYear(d.getUTCFullYear(), 0, 1); // not Date.UTC, which maps years 0..99 to 1900..1999
  return Math.floor((epochMs - jan1.getTime()) / MS_PER_DAY) + 1;
}

/** What `strata:trend` holds (docs/tasks.md, GenerateTrendRaster, Layout). */
export interface TrendMetadata {
  readonly dimension: string;
  readonly model: TrendLineType;
  readonly order?: number;
  readonly harmonics?: number;
  readonly cycleLengthDays?: number;
  readonly seasonalPeriod?: SeasonalPeriod;
  readonly xEncoding: string;
  readonly bands: readonly string[];
  readonly xCenter: number;
  readonly xScale: number;
  /** Position the fitted dimension had among the variable's dimensions (prediction puts it back there). */
  readonly dimensionIndex: number;
  readonly dimensionUnit: string;
  readonly dimensionDescription: string;
  readonly ignoreNoData: boolean;
  /** Unit of the fitted variable (the unit of predictions). */
  readonly variableUnit?: string;
}

export function modelOf(meta: TrendMetadata): TrendModel {
  return {
    type: meta.model,
    ...(meta.order !== undefined ? { order: meta.order } : {}),
    ...(meta.harmonics !== undefined ? { harmonics: meta.harmonics } : {}),
    ...(meta.cycleLengthDays !== undefined ? { cycleLengthDays: meta.cycleLengthDays } : {}),
    ...(meta.seasonalPeriod !== undefined ? { seasonalPeriod: meta.seasonalPeriod } : {}),
  };
}

/**
 * The TrendMetadata of a variable's attributes, or the reason it has none that can be used
 * (no `strata:trend`, a malformed one, bands that do not match the model).
 */
export function readTrendMetadata(attributes: Readonly<Record<string, unknown>>): TrendMetadata | string {
  let raw = attributes[TREND_ATTRIBUTE];
  if (raw === undefined) return `it has no ${TREND_ATTRIBUTE} attribute, so it is not a trend raster made by GenerateTrendRaster`;
  if (typeof raw === "string") {
    try {
      raw = JSON.parse(raw);
    } catch {
      return `its ${TREND_ATTRIBUTE} attribute is not JSON`;
    }
  }
  if (typeof raw !== "object" || raw === null) return `its ${TREND_ATTRIBUTE} attribute is not an object`;
  const m = raw as Record<string, unknown>;
  const model = m.model;
  if (typeof model !== "string" || !TREND_LINE_TYPES.includes(model as TrendLineType))
    return `its ${TREND_ATTRIBUTE}.model is not one of ${TREND_LINE_TYPES.join(", ")}`;
  const num = (k: string) => (typeof m[k] === "number" && Number.isFinite(m[k]) ? (m[k] as number) : undefined);
  const positiveInt = (k: string) => {
    const v = num(k);
    return v !== undefined && Number.isInteger(v) && v >= 1 ? v : undefined;
  };
  if (typeof m.dimension !== "string" || m.dimension === "") return `its ${TREND_ATTRIBUTE}.dimension is missing`;
  const bands = m.bands;
  if (!Array.isArray(bands) || !bands.every((b) => typeof b === "string")) return `its ${TREND_ATTRIBUTE}.bands is not a list of names`;
  const meta: TrendMetadata = {
    dimension: m.dimension,
    model: model as TrendLineType,
    ...(positiveInt("order") !== undefined ? { order: positiveInt("order") } : {}),
    ...(positiveInt("harmonics") !== undefined ? { harmonics: positiveInt("harmonics") } : {}),
    ...(num("cycleLengthDays") !== undefined ? { cycleLengthDays: num("cycleLengthDays") } : {}),
    ...(m.seasonalPeriod === "DAYS" || m.seasonalPeriod === "MONTHS" ? { seasonalPeriod: m.seasonalPeriod } : {}),
    xEncoding: typeof m.xEncoding === "string" ? m.xEncoding : xEncoding(m.dimension),
    bands: bands as string[],
    xCenter: num("xCenter") ?? 0,
    xScale: num("xScale") ?? 1,
    dimensionIndex: num("dimensionIndex") ?? 0,
    dimensionUnit: typeof m.dimensionUnit === "string" ? m.dimensionUnit : m.dimension === STD_TIME ? "ISO8601" : "",
    dimensionDescription: typeof m.dimensionDescription === "string" ? m.dimensionDescription : m.dimension,
    ignoreNoData: m.ignoreNoData !== false,
    ...(typeof m.variableUnit === "string" ? { variableUnit: m.variableUnit } : {}),
  };
  if (meta.model === "POLYNOMIAL" && meta.order === undefined) return `its ${TREND_ATTRIBUTE}.order is missing`;
  if (meta.model === "HARMONIC" && (meta.harmonics === undefined || !(meta.cycleLengthDays! > 0)))
    return `its ${TREND_ATTRIBUTE}.harmonics or cycleLengthDays is missing`;
  if (meta.xEncoding !== xEncoding(meta.dimension)) return `its x encoding "${meta.xEncoding}" is not one Strata knows`;
  const names = coefficientNames(modelOf(meta));
  if (!names.every((n, i) => meta.bands[i] === n)) return `its bands (${meta.bands.join(", ")}) do not start with ${names.join(", ")}`;
  return meta;
}
