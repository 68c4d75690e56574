/**
 * The streamed least-squares trend (LINEAR, POLYNOMIAL, HARMONIC along StdTime): slices are
 * read in runs, in storage order, over bands of rows, never a pixel's whole series at once.
 * - Pass 0 keeps per pixel the count, the extremes, Σy, Xᵀy, Σ(y−K)² around a first valid
 *   value K and, for the slices a pixel lacks, Σφφᵀ (so XᵀX of a pixel = XᵀX of all slices −
 *   that, paid only where values are missing). Shares' sums add up (re-shifted to one K).
 * - Between passes each pixel's normal equations are solved by QR of the p × p XᵀX (the
 *   basis is centred and scaled as in trendFit.ts, so XᵀX stays well conditioned), giving
 *   the coefficients, the mean and [(XᵀX)⁻¹]₁₁; and, when RMSE, R2 or the p-value is asked,
 *   SSE and SST from the sums (onePassResiduals).
 * - Pass 1 reads the input again only for units where a pixel's fit is so close to perfect
 *   (or its series so flat) that the sums cannot give SSE or SST to float32's precision: it
 *   sums the residuals and the deviations from the mean, two-pass as trendFit.ts does, so a
 *   perfect fit is seen as one. Real data never needs it; a synthetic exact line does.
 * - The last step writes the bands of each unit (no input read).
 * Semantics are trendFit.ts's (nodata rules, rank deficiency, edge cases).
 */
import { STD_TIME, type Cube, type PixelType, type TypedArray, type Variable, variableNamed } from "../cube/types.js";
import { type QrFactorization, qrFactor, qrSolve } from "./linalg.js";
import { type ArraySpace, plainArrays } from "../kernels/arena.js";
import { LinearSumsKernel } from "../kernels/linearSums.js";
import { type RunWalk, type StreamShape, type StreamUnit, eachRun } from "./runs.js";
import type { StatisticsAccumulator } from "./statistics.js";
import type { BlockSink } from "./subset.js";
import { leastSquaresBands } from "./trendFit.js";
import { bandNames, centreAndScale, coefficientCount, encodeX, fitBasis, isKendall } from "./trendModel.js";
import type { TrendPlan } from "./trendRaster.js";

export type TrendStreamPlan = TrendPlan & StreamShape;

/** Whether a trend plan can stream: a least-squares model fitted along StdTime. */
export const streamsTrend = (plan: Pick<TrendPlan, "model" | "dimension">): boolean =>
  !isKendall(plan.model) && plan.dimension === STD_TIME;

/** Bytes of pass-0 sums per pixel for a model with p coefficients. */
export const trendSumBytes = (p: number): number => 4 + 1 + 8 * 5 + 8 * p + 8 * ((p * (p + 1)) / 2);

/** Whether pass 1 (residuals) is needed: any statistic asked. */
export const needsResiduals = (plan: Pick<TrendPlan, "statistics">): boolean =>
  plan.statistics.rmse || plan.statistics.r2 || plan.statistics.slopePValue;

function timeAxis(v: Variable): number {
  return v.dimensions.findIndex((d) => d.name === STD_TIME);
}

/** The fitting basis of a variable's slices: φ(t) rows (n × p, row-major), and x's centre and scale. */
function basisOf(v: Variable, plan: TrendPlan) {
  const time = v.dimensions[timeAxis(v)];
  const x = time.values.map((value) => encodeX(STD_TIME, value));
  const { center, scale } = centreAndScale(x);
  const p = coefficientCount(plan.model);
  const phi = new Float64Array(x.length * p);
  for (let i = 0; i < x.length; i++) fitBasis(plan.model, x[i], center, scale, phi, i * p, 1);
  return { phi, p, n: x.length, center, scale };
}

/** Pass-0 sums of one unit's pixels. */
export class TrendSums {
  readonly count: Uint32Array;
  readonly bad: Uint8Array;
  readonly ymin: Float64Array;
  readonly ymax: Float64Array;
  readonly sumY: Float64Array;
  /** K per pixel: its first valid value (NaN until one comes), so Σ(y−K)² does not cancel. */
  readonly shift: Float64Array;
  /** Σ(y−K)² per pixel. */
  readonly syy: Float64Array;
  /** Xᵀy per pixel, [pixel][p]. */
  readonly xty: Float64Array;
  /** Σφφᵀ over the slices a pixel lacks, upper triangle, [pixel][q]. */
  readonly missing: Float64Array;

  /** LINEAR's sums as a WebAssembly kernel (whose memory holds the arrays above), when sized for runs. */
  private readonly kernel?: LinearSumsKernel;

  /**
   * Sums of `pixels` pixels for a model of p coefficients; `runs` sizes them for addRun (the
   * values of the longest run and their type): without it they can only be merged into.
   */
  constructor(
    readonly pixels: number,
    readonly p: number,
    runs?: { readonly values: number; readonly pixelType: PixelType },
  ) {
    const layout = (space: ArraySpace) => ({
      count: space.allocate(Uint32Array, pixels),
      bad: space.allocate(Uint8Array, pixels),
      ymin: space.allocate(Float64Array, pixels).fill(Infinity),
      ymax: space.allocate(Float64Array, pixels).fill(-Infinity),
      sumY: space.allocate(Float64Array, pixels),
      shift: space.allocate(Float64Array, pixels).fill(Number.NaN),
      syy: space.allocate(Float64Array, pixels),
      xty: space.allocate(Float64Array, pixels * p),
      missing: space.allocate(Float64Array, (pixels * p * (p + 1)) / 2),
    });
    if (p === 2 && runs) this.kernel = new LinearSumsKernel(layout, runs.values, runs.pixelType);
    const sums = this.kernel?.sums ?? layout(plainArrays);
    ({ count: this.count, bad: this.bad, ymin: this.ymin, ymax: this.ymax, sumY: this.sumY } = sums);
    ({ shift: this.shift, syy: this.syy, xty: this.xty, missing: this.missing } = sums);
  }

  /** Add `slices` slices (slice-major, `pixels` each) whose basis rows are phi[0 .. slices·p). */
  addRun(values: TypedArray, slices: number, phi: Float64Array, nodata: number): void {
    if (this.kernel) return this.kernel.addRun(values, slices, phi, nodata);
    for (let k = 0; k < slices; k++) this.addBasis(values, k * this.pixels, phi.subarray(k * this.p, (k + 1) * this.p), nodata);
  }

  /** An array to read a run into where addRun sums it without a copy (LINEAR on float input). */
  runArray(length: number): TypedArray | undefined {
    return this.kernel?.runArray(length);
  }

  /** One slice with basis row φ (p values): values[offset .. offset + pixels). */
  private addBasis(values: TypedArray, offset: number, phi: Float64Array, nodata: number): void {
    const { p, count, bad, ymin, ymax, sumY, shift, syy, xty, missing } = this;
    const q = (p * (p + 1)) / 2;
    for (let i = 0; i < this.pixels; i++) {
      const y = values[offset + i];
      if (y !== y || y === nodata) {
        bad[i] = 1;
        for (let j = 0, k = i * q; j < p; j++) for (let l = j; l < p; l++) missing[k++] += phi[j] * phi[l];
        continue;
      }
      let k = shift[i];
      if (k !== k) k = shift[i] = y;
      const d = y - k;
      count[i]++;
      sumY[i] += y;
      syy[i] += d * d;
      if (y < ymin[i]) ymin[i] = y;
      if (y > ymax[i]) ymax[i] = y;
      for (let j = 0, o = i * p; j < p; j++) xty[o + j] += phi[j] * y;
    }
  }

  merge(other: TrendSums): void {
    for (let i = 0; i < this.pixels; i++) {
      const m = other.count[i];
      this.bad[i] |= other.bad[i];
      if (m > 0) {
        // Σ(y−K)² = Σ(y−K')² + 2(K'−K)·Σ(y−K') + m(K'−K)², with Σ(y−K') = Σy − mK'.
        const k = this.shift[i];
        const k2 = other.shift[i];
        if (k !== k) {
          this.shift[i] = k2;
          this.syy[i] = other.syy[i];
        } else {
          const delta = k2 - k;
          this.syy[i] += other.syy[i] + 2 * delta * (other.sumY[i] - m * k2) + m * delta * delta;
        }
      }
      this.count[i] += m;
      this.sumY[i] += other.sumY[i];
      if (other.ymin[i] < this.ymin[i]) this.ymin[i] = other.ymin[i];
      if (other.ymax[i] > this.ymax[i]) this.ymax[i] = other.ymax[i];
    }
    for (let k = 0; k < this.xty.length; k++) this.xty[k] += other.xty[k];
    for (let k = 0; k < this.missing.length; k++) this.missing[k] += other.missing[k];
  }

  /** The state as typed arrays, to hand a share's sums to whoever merges them (see GroupMoments.views). */
  views(): (Float64Array | Uint32Array | Uint8Array)[] {
    return [this.count, this.bad, this.ymin, this.ymax, this.sumY, this.shift, this.syy, this.xty, this.missing];
  }
}

/**
 * Each pixel's solution from merged sums, as [pixel][p + 5]: the coefficients, then the
 * mean, the count, ymin, ymax and [(XᵀX)⁻¹]₁₁; NaN coefficients where the pixel is nodata.
 */
export function solveUnit(cube: Cube, plan: TrendPlan, unit: StreamUnit, sums: TrendSums): Float64Array {
  const v = variableNamed(cube, unit.variable);
  const { phi, p, n } = basisOf(v, plan);
  const q = (p * (p + 1)) / 2;
  // XᵀX of every slice, upper triangle.
  const full = new Float64Array(q);
  for (let t = 0; t < n; t++) for (let j = 0, k = 0; j < p; j++) for (let l = j; l < p; l++) full[k++] += phi[t * p + j] * phi[t * p + l];
  const stride = p + 5;
  const out = new Float64Array(sums.pixels * stride).fill(NaN);
  const gram = new Float64Array(p * p);
  const rhs = new Float64Array(p);
  const a = new Float64Array(p);
  const unitVector = new Float64Array(p);
  const z = new Float64Array(p);
  let fullQr: QrFactorization | undefined;
  for (let i = 0; i < sums.pixels; i++) {
    const m = sums.count[i];
    const o = i * stride;
    out[o + p] = m > 0 ? sums.sumY[i] / m : Number.NaN;
    out[o + p + 1] = m;
    out[o + p + 2] = sums.ymin[i];
    out[o + p + 3] = sums.ymax[i];
    if (m <= p || (sums.bad[i] && !plan.ignoreNoData)) continue;
    let qr: QrFactorization;
    if (m === n) qr = fullQr ??= factorGram(full, undefined, 0, p, gram);
    else qr = factorGram(full, sums.missing, i * q, p, gram);
    if (!qr.fullRank) continue;
    for (let j = 0; j < p; j++) rhs[j] = sums.xty[i * p + j];
    qrSolve(qr, rhs.slice(), a);
    for (let j = 0; j < p; j++) out[o + j] = a[j];
    if (plan.statistics.slopePValue) {
      unitVector.fill(0);
      unitVector[1] = 1;
      qrSolve(qr, unitVector.slice(), z);
      out[o + p + 4] = z[1];
    }
  }
  return out;
}

/**
 * SSE and SST below this share of Σ(y−K)² are not taken from the sums: cancellation leaves
 * them an absolute error of a few ε·Σ(y−K)² (times XᵀX's small condition number), which
 * stays under 1e-9 of them above it, far within float32's 6e-8.
 */
const ONE_PASS_MARGIN = 1e-6;

/**
 * SSE and SST of each pixel from its sums, [SSE][SST] per pixel like residualUnit's, with
 * y' = y − K: SSE = Σy'² − a'ᵀXᵀy' (a' is a with the intercept less K, Xᵀy' = Xᵀy − K·Σφ
 * over the valid slices, φ₀ being 1) and SST = Σy'² − (Σy')²/m. `exact` is false when a
 * pixel's fit is too close to perfect (or its series too flat) for that: the unit then
 * needs the residual pass. A constant series has SSE = SST = 0 exactly.
 * @example
 * const { residuals, exact } = onePassResiduals(cube, plan, unit, sums, solveUnit(cube, plan, unit, sums));
 */
export function onePassResiduals(
  cube: Cube,
  plan: TrendPlan,
  unit: StreamUnit,
  sums: TrendSums,
  solution: Float64Array,
): { residuals: Float64Array; exact: boolean } {
  const v = variableNamed(cube, unit.variable);
  const { phi, p, n } = basisOf(v, plan);
  const q = (p * (p + 1)) / 2;
  // Σφ over every slice (row 0 of XᵀX, φ₀ being 1); a pixel's valid slices' is this less row 0 of its missing Σφφᵀ.
  const all = new Float64Array(p);
  for (let t = 0; t < n; t++) for (let l = 0; l < p; l++) all[l] += phi[t * p + l];
  const P = sums.pixels;
  const stride = p + 5;
  const residuals = new Float64Array(2 * P).fill(Number.NaN);
  let exact = true;
  for (let i = 0; i < P; i++) {
    const o = i * stride;
    if (solution[o] !== solution[o]) continue; // nodata: no band is written
    const m = sums.count[i];
    if (sums.ymin[i] === sums.ymax[i]) {
      residuals[i] = 0;
      residuals[P + i] = 0;
      continue;
    }
    const k = sums.shift[i];
    const syy = sums.syy[i];
    const sy = sums.sumY[i] - m * k;
    let explained = 0;
    for (let l = 0; l < p; l++) {
      const xty = sums.xty[i * p + l] - k * (all[l] - sums.missing[i * q + l]);
      explained += (l === 0 ? solution[o] - k : solution[o + l]) * xty;
    }
    const sse = syy - explained;
    const sst = syy - (sy * sy) / m;
    if (!(sse >= ONE_PASS_MARGIN * syy && sst >= ONE_PASS_MARGIN * syy)) exact = false;
    residuals[i] = sse;
    residuals[P + i] = sst;
  }
  return { residuals, exact };
}

/** QR of the symmetric XᵀX (full − missing), filled from its upper triangle. */
function factorGram(full: Float64Array, missing: Float64Array | undefined, at: number, p: number, gram: Float64Array): QrFactorization {
  for (let j = 0, k = 0; j < p; j++) {
    for (let l = j; l < p; l++, k++) {
      const g = full[k] - (missing ? missing[at + k] : 0);
      gram[j + l * p] = g;
      gram[l + j * p] = g;
    }
  }
  return qrFactor(gram.slice(), p, p);
}

export type TrendStreamWalk = RunWalk;

/** Pass 0 of a unit: this share's sums of its runs. */
export async function sumUnit(cube: Cube, plan: TrendStreamPlan, unit: StreamUnit, walk: TrendStreamWalk = {}): Promise<TrendSums> {
  const v = variableNamed(cube, unit.variable);
  const { phi, p } = basisOf(v, plan);
  const P = unit.band.width * unit.band.height;
  const runs = plan.runs[v.name];
  const sums = new TrendSums(P, p, { values: P * Math.max(...runs.map(([a, b]) => b - a)), pixelType: v.pixelType });
  const nodata = v.nodata ?? NaN;
  await eachRun(v, runs, unit.dims, unit.band, { ...walk, arrays: (length) => sums.runArray(length) }, async (t0, values) => {
    sums.addRun(values, values.length / P, phi.subarray(t0 * p), nodata);
  });
  return sums;
}

/** Pass 1 of a unit: this share's sums of squared residuals and deviations, [SSE][SST] per pixel. */
export async function residualUnit(
  cube: Cube,
  plan: TrendStreamPlan,
  unit: StreamUnit,
  solution: Float64Array,
  walk: TrendStreamWalk = {},
): Promise<Float64Array> {
  const v = variableNamed(cube, unit.variable);
  const { phi, p } = basisOf(v, plan);
  const P = unit.band.width * unit.band.height;
  const stride = p + 5;
  const out = new Float64Array(2 * P);
  const nodata = v.nodata ?? NaN;
  await eachRun(v, plan.runs[v.name], unit.dims, unit.band, walk, async (t0, values) => {
    for (let k = 0; k * P < values.length; k++) {
      const row = phi.subarray((t0 + k) * p, (t0 + k + 1) * p);
      for (let i = 0; i < P; i++) {
        const y = values[k * P + i];
        const o = i * stride;
        if (y !== y || y === nodata || solution[o] !== solution[o]) continue;
        let fit = 0;
        for (let j = 0; j < p; j++) fit += row[j] * solution[o + j];
        const r = y - fit;
        const d = y - solution[o + p];
        out[i] += r * r;
        out[P + i] += d * d;
      }
    }
  });
  return out;
}

/**
 * The bands of a unit from its solution and residual sums (undefined when no statistic
 * was asked), written to `sink` as one block [1, …, bands, rows, cols]; their values are
 * added to each band's statistics (`bandStatistics`, in band order).
 */
export async function writeUnit(
  cube: Cube,
  plan: TrendPlan,
  unit: StreamUnit,
  solution: Float64Array,
  residuals: Float64Array | undefined,
  sink: BlockSink,
  bandStatistics: readonly StatisticsAccumulator[],
): Promise<void> {
  const v = variableNamed(cube, unit.variable);
  const { p, center, scale } = basisOf(v, plan);
  const names = bandNames(plan.model, plan.statistics);
  const P = unit.band.width * unit.band.height;
  const stride = p + 5;
  const out = new Float64Array(names.length * P).fill(NaN);
  const coef = new Float64Array(p);
  const fit = { model: plan.model, statistics: plan.statistics, center, scale };
  for (let i = 0; i < P; i++) {
    const o = i * stride;
    if (solution[o] !== solution[o]) continue;
    const sums = {
      a: solution.subarray(o, o + p),
      sse: residuals ? residuals[i] : NaN,
      sst: residuals ? residuals[P + i] : NaN,
      m: solution[o + p + 1],
      ymin: solution[o + p + 2],
      ymax: solution[o + p + 3],
      slopeVariance: solution[o + p + 4],
    };
    leastSquaresBands(fit, sums, coef, out, i, P);
  }
  bandStatistics.forEach((b, i) => b.add(out.subarray(i * P, (i + 1) * P), undefined));
  // The output's dimensions are the input's others, then Band.
  const outAt = unit.dims.filter((_, d) => d !== timeAxis(v)).map(([a]) => a);
  await sink.writeBlock(v.name, [...outAt, 0, unit.row, unit.column], {
    data: out,
    shape: [...outAt.map(() => 1), names.length, unit.band.height, unit.band.width],
  });
}
