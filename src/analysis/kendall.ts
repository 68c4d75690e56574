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
import { KendallKernel } from "../kernels/kendall.js";
import { differencesExact, keyExact } from "./exactArithmetic.js";
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
  readonly whole: Int32Array;
  /**
   * The long-series path's arrays and loops, in a kernel's memory: the series being tested
   * (equal-x runs sorted by y, see senSlope), a cut's keys and order, the seasons of two
   * values or more, the slopes listed between two cuts or, for a short series, all its pair
   * slopes (a larger kernel replaces it when they outgrow it).
   */
  long: KendallKernel;
  /** Mutable state of the long-series path: segment count, sizes, the last cuts. */
  readonly state: LongSeriesState;
}

interface LongSeriesState {
  segments: number;
  maxAbsY: number;
  maxAbsX: number;
  minStepX: number;
  /** The widest span of x in a season. */
  maxSpanX: number;
  /** Pairs of equal x and equal y, counted by a non-strict cut at slope 0 and taken off. */
  equalXYPairs: number;
  /** Every slope below the last lower cut is ≤ this; every slope above the last upper cut is ≥ upperBound. */
  lowerBound: number;
  upperBound: number;
  /** Every slope above the last lower cut is ≥ this (the bound when it is a bracket's upper end). */
  aboveLowerCut: number;
  /** The cut scratch.order is sorted at (NaN: none, or not one insertion can start from). */
  orderCut: number;
  /** Pairs that order puts below its cut. */
  orderBelow: number;
  /** Pairs per unit of slope around the last pivot (sizes the next bracket). */
  density: number;
  /** Pairs per unit of slope around the median, as the series' noise about its line puts them (see noiseDensity); NaN: none. */
  noiseDensity: number;
  /** The series' least-squares slope (pooled within seasons): the first cut. */
  pivot: number;
  /** Slopes found by selectSlopes. */
  lowerSlope: number;
  upperSlope: number;
}

/** Fewest valid values a Mann-Kendall test is computed from. */
export const MIN_KENDALL_VALUES = 4;

/** Up to this many pairs, S and the slopes are computed pair by pair (faster than sorting there). */
const DIRECT_PAIRS = 2048;
/** Candidates held at first (the bracket around the median usually holds a few thousand). */
const CANDIDATES = 16384;
/**
 * A first bracket's pairs per pair it must hold, beyond the slack: one that falls short is
 * taken on from its cut (extendCrossings) at the density it found.
 */
const FIRST_BRACKET = 1.1;
/** Times a bracket short of its ranks is taken on before it is listed again, wider. */
const BRACKET_EXTENSIONS = 3;
/** Pairs a bracket holds beyond those it must (its density is a guess). */
const BRACKET_SLACK = 64;
/** Insertion moves a point, past which a cut is sorted from scratch (see insertToCut). */
const MOVES_PER_POINT = 24;
/**
 * Insertion moves a point expected, past which a cut is sorted from scratch without trying
 * (for 1461 points the kernel's sortCount takes ~13 µs, insertion ~6 µs and 2 ns a move;
 * the estimate is rough, and 3 beat 5 by 2 % a pixel on the bench cube).
 */
const SORT_MOVES_PER_POINT = 3;
/** Points a season the expected moves are sampled from when no density is known yet. */
const CROSSING_SAMPLES = 16;
/** Brackets tried before every slope on the median's side of 0 is listed. */
const BRACKET_ATTEMPTS = 8;
/** A bracket listing more than this many times the pairs it is for is stopped and narrowed... */
const BRACKET_OVERRUN = 8;
/** ...at most this many times before one is listed whole. */
const BRACKET_NARROWINGS = 12;
/** Middle ranks more than this many pairs a point from the first cut may lie on one tied slope: see tiedSlopes. */
const TIE_PROBE_DISTANCE = 4;
const UNIT_ROUNDOFF = 2 ** -53;

export function kendallScratch(n: number): KendallScratch {
  const pairs = Math.max(1, (n * (n - 1)) / 2);
  return {
    sorted: new Float64Array(n),
    whole: new Int32Array(2),
    long: new KendallKernel(n, Math.min(pairs, CANDIDATES)),
    state: {
      segments: 0,
      maxAbsY: 0,
      maxAbsX: 0,
      minStepX: 0,
      maxSpanX: 0,
      equalXYPairs: 0,
      lowerBound: 0,
      upperBound: 0,
      aboveLowerCut: 0,
      orderCut: NaN,
      orderBelow: 0,
      density: NaN,
      noiseDensity: NaN,
      pivot: 0,
      lowerSlope: 0,
      upperSlope: 0,
    },
  };
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
  return tieCorrectedVariance(buf, 0, n);
}

/** Var(S) from the values sorted[from..to) in ascending order. */
function tieCorrectedVariance(sorted: Float64Array, from: number, to: number): number {
  const n = to - from;
  let ties = 0;
  let run = 1;
  for (let i = from + 1; i <= to; i++) {
    if (i < to && sorted[i] === sorted[i - 1]) run++;
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
 * Mann-Kendall test of the n values y (in order of x) and Sen's slope; undefined when
 * n < 4.
 */
export function mannKendall(x: ArrayLike<number>, y: ArrayLike<number>, n: number, scratch: KendallScratch): KendallResult | undefined {
  if (n < MIN_KENDALL_VALUES) return undefined;
  scratch.whole[0] = 0;
  scratch.whole[1] = n;
  return kendall(x, y, scratch.whole, 1, scratch);
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
  return kendall(x, y, starts, seasons, scratch);
}

function kendall(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  starts: ArrayLike<number>,
  seasons: number,
  scratch: KendallScratch,
): KendallResult | undefined {
  let pairs = 0;
  for (let g = 0; g < seasons; g++) {
    const size = starts[g + 1] - starts[g];
    pairs += (size * (size - 1)) / 2;
  }
  if (pairs === 0) return undefined;
  for (;;) {
    try {
      return (
        (pairs > DIRECT_PAIRS && longSeriesKendall(x, y, starts, seasons, scratch)) ||
        pairByPairKendall(x, y, starts, seasons, pairs, scratch)
      );
    } catch (e) {
      // Heavy ties (a bracket lists more slopes than the kernel holds), or a series the long
      // path leaves to pairByPairKendall: again, with room for them all.
      if (!(e instanceof CandidatesOverflow)) throw e;
      scratch.long = new KendallKernel(scratch.long.x.length, e.needed);
    }
  }
}

/** More slopes to hold than the kernel has room for: a short series' pairs, or a listing its limit does not stop. */
class CandidatesOverflow extends Error {
  constructor(readonly needed: number) {
    super(`Sen's slope: ${needed} candidate slopes`);
  }
}

/** S, Var(S) and Sen's slope from every pair: O(n²) time, the slopes held in memory. */
function pairByPairKendall(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  starts: ArrayLike<number>,
  seasons: number,
  pairs: number,
  scratch: KendallScratch,
): KendallResult {
  if (pairs > scratch.long.candidates.length) throw new CandidatesOverflow(pairs);
  const slopes = scratch.long.candidates;
  let score = 0;
  let variance = 0;
  let count = 0;
  for (let g = 0; g < seasons; g++) {
    const from = starts[g];
    const to = starts[g + 1];
    if (to - from < 2) continue;
    for (let i = from; i < to - 1; i++) {
      const xi = x[i];
      const yi = y[i];
      for (let j = i + 1; j < to; j++) {
        const dy = y[j] - yi;
        const dx = x[j] - xi;
        score += Math.sign(dy);
        if (dx !== 0) slopes[count++] = dy / dx;
      }
    }
    variance += kendallVariance(y, from, to, scratch.sorted);
  }
  return result(score, variance, scratch.long.medianOfCandidates(count));
}

/**
 * The same results in O(n log n) (expected) time and O(n) memory; null when the series falls
 * outside what the slope selection's rounding-error bounds cover (non-finite values, x out of
 * order, extreme magnitudes), left to pairByPairKendall.
 *
 * S = pairs − tied pairs − 2·(pairs in decreasing order), the last counted by a sort that
 * counts inversions (the kendall kernel's radix sort and its count of reversed pairs),
 * which also sorts the values for Var(S).
 */
function longSeriesKendall(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  starts: ArrayLike<number>,
  seasons: number,
  scratch: KendallScratch,
): KendallResult | null {
  const { state, long } = scratch;
  const base = starts[0];
  let segments = 0;
  for (let g = 0; g < seasons; g++) {
    const from = starts[g] - base;
    const to = starts[g + 1] - base;
    if (to - from < 2) continue;
    long.segFrom[segments] = from;
    long.segTo[segments++] = to;
  }
  // The seasons lie one after the other: placed at once (a copy a season cost a daily
  // cube's 366 seasons of days more than their sorts).
  place(long.x, x, base, 0, starts[seasons] - base);
  place(long.y, y, base, 0, starts[seasons] - base);
  const summary = long.summarize(segments);
  if (!summary) return null;
  const { score, variance, decreasing, tiedPairs, minGapY, sxx, sxy, syy, maxAbsY, maxAbsX, minStepX, maxSpanX, equalXRuns } = summary;

  // Slopes stay finite and normal, and the cut margins small: see cutMargin.
  const fits = maxAbsY / minStepX <= 2 ** 900 && maxAbsX / minStepX <= 2 ** 40 && minGapY / maxSpanX >= 2 ** -1000;
  if (minStepX !== Infinity && !fits) return null;
  state.segments = segments;
  state.maxAbsY = maxAbsY;
  state.maxAbsX = maxAbsX;
  state.minStepX = minStepX;
  state.maxSpanX = maxSpanX;
  state.orderCut = 0; // the kernel's order is the y order: the exact cut at 0, ties in x order
  state.orderBelow = decreasing;
  state.density = NaN; // measured afresh for each series by its cuts: an insertion's moves, or two cuts' counts
  state.pivot = sxx > 0 && Number.isFinite(sxy / sxx) ? sxy / sxx : 0;
  state.noiseDensity = noiseDensity(scratch, sxx > 0 ? syy - (sxy * sxy) / sxx : syy);
  return result(score, variance, minStepX === Infinity ? NaN : senSlope(scratch, equalXRuns, decreasing, tiedPairs));
}

/** values[start .. start + count) into the kernel's array at `at`. */
function place(into: Float64Array, values: ArrayLike<number>, start: number, at: number, count: number): void {
  if (values instanceof Float64Array) into.set(values.subarray(start, start + count), at);
  else for (let i = 0; i < count; i++) into[at + i] = values[start + i];
}

/**
 * Sen's slope of the series in scratch (x, y and segments set by longSeriesKendall) without
 * listing its pairs. Slopes are located by cuts: for a slope t, the pairs i < j of a season
 * with (y_j − y_i)/(x_j − x_i) < t are those whose key y − t·x decreases from i to j, so a
 * sort by key counts them in O(n log n); the pairs between two nearby cuts are those
 * whose order differs between them, listed by an insertion sort from one order to the other
 * in O(n + their number). selectSlopes places the cuts around the least-squares slope.
 *
 * Exactness. The keys are rounded, so a cut at t sorts pairs right only when their slope is
 * not too close to t: each cut is made a margin outside its bracket end (cutMargin), which
 * guarantees that every pair it puts below has a computed slope < α (above: > β); the pairs in
 * between are listed and their slopes computed, so only their order comes from the cuts. At
 * slope 0 the key is y itself and the cut is exact, so the (often many) pairs of equal y are
 * counted, never listed. A result is accepted only when it lies within its bracket.
 */
function senSlope(scratch: KendallScratch, equalXRuns: boolean, decreasing: number, tiedPairs: number): number {
  const { state } = scratch;
  const { x: xs, y: ys, segFrom, segTo } = scratch.long;
  let pairs = 0;
  let equalXPairs = 0;
  let equalXYPairs = 0;
  for (let s = 0; s < state.segments; s++) {
    const from = segFrom[s];
    const to = segTo[s];
    pairs += ((to - from) * (to - from - 1)) / 2;
    if (!equalXRuns) continue;
    // Pairs of equal x have no slope. Sorting y within a run of equal x keeps every slope
    // (each pair keeps its two ends) and keeps those pairs out of every cut's count.
    for (let a = from; a < to;) {
      let b = a + 1;
      while (b < to && xs[b] === xs[a]) b++;
      if (b - a > 1) {
        ys.subarray(a, b).sort();
        equalXPairs += ((b - a) * (b - a - 1)) / 2;
        for (let c = a; c < b;) {
          let d = c + 1;
          while (d < b && ys[d] === ys[c]) d++;
          equalXYPairs += ((d - c) * (d - c - 1)) / 2;
          c = d;
        }
      }
      a = b;
    }
  }
  pairs -= equalXPairs;
  state.equalXYPairs = equalXYPairs;
  // Slopes < 0 and ≤ 0, counted exactly (y order alone; sorted again once equal-x runs moved y).
  if (equalXRuns) state.orderCut = NaN;
  const negative = equalXRuns ? sortByCut(scratch, 0, true) : decreasing;
  const nonPositive = negative + tiedPairs - equalXYPairs;

  const high = Math.floor(pairs / 2);
  const low = pairs % 2 === 1 ? high : high - 1;
  const sideOf = (rank: number) => (rank < negative ? -1 : rank < nonPositive ? 0 : 1);
  const lowSide = sideOf(low);
  const highSide = sideOf(high);
  let lower = 0;
  let upper = 0;
  if (lowSide === highSide) {
    if (lowSide !== 0) {
      selectSlopes(scratch, low, high, lowSide);
      lower = state.lowerSlope;
      upper = state.upperSlope;
    }
  } else {
    if (lowSide !== 0) {
      selectSlopes(scratch, low, low, lowSide);
      lower = state.lowerSlope;
    }
    if (highSide !== 0) {
      selectSlopes(scratch, high, high, highSide);
      upper = state.upperSlope;
    }
  }
  return pairs % 2 === 1 ? upper : (lower + upper) / 2;
}

/**
 * Puts the slopes of ranks low and high (high ≤ low + 1) in state.lowerSlope/upperSlope,
 * both < 0 (side −1) or both > 0 (side 1). The first cut is at the least-squares slope (on
 * that side), which on real series lies a few hundred pairs from the median; its exact count
 * says which way the ranks lie and how far. The bracket's far end is placed that many pairs
 * away at the density of slopes seen around the cut, and the slopes between are listed from
 * the first cut's order, upwards or downwards (a second cut only when the two middle ranks lie
 * on both sides of the first). The far end is placed for about as many pairs as the ranks
 * need (a listing costs more per pair than one more step): a listing that falls short is
 * taken on from its cut at the density it found, and one that still misses is listed again,
 * wider.
 */
function selectSlopes(scratch: KendallScratch, low: number, high: number, side: number): void {
  const { state } = scratch;
  const n = scratch.long.x.length;
  const firstLo = side > 0 ? 0 : -Infinity;
  const firstHi = side > 0 ? Infinity : 0;
  const pivot = side > 0 ? Math.max(state.pivot, 0) : Math.min(state.pivot, 0);
  let anchor = lowerCut(scratch, pivot, side);
  const far = anchor <= low ? high + 1 - anchor : anchor > high ? anchor - low : 0;
  if (far > TIE_PROBE_DISTANCE * n) {
    const guess = (1.5 * far + BRACKET_SLACK) / (state.density > 0 ? state.density : guessedDensity(scratch));
    const up = anchor <= low;
    if (tiedSlopes(scratch, low, high, side, up, up ? Math.min(firstHi, pivot + guess) : Math.max(firstLo, pivot - guess))) return;
    state.orderCut = NaN; // the first cut sorted afresh
    anchor = lowerCut(scratch, pivot, side);
  }
  const anchorLower = state.lowerBound;
  const anchorUpper = state.aboveLowerCut;
  const straddles = anchor > low && high >= anchor;
  // Otherwise the ranks lie above the first cut (listed upwards from it) or below.
  const up = anchor <= low;
  // Pairs to list at least, and a first guess of the slope width that holds them (a
  // straddled cut is cut again on both sides, with nothing to take on: the wider guess).
  const needed = straddles ? 2 : up ? high + 1 - anchor : anchor - low;
  const wanted = 1.5 * needed + BRACKET_SLACK;
  const density = state.density > 0 ? state.density : guessedDensity(scratch);
  let width = (straddles ? wanted : FIRST_BRACKET * needed + BRACKET_SLACK) / density;
  // A guessed density (the cut was sorted, not reached by insertion) can be far too low on a
  // strongly trending series, whose slopes crowd around the pivot: a listing that overruns is
  // stopped and the bracket narrowed, down to the cuts' own margins, where ties must be listed.
  const floor = 4 * cutMargin(state, pivot);
  let limit = BRACKET_OVERRUN * wanted + n;
  let narrowings = 0;
  for (let attempt = 0; attempt < BRACKET_ATTEMPTS;) {
    if (width <= floor || narrowings === BRACKET_NARROWINGS) limit = Infinity;
    let below = anchor;
    let inside: number;
    if (straddles) {
      below = lowerCut(scratch, Math.max(firstLo, pivot - width), side);
      inside = upperCut(scratch, Math.min(firstHi, pivot + width), side, limit);
    } else if (up) {
      state.lowerBound = anchorLower;
      inside = upperCut(scratch, Math.min(firstHi, pivot + width), side, limit);
    } else {
      state.upperBound = anchorUpper;
      inside = downCut(scratch, Math.max(firstLo, pivot - width), side, limit);
      below = anchor - inside;
    }
    // Short of the ranks on its far side: the listing goes on from its cut, at the density
    // it found, rather than again from the first cut.
    for (let more = 0; !straddles && inside <= limit && more < BRACKET_EXTENSIONS; more++) {
      const missing = up ? high + 1 - (below + inside) : below - low;
      if (missing <= 0 || width >= (up ? firstHi - pivot : pivot - firstLo)) break;
      const found = inside / width;
      width += (FIRST_BRACKET * missing + BRACKET_SLACK) / (found > 0 ? found : density);
      inside = up
        ? upperCut(scratch, Math.min(firstHi, pivot + width), side, limit, inside)
        : downCut(scratch, Math.max(firstLo, pivot - width), side, limit, inside);
      if (!up) below = anchor - inside;
    }
    if (inside > limit) {
      width = Math.max(floor, (width * wanted) / limit);
      narrowings++;
      continue;
    }
    if (below <= low && high < below + inside && pickRanks(scratch.long, inside, low - below, high - below, state)) return;
    // Widen at the density this bracket found (at least double).
    const found = inside / width;
    width *= found > 0 ? Math.max(2, wanted / (found * width)) : 4;
    attempt++;
  }
  // The brackets kept missing (heavy ties, a wild pivot): list every slope on this side of 0.
  const below = lowerCut(scratch, firstLo, side);
  const inside = upperCut(scratch, firstHi, side, Infinity);
  if (!pickRanks(scratch.long, inside, low - below, high - below, state))
    throw new Error("Sen's slope: the median fell outside its bracket");
}

/**
 * Sen's slope when both middle ranks fall on one slope that many pairs share (a line stored
 * in float32, quantized values), where listing every pair tied there would take O(ties). A
 * sample of the pairs between the first cut and `end` (above it when `up`) names the most frequent slope v.
 * When every key y − v·x and every difference of x and of y is exact, cuts at v count the
 * pairs below v and at v exactly (and each computed slope falls on the same side of v as its
 * exact value); if the middle ranks lie between the two counts, both are v. Otherwise false,
 * and scratch.order may no longer be at the first cut.
 */
function tiedSlopes(scratch: KendallScratch, low: number, high: number, side: number, up: boolean, end: number): boolean {
  const { state } = scratch;
  const { x: xs, y: ys, segFrom, segTo, candidates } = scratch.long;
  const sample = Math.min(xs.length, candidates.length);
  const listed = up ? upperCut(scratch, end, side, sample) : downCut(scratch, end, side, sample);
  const v = mostFrequent(candidates, Math.min(listed, sample));
  if (v === undefined || Math.sign(v) !== side) return false;
  for (let s = 0; s < state.segments; s++) {
    const from = segFrom[s];
    const to = segTo[s];
    if (!differencesExact(xs, from, to) || !differencesExact(ys, from, to)) return false;
    for (let i = from; i < to; i++) if (!keyExact(xs[i], ys[i], v)) return false;
  }
  // Sorted afresh (not by insertion, which keeps equal keys in the order it found them).
  state.orderCut = NaN;
  const below = sortByCut(scratch, v, true);
  const atOrBelow = sortByCut(scratch, v, false) - state.equalXYPairs;
  if (!(below <= low && high < atOrBelow)) return false;
  state.lowerSlope = v;
  state.upperSlope = v;
  return true;
}

/** The value most often in values[0..count) (which it sorts) if it is there at least count/16 times. */
function mostFrequent(values: Float64Array, count: number): number | undefined {
  if (count < 16) return undefined;
  const sorted = values.subarray(0, count).sort();
  let best = 0;
  let bestRun = 0;
  for (let i = 0; i < count;) {
    let j = i + 1;
    while (j < count && sorted[j] === sorted[i]) j++;
    if (j - i > bestRun) {
      bestRun = j - i;
      best = sorted[i];
    }
    i = j;
  }
  return bestRun * 16 >= count ? best : undefined;
}

/**
 * Pairs per unit of slope when no cut has measured it: as the series' noise puts them
 * (noiseDensity), or, for a series without noise, all pairs over its slope range. A cut at
 * a pivot pulled to 0 (the least-squares slope on the other side of 0 from the median)
 * measures none; the slope range put such a bracket ~10⁵ times too wide, and its listings
 * were stopped and narrowed four times over (a twentieth of a daily cube's pixels near a
 * trend of 0, ~300 µs each).
 */
function guessedDensity(scratch: KendallScratch): number {
  const { state } = scratch;
  if (state.noiseDensity > 0 && Number.isFinite(state.noiseDensity)) return state.noiseDensity;
  const range = (2 * state.maxAbsY) / state.minStepX;
  return range > 0 ? seasonSizes(scratch).pairs / range : 1;
}

/**
 * Pairs per unit of slope at the median when the series is a line plus noise of the
 * variance its residuals `sse` show: a pair d apart in x has a slope of that line's plus
 * noise of deviation σ√2/d, so a density d/(2σ√π) at the line's slope; summed over the pairs
 * of a season spanning L (Σd ≈ pairs·L/3), pairs·L/(6σ√π). On the bench cube's series this
 * came within 10 % of the density their cuts measured.
 */
function noiseDensity(scratch: KendallScratch, sse: number): number {
  const { state } = scratch;
  const { points, pairs } = seasonSizes(scratch);
  const freedom = points - state.segments - 1;
  const sigma = Math.sqrt(sse / freedom);
  return freedom > 0 && sigma > 0 ? (pairs * state.maxSpanX) / (6 * sigma * Math.sqrt(Math.PI)) : NaN;
}

/** The points of the seasons, and the pairs within them. */
function seasonSizes(scratch: KendallScratch): { points: number; pairs: number } {
  const { segFrom, segTo } = scratch.long;
  let points = 0;
  let pairs = 0;
  for (let s = 0; s < scratch.state.segments; s++) {
    const size = segTo[s] - segFrom[s];
    points += size;
    pairs += (size * (size - 1)) / 2;
  }
  return { points, pairs };
}

/**
 * Selects ranks low ≤ high of the kernel's candidates[0..count) into state; false unless they
 * lie within the bounds the last cuts guarantee for the pairs they left out.
 */
function pickRanks(long: KendallKernel, count: number, low: number, high: number, state: LongSeriesState): boolean {
  const { lower, upper } = long.selectRanks(count, low, high);
  if (!(lower >= state.lowerBound && upper <= state.upperBound)) return false;
  state.lowerSlope = lower;
  state.upperSlope = upper;
  return true;
}

/**
 * How far outside a bracket end t its cut is made. A key y − t·x is off by at most
 * u·(|y| + 2|t·x|), which moves the slope a pair is sorted by by at most twice that over its
 * x step (≥ minStepX); the computed slope fl(fl(Δy)/fl(Δx)) is within 3u·|slope| of the exact
 * one. The factor 8 covers both with room for the rounding of the cut itself (longSeriesKendall
 * keeps maxAbsX/minStepX ≤ 2^40, so u·maxAbsX/minStepX is small).
 */
function cutMargin(state: LongSeriesState, t: number): number {
  const size = Math.abs(t);
  return 8 * UNIT_ROUNDOFF * ((state.maxAbsY + 4 * size * state.maxAbsX) / state.minStepX + size) + 2 ** -1070 / state.minStepX;
}

/**
 * Cut below the bracket end lo: sorts each season by its key (into scratch.order) and returns
 * how many pairs it puts below, all of slope ≤ state.lowerBound. −∞ puts none; on side 1 a
 * cut at or under 0 is made exactly at 0, putting there every slope ≤ 0. The pairs it puts
 * above have slopes ≥ state.aboveLowerCut.
 */
function lowerCut(scratch: KendallScratch, lo: number, side: number): number {
  const { state } = scratch;
  if (lo === -Infinity) {
    state.lowerBound = -Infinity;
    state.aboveLowerCut = -Infinity;
    return sortByCut(scratch, -Infinity, true);
  }
  const t = lo - cutMargin(state, lo);
  if (side > 0 && t <= 0) {
    state.lowerBound = 0;
    state.aboveLowerCut = 0;
    return sortByCut(scratch, 0, false) - state.equalXYPairs;
  }
  state.lowerBound = lo;
  state.aboveLowerCut = t - cutMargin(state, t);
  return sortByCut(scratch, t, true);
}

/**
 * Cut above the bracket end hi, for the seasons sorted by lowerCut: returns how many pairs lie
 * between the two cuts and puts their slopes in the kernel's candidates; the pairs above have slopes
 * ≥ state.upperBound. On side −1 a cut at or over 0 is made exactly at 0, putting above every
 * slope ≥ 0. Past `limit` pairs it stops, returning more than limit.
 */
function upperCut(scratch: KendallScratch, hi: number, side: number, limit: number, listed?: number): number {
  const { state } = scratch;
  let t = hi + cutMargin(state, hi);
  state.upperBound = hi;
  if (hi === Infinity) t = Infinity;
  else if (side < 0 && t >= 0) {
    t = 0;
    state.upperBound = 0;
  }
  return listCandidates(scratch, t, limit, listed);
}

/**
 * Cut below the bracket end lo, for the seasons sorted by lowerCut at a cut above it: returns
 * how many pairs lie between the two cuts and puts their slopes in the kernel's candidates; the pairs
 * below have slopes ≤ state.lowerBound. On side 1 a cut at or under 0 is made exactly at 0,
 * putting below every slope ≤ 0. Past `limit` pairs it stops, returning more than limit.
 */
function downCut(scratch: KendallScratch, lo: number, side: number, limit: number, listed?: number): number {
  const { state } = scratch;
  let t = lo - cutMargin(state, lo);
  state.lowerBound = lo;
  if (lo === -Infinity) t = -Infinity;
  else if (side > 0 && t <= 0) {
    t = 0;
    state.lowerBound = 0;
  }
  return listCandidates(scratch, t, limit, listed);
}

/**
 * Insertion-sorts each season, from the order lowerCut left (kept), by its key at cut t, and
 * lists the slope of every pair this reverses (the pairs between the two cuts) in the
 * kernel's candidates: (y_j − y_i)/(x_j − x_i) with i before j in x order. Time O(n + pairs
 * between the cuts). Returns how many there are, or, once past `limit`, stops and returns the
 * count so far (more than limit); more than the candidates hold within the limit throws
 * CandidatesOverflow (heavy ties only).
 */
function listCandidates(scratch: KendallScratch, t: number, limit: number, listed?: number): number {
  const { long, state } = scratch;
  const count =
    listed === undefined ? long.listCrossings(t, state.segments, limit) : long.extendCrossings(t, state.segments, limit, listed);
  if (count > scratch.long.candidates.length && count <= limit) throw new CandidatesOverflow(count);
  return count;
}

/**
 * Sorts each season's points by their key at cut t into the kernel's order (ties: in x order
 * when strict, reversed otherwise) and returns the pairs whose key decreases (strict) or does
 * not increase. A strict cut near the one the order is sorted at is reached by insertion from it.
 */
function sortByCut(scratch: KendallScratch, t: number, strict: boolean): number {
  const { state, long } = scratch;
  const [lastCut, lastBelow] = [state.orderCut, state.orderBelow];
  const near = strict && Number.isFinite(t) && !Number.isNaN(lastCut);
  if (near && !insertionCostsMore(scratch, t)) {
    const count = insertToCut(scratch, t);
    if (count !== null) return count;
  }
  let count = 0;
  for (let s = 0; s < state.segments; s++) {
    const from = long.segFrom[s];
    const to = long.segTo[s];
    long.resetKeys(t, from, to);
    if (t !== -Infinity) count += long.sortCount(from, to, strict);
  }
  // The pairs between the two cuts over their distance: the density an insertion measures.
  if (near && t !== lastCut && count !== lastBelow) state.density = Math.abs(count - lastBelow) / Math.abs(t - lastCut);
  state.orderCut = Number.isFinite(t) ? t : NaN;
  state.orderBelow = count;
  return count;
}

/**
 * Whether insertion from the order's cut to t is expected to make more moves than a sort
 * from scratch costs: the density measured around the last cut says how many, or, before
 * any, the density the series' noise puts at its median (noiseDensity: the slopes' peak, so
 * an estimate erring towards the sort), or, for a series without noise, a sample of the points
 * (KendallKernel.crossingsAhead, 2-7 µs of a daily series' ~57). The first cut, from the y
 * order to the least-squares slope, moves ~10 points a point on a noisy daily series.
 */
function insertionCostsMore(scratch: KendallScratch, t: number): boolean {
  const { state, long } = scratch;
  const { points, pairs } = seasonSizes(scratch);
  // An insertion moves each pair once at most: seasons of a few points (days of the year)
  // have too few to cost more, and estimating them cost as much as the insertion.
  if (pairs <= SORT_MOVES_PER_POINT * points) return false;
  const distance = Math.abs(t - state.orderCut);
  const density = state.density > 0 ? state.density : state.noiseDensity;
  const moves = density > 0 ? density * distance : long.crossingsAhead(t, distance * state.maxSpanX, state.segments, CROSSING_SAMPLES);
  return moves > SORT_MOVES_PER_POINT * points;
}

/**
 * Re-sorts the kernel's order from its cut to the cut at t by insertion (equal keys keep
 * their order), counting each pair it swaps into or out of x order: O(n + pairs between the
 * cuts), against the sort's O(n log n), so it gives up (null) past MOVES_PER_POINT moves a
 * point. The moves over the distance are the density of slopes there.
 */
function insertToCut(scratch: KendallScratch, t: number): number | null {
  const { state, long } = scratch;
  let cap = 0;
  for (let s = 0; s < state.segments; s++) cap += MOVES_PER_POINT * (long.segTo[s] - long.segFrom[s]);
  const { count, moves } = long.insertToCut(t, state.segments, cap, state.orderBelow);
  // Given up: at least this dense (only some of the points moved yet), a floor for the bracket's guess.
  if (moves > 0 && t !== state.orderCut) state.density = moves / Math.abs(t - state.orderCut);
  if (count === null) return null;
  state.orderCut = t;
  state.orderBelow = count;
  return count;
}

function result(score: number, variance: number, sensSlope: number): KendallResult {
  const z = kendallZ(score, variance);
  return { sensSlope, pValue: normalTwoSidedP(z), score, variance, z };
}
