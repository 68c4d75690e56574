/**
 * Per-pixel trend fits over a tile that holds the whole fitted dimension: least squares
 * (LINEAR, POLYNOMIAL, HARMONIC) with RMSE, R2 and the slope's p-value, or the Mann-Kendall /
 * Seasonal-Kendall tests with Sen's slope. Semantics: docs/tasks.md, GenerateTrendRaster.
 *
 * Numerics. Each pixel's least-squares problem is solved by Householder QR (linalg.ts) in
 * float64 on the centred and scaled basis (trendModel.ts), then converted to the documented
 * basis. The design matrix depends only on which slices are valid, so:
 * - the all-valid case is factored once, and its solution map R⁻¹Qᵀ (p × n) turns the complete
 *   pixels of a tile into two vectorised sweeps over the slice-major slab (coefficients,
 *   sums and extremes; then residual and total sums of squares), no per-pixel gather;
 * - pixels with gaps are gathered and solved one by one, the last pattern of gaps cached
 *   (whole missing slices repeat it over the map), so only pixels with their own pattern pay
 *   for a factorization.
 * SSE is summed from the residuals (two passes, no cancellation), SST around the mean.
 * Rank-deficient problems (e.g. a harmonic whose sine column vanishes because the cycle
 * divides the sampling step) are nodata.
 *
 * Edge cases, decided here:
 * - R2 is nodata when SST = 0, i.e. when the valid values are all equal.
 * - SlopePValue is 0 for a perfect non-constant fit (RMSE ≤ 1e-12·max|y|), nodata for a
 *   constant series (0/0), otherwise 2·P(T ≥ |t|) with n − p degrees of freedom.
 * - Seasonal-Kendall with no season holding two valid values is nodata (nothing to compare).
 *
 * ```ts
 * const fitter = createTileFitter({ model: { type: "LINEAR" }, statistics, ignoreNoData: true, x, times });
 * const out = new Float64Array(fitter.bands * pixels);
 * fitter.fitTile(slab.data, pixels, variable.nodata, out);
 * ```
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { SeriesGather, type SweepMaps } from "../kernels/seriesGather.js";
import { type KendallResult, kendallScratch, mannKendall, MIN_KENDALL_VALUES, seasonalKendall } from "./kendall.js";
import { type QrFactorization, inverseGramDiagonal, qrFactor, qrSolve } from "./linalg.js";
import { tTwoSidedP } from "./statDistributions.js";
import {
  type TrendModel,
  type TrendStatistics,
  bandNames,
  centreAndScale,
  coefficientCount,
  fitBasis,
  isKendall,
  seasonOf,
  toDocumentedCoefficients,
} from "./trendModel.js";

export interface FitSetup {
  readonly model: TrendModel;
  readonly statistics: TrendStatistics;
  /** false: a pixel with any nodata slice is nodata. */
  readonly ignoreNoData: boolean;
  /** x of each slice, in storage order (encoded: days since 1970 for StdTime). */
  readonly x: ArrayLike<number>;
  /** StdTime of each slice (epoch ms), needed by SEASONAL-KENDALL. */
  readonly times?: ArrayLike<number>;
}

export interface TileFitter {
  readonly bands: number;
  readonly bandNames: readonly string[];
  readonly center: number;
  readonly scale: number;
  /**
   * Fit every pixel: `data` holds the slices one after the other (slice-major, `pixels`
   * values each, in storage order); `out` receives the bands one after the other
   * (band-major, `pixels` values each), NaN for nodata. `onPixels` hears how many pixels are
   * done after each block (a Kendall test of a long series takes long per tile).
   */
  fitTile(data: TypedArray, pixels: number, nodata: number | undefined, out: Float64Array, onPixels?: (done: number) => void): void;
  /**
   * An array to read a tile's slab of `length` values into, where fitTile takes it without a
   * copy (undefined: any array); chunks of `chunkBytes` are decoded into it.
   */
  slabArray(length: number, pixelType: PixelType, chunkBytes?: number): TypedArray | undefined;
}

/** Pixels gathered together from the slice-major slab. */
const BLOCK = 64;

/** Relative RMSE under which a least-squares fit counts as perfect (for SlopePValue). */
export const PERFECT_FIT_TOLERANCE = 1e-12;

/**
 * @example
 * const f = createTileFitter({ model: { type: "LINEAR" }, statistics: { rmse: true, r2: false, slopePValue: false }, ignoreNoData: true, x: [0, 1, 2] });
 */
export function createTileFitter(setup: FitSetup): TileFitter {
  const n = setup.x.length;
  // Slices in order of x (stable): the Kendall tests need it, least squares does not mind.
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => setup.x[a] - setup.x[b] || a - b);
  const xs = Float64Array.from(order, (i) => setup.x[i]);
  const { center, scale } = centreAndScale(xs);
  const names = bandNames(setup.model, setup.statistics);
  const lsq = isKendall(setup.model) ? undefined : leastSquares(setup, xs, center, scale);
  const fit = lsq ? lsq.pixel : kendallPixel(setup, order, xs);
  const result = new Float64Array(names.length);
  const gather = new SeriesGather(order, BLOCK, lsq?.sweeps);
  return {
    bands: names.length,
    bandNames: names,
    center,
    scale,
    slabArray: (length, pixelType, chunkBytes) => gather.slabArray(length, pixelType, chunkBytes),
    fitTile(data, pixels, nodata, out, onPixels) {
      const nd = nodata === undefined ? NaN : nodata;
      gather.take(data);
      // Complete pixels of a least-squares fit in two sweeps of the whole slab; the others one by one.
      const done = lsq?.completePixels(gather, pixels, nd, out);
      // Pixels go in blocks: each slice's values of a block are copied in one contiguous run
      // (the slab is slice-major), then each pixel reads its series from the small block
      // instead of striding through the whole slab (a WebAssembly kernel: kernels/seriesGather.ts).
      for (let p0 = 0; p0 < pixels; p0 += BLOCK) {
        const count = Math.min(BLOCK, pixels - p0);
        if (done && done.subarray(p0, p0 + count).every((d) => d === 1)) continue;
        gather.block(pixels, p0, count);
        for (let j = 0; j < count; j++) {
          const p = p0 + j;
          if (done && done[p]) continue;
          const m = gather.pixel(j, nd);
          const good = (setup.ignoreNoData || m === n) && fit(gather.series, gather.valid, m, result);
          for (let b = 0; b < names.length; b++) out[b * pixels + p] = good ? result[b] : Number.NaN;
        }
        onPixels?.(p0 + count);
      }
    },
  };
}

/** What a least-squares fit of one pixel comes to, on the centred and scaled basis. */
export interface PixelFitSums {
  /** Coefficients on the fitting basis. */
  readonly a: ArrayLike<number>;
  readonly sse: number;
  readonly sst: number;
  readonly ymin: number;
  readonly ymax: number;
  /** Valid values fitted. */
  readonly m: number;
  /** [(XᵀX)⁻¹]₁₁ on the fitting basis (NaN when the p-value is not wanted). */
  readonly slopeVariance: number;
}

/**
 * The bands of a solved pixel into out[0..bands): coefficients in the documented basis, then
 * RMSE, R2 and the slope's p-value as asked (the edge cases of the file's header).
 * @example
 * leastSquaresBands({ model, statistics, center, scale }, { a, sse, sst, ymin, ymax, m, slopeVariance }, scratch, out);
 */
export function leastSquaresBands(
  fit: { readonly model: TrendModel; readonly statistics: TrendStatistics; readonly center: number; readonly scale: number },
  sums: PixelFitSums,
  coef: Float64Array,
  out: Float64Array | number[],
  at = 0,
  stride = 1,
): void {
  const { model, statistics } = fit;
  const { a, sse, sst, ymin, ymax, m, slopeVariance } = sums;
  const p = coefficientCount(model);
  toDocumentedCoefficients(model, a, fit.center, fit.scale, coef);
  let b = 0;
  for (; b < p; b++) out[at + b * stride] = coef[b];
  const constant = ymin === ymax;
  if (statistics.rmse) out[at + b++ * stride] = Math.sqrt(sse / m);
  if (statistics.r2) out[at + b++ * stride] = constant || !(sst > 0) ? NaN : 1 - sse / sst;
  if (statistics.slopePValue) {
    const df = m - p;
    const perfect = Math.sqrt(sse / m) <= PERFECT_FIT_TOLERANCE * Math.max(Math.abs(ymin), Math.abs(ymax));
    out[at + b * stride] = constant ? NaN : perfect ? 0 : tTwoSidedP(a[1] / Math.sqrt((sse / df) * slopeVariance), df);
  }
}

/** Fits one pixel: y and valid in x order, m valid; writes the bands to out; false = nodata. */
type PixelFit = (y: Float64Array, valid: Uint8Array, m: number, out: Float64Array) => boolean;

interface LeastSquares {
  readonly pixel: PixelFit;
  /** What completePixels' sweeps need (undefined: no shared factorization, so no sweeps). */
  readonly sweeps: SweepMaps | undefined;
  /**
   * Fit the pixels of the tile `gather` took whose every slice is valid, writing their bands
   * to `out`; returns a flag per pixel (1 = done), or undefined without sweeps.
   */
  completePixels(gather: SeriesGather, pixels: number, nodata: number, out: Float64Array): Uint8Array | undefined;
}

function leastSquares(setup: FitSetup, xs: Float64Array, center: number, scale: number): LeastSquares {
  const { model, statistics } = setup;
  const n = xs.length;
  const p = coefficientCount(model);
  // The basis for every slice, column-major n × p.
  const basis = new Float64Array(n * p);
  for (let i = 0; i < n; i++) fitBasis(model, xs[i], center, scale, basis, i, n);

  interface Factored {
    readonly qr: QrFactorization;
    /** [(XᵀX)⁻¹]₁₁ on the fitting basis (the slope term), when wanted. */
    readonly slopeVariance: number;
  }
  const factor = (rows: Int32Array, m: number): Factored => {
    const a = new Float64Array(m * p);
    for (let j = 0; j < p; j++) for (let i = 0; i < m; i++) a[i + j * m] = basis[rows[i] + j * n];
    const qr = qrFactor(a, m, p);
    const slopeVariance = statistics.slopePValue && qr.fullRank ? inverseGramDiagonal(qr, 1) : NaN;
    return { qr, slopeVariance };
  };
  const rows = new Int32Array(n);
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const full = n > p ? factor(all, n) : undefined;
  let lastMask = new Uint8Array(0);
  let last: Factored | undefined;

  const work = new Float64Array(n);
  const resid = new Float64Array(n);
  const a = new Float64Array(p);
  const coef = new Float64Array(p);
  // Complete pixels: the coefficients are a fixed linear map of y, R⁻¹Qᵀ (p × n), computed
  // once from the factorization (column i = the solution for the unit vector e_i), so each
  // such pixel costs one pass of n·p multiply-adds instead of applying p reflections.
  const projection = full?.qr.fullRank && n * n * p <= 5e7 ? solutionMap(full.qr, n, p) : undefined;

  const pixel: PixelFit = (y, valid, m, out) => {
    if (m <= p) return false;
    let f: Factored;
    if (m === n) f = full!;
    else {
      if (!last || !sameMask(lastMask, valid)) {
        let r = 0;
        for (let i = 0; i < n; i++) if (valid[i]) rows[r++] = i;
        last = factor(rows, m);
        lastMask = valid.slice();
      }
      f = last;
    }
    if (!f.qr.fullRank) return false;

    let ymin = Infinity;
    let ymax = -Infinity;
    let sum = 0;
    if (m === n && projection) {
      for (let i = 0; i < n; i++) {
        const v = y[i];
        sum += v;
        if (v < ymin) ymin = v;
        if (v > ymax) ymax = v;
      }
      for (let j = 0; j < p; j++) {
        let s = 0;
        for (let i = 0, at = j * n; i < n; i++) s += projection[at + i] * y[i];
        a[j] = s;
      }
    } else {
      let r = 0;
      for (let i = 0; i < n; i++) {
        if (!valid[i]) continue;
        const v = y[i];
        work[r++] = v;
        sum += v;
        if (v < ymin) ymin = v;
        if (v > ymax) ymax = v;
      }
      qrSolve(f.qr, work, a);
    }

    const mean = sum / m;
    // Residuals column by column (contiguous, accumulators in registers).
    resid.set(y);
    for (let j = 0; j < p; j++) {
      const aj = a[j];
      for (let i = 0, at = j * n; i < n; i++) resid[i] -= basis[at + i] * aj;
    }
    let sse = 0;
    let sst = 0;
    for (let i = 0; i < n; i++) {
      if (!valid[i]) continue;
      sse += resid[i] * resid[i];
      sst += (y[i] - mean) * (y[i] - mean);
    }

    finish(a, sse, sst, ymin, ymax, m, f.slopeVariance, out);
    return true;
  };

  const finish = (
    a: Float64Array,
    sse: number,
    sst: number,
    ymin: number,
    ymax: number,
    m: number,
    slopeVariance: number,
    out: Float64Array,
  ) => leastSquaresBands({ model, statistics, center, scale }, { a, sse, sst, ymin, ymax, m, slopeVariance }, coef, out);

  let done = new Uint8Array(0);
  const bandsOut = new Float64Array(p + 3);

  // Counts of valid values, sums, extremes and the coefficients R⁻¹Qᵀy of every pixel, then
  // the residual and total sums of squares, slice by slice over the whole slab (the kernel's
  // sweeps); pixels with gaps get garbage there and are left to the per-pixel path.
  const completePixels = (gather: SeriesGather, pixels: number, nd: number, out: Float64Array): Uint8Array | undefined => {
    if (!projection || !full) return undefined;
    if (done.length !== pixels) done = new Uint8Array(pixels);
    const sums = gather.sweep(pixels, nd);
    const nb = out.length / pixels;
    for (let q = 0; q < pixels; q++) {
      done[q] = sums.count[q] === n ? 1 : 0;
      if (!done[q]) continue;
      for (let j = 0; j < p; j++) a[j] = sums.coefficients[j * pixels + q];
      finish(a, sums.sse[q], sums.sst[q], sums.min[q], sums.max[q], n, full.slopeVariance, bandsOut);
      for (let b = 0; b < nb; b++) out[b * pixels + q] = bandsOut[b];
    }
    return done;
  };

  return { pixel, sweeps: projection ? { p, map: projection, basis } : undefined, completePixels };
}

/** R⁻¹Qᵀ of a full-rank factorization, row-major p × n. */
function solutionMap(qr: QrFactorization, n: number, p: number): Float64Array {
  const map = new Float64Array(p * n);
  const e = new Float64Array(n);
  const column = new Float64Array(p);
  for (let i = 0; i < n; i++) {
    e.fill(0);
    e[i] = 1;
    qrSolve(qr, e, column);
    for (let j = 0; j < p; j++) map[j * n + i] = column[j];
  }
  return map;
}

function sameMask(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function kendallPixel(setup: FitSetup, order: Int32Array, xs: Float64Array): PixelFit {
  const n = xs.length;
  const scratch = kendallScratch(n);
  const vx = new Float64Array(n);
  const vy = new Float64Array(n);
  const write = (k: KendallResult | undefined, out: Float64Array): boolean => {
    if (!k) return false;
    out[0] = k.sensSlope;
    out[1] = k.pValue;
    out[2] = k.score;
    out[3] = k.variance;
    out[4] = k.z;
    return true;
  };

  if (setup.model.type === "MANN-KENDALL") {
    return (y, valid, m, out) => {
      if (m < MIN_KENDALL_VALUES) return false;
      if (m === n) return write(mannKendall(xs, y, n, scratch), out); // every value valid: nothing to compact
      let r = 0;
      for (let i = 0; i < n; i++) {
        if (!valid[i]) continue;
        vx[r] = xs[i];
        vy[r++] = y[i];
      }
      return write(mannKendall(vx, vy, r, scratch), out);
    };
  }

  // Seasonal-Kendall: positions (in x order) grouped by season, x order kept within each.
  const period = setup.model.seasonalPeriod ?? "DAYS";
  const times = setup.times!;
  const season = Int32Array.from(order, (i) => seasonOf(times[i], period));
  const bySeason = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => season[a] - season[b] || a - b);
  const seasons = new Set(season).size;
  const starts = new Int32Array(seasons + 1);
  return (y, valid, m, out) => {
    if (m < MIN_KENDALL_VALUES) return false;
    let r = 0;
    let g = 0;
    let current = NaN;
    for (let k = 0; k < n; k++) {
      const i = bySeason[k];
      if (season[i] !== current) {
        if (k > 0)
          starts[++g] = r; // close the previous season (empty ones too)
        else starts[0] = 0;
        current = season[i];
      }
      if (!valid[i]) continue;
      vx[r] = xs[i];
      vy[r++] = y[i];
    }
    starts[g + 1] = r;
    return write(seasonalKendall(vx, vy, starts, seasons, scratch), out);
  };
}
