/**
 * Mann-Kendall and Seasonal-Kendall trend tests with Sen's slope (docs/tasks.md,
 * GenerateTrendRaster):
 *
 * - S = Σ_{i<j} sign(y_j − y_i), values in order of x;
 * - Var(S) = [n(n−1)(2n+5) − Σ_t t(t−1)(2t+5)] / 18 over the groups of tied values;
 * - Z = (S − 1)/√Var for S > 0, (S + 1)/√Var for S < 0, 0 for S = 0 (and when Var = 0);
 * - P = 2·(1 − Φ(|Z|)), computed as erfc(|Z|/√2);
 * - Sen's slope = median over i < j of (y_j − y_i)/(x_j − x_i), per unit of x (pairs with
 *   equal x are left out).
 * Seasonal-Kendall sums S and Var(S) over seasons and takes the median of all within-season
 * pair slopes.
 *
 * ```ts
 * const k = mannKendall(Float64Array.of(1, 2, 3, 4), Float64Array.of(1, 3, 2, 5), 4, kendallScratch(4));
 * // { score: 4, variance: 8.666..., z: 1.019, pValue: 0.308, sensSlope: 1.1666... }
 * ```
 */
import { normalTwoSidedP } from "./statDistributions.js";

export interface KendallResult {
  /** Sen's slope, per unit of x. */
  readonly sensSlope: number;
  readonly pValue: number;
  /** S. */
  readonly score: number;
  /** Var(S) with the tie correction. */
  readonly variance: number;
  readonly z: number;
}

/** Reusable work buffers for series of up to n values. */
export interface KendallScratch {
  readonly sorted: Float64Array;
  readonly slopes: Float64Array;
}

/** Fewest valid values a Mann-Kendall test is computed from. */
export const MIN_KENDALL_VALUES = 4;

export function kendallScratch(n: number): KendallScratch {
  return { sorted: new Float64Array(n), slopes: new Float64Array(Math.max(1, (n * (n - 1)) / 2)) };
}

/** S over y[from..to), in that order. */
export function kendallScore(y: ArrayLike<number>, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to - 1; i++) {
    const yi = y[i];
    for (let j = i + 1; j < to; j++) s += Math.sign(y[j] - yi); // branchless, values are never NaN
  }
  return s;
}

/** Var(S) of y[from..to) with the tie correction; `sorted` is a work buffer (≥ to − from). */
export function kendallVariance(y: ArrayLike<number>, from: number, to: number, sorted: Float64Array): number {
  const n = to - from;
  if (n < 2) return 0;
  const buf = sorted.subarray(0, n);
  for (let i = 0; i < n; i++) buf[i] = y[from + i];
  buf.sort();
  let ties = 0;
  let run = 1;
  for (let i = 1; i <= n; i++) {
    if (i < n && buf[i] === buf[i - 1]) run++;
    else {
      if (run > 1) ties += run * (run - 1) * (2 * run + 5);
      run = 1;
    }
  }
  return (n * (n - 1) * (2 * n + 5) - ties) / 18;
}

/** Z from S and Var(S), with the continuity correction. */
export function kendallZ(s: number, variance: number): number {
  if (s === 0 || !(variance > 0)) return 0;
  return s > 0 ? (s - 1) / Math.sqrt(variance) : (s + 1) / Math.sqrt(variance);
}

/** Append the pair slopes of x/y[from..to) to `out` at `at`; returns the new end. */
export function pairSlopes(x: ArrayLike<number>, y: ArrayLike<number>, from: number, to: number, out: Float64Array, at: number): number {
  let k = at;
  for (let i = from; i < to - 1; i++) {
    for (let j = i + 1; j < to; j++) {
      const dx = x[j] - x[i];
      if (dx !== 0) out[k++] = (y[j] - y[i]) / dx;
    }
  }
  return k;
}

/**
 * One pass over the pairs of x/y[from..to): adds S to `acc.score` and appends the pair
 * slopes to `out` at `at` (as kendallScore + pairSlopes, reading each pair once).
 */
function pairPass(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  from: number,
  to: number,
  out: Float64Array,
  at: number,
  acc: { score: number },
): number {
  let k = at;
  let s = 0;
  for (let i = from; i < to - 1; i++) {
    const xi = x[i];
    const yi = y[i];
    for (let j = i + 1; j < to; j++) {
      const dy = y[j] - yi;
      const dx = x[j] - xi;
      s += Math.sign(dy);
      if (dx !== 0) out[k++] = dy / dx;
    }
  }
  acc.score += s;
  return k;
}

/**
 * Mann-Kendall test of the n values y (in order of x) and Sen's slope; undefined when
 * n < 4.
 */
export function mannKendall(x: ArrayLike<number>, y: ArrayLike<number>, n: number, scratch: KendallScratch): KendallResult | undefined {
  if (n < MIN_KENDALL_VALUES) return undefined;
  const acc = { score: 0 };
  const count = pairPass(x, y, 0, n, scratch.slopes, 0, acc);
  const variance = kendallVariance(y, 0, n, scratch.sorted);
  return result(acc.score, variance, count === 0 ? NaN : median(scratch.slopes, count));
}

/**
 * Seasonal-Kendall test: season g holds x/y[starts[g]..starts[g+1]) (in order of x within
 * the season); S and Var(S) are summed over seasons and Sen's slope is the median of the
 * within-season pair slopes. Undefined when fewer than 4 values in all, or no season has
 * two values (no pair to compare).
 */
export function seasonalKendall(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  starts: ArrayLike<number>,
  seasons: number,
  scratch: KendallScratch,
): KendallResult | undefined {
  const n = starts[seasons] - starts[0];
  if (n < MIN_KENDALL_VALUES) return undefined;
  const acc = { score: 0 };
  let variance = 0;
  let count = 0;
  let pairs = 0;
  for (let g = 0; g < seasons; g++) {
    const from = starts[g];
    const to = starts[g + 1];
    if (to - from < 2) continue;
    pairs += ((to - from) * (to - from - 1)) / 2;
    count = pairPass(x, y, from, to, scratch.slopes, count, acc);
    variance += kendallVariance(y, from, to, scratch.sorted);
  }
  if (pairs === 0) return undefined;
  return result(acc.score, variance, count === 0 ? NaN : median(scratch.slopes, count));
}

function result(score: number, variance: number, sensSlope: number): KendallResult {
  const z = kendallZ(score, variance);
  return { sensSlope, pValue: normalTwoSidedP(z), score, variance, z };
}

/**
 * The median of values[0..count) (mean of the two middle values when count is even), by
 * selection in O(count); reorders the values.
 * @example
 * median(Float64Array.of(5, 1, 4, 2), 4); // 3
 */
export function median(values: Float64Array, count: number): number {
  if (count === 0) return NaN;
  const k = count >> 1;
  select(values, 0, count - 1, k);
  const upper = values[k];
  if (count % 2 === 1) return upper;
  // After selecting k, everything before it is ≤ values[k]: the lower middle is their max.
  let lower = values[0];
  for (let i = 1; i < k; i++) if (values[i] > lower) lower = values[i];
  return (lower + upper) / 2;
}

/**
 * Put the k-th smallest of a[left..right] at a[k], smaller ones before it, larger after
 * (Floyd-Rivest selection: recursing on a sample brackets k tightly, ~1.5·n comparisons).
 */
function select(a: Float64Array, left: number, right: number, k: number): void {
  while (right > left) {
    if (right - left > 600) {
      const n = right - left + 1;
      const m = k - left + 1;
      const z = Math.log(n);
      const s = 0.5 * Math.exp((2 * z) / 3);
      const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (m - n / 2 < 0 ? -1 : 1);
      select(a, Math.max(left, Math.floor(k - (m * s) / n + sd)), Math.min(right, Math.floor(k + ((n - m) * s) / n + sd)), k);
    }
    const t = a[k];
    let i = left;
    let j = right;
    swap(a, left, k);
    if (a[right] > t) swap(a, left, right);
    while (i < j) {
      swap(a, i, j);
      i++;
      j--;
      while (a[i] < t) i++;
      while (a[j] > t) j--;
    }
    if (a[left] === t) swap(a, left, j);
    else {
      j++;
      swap(a, j, right);
    }
    if (j <= k) left = j + 1;
    if (k <= j) right = j - 1;
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
