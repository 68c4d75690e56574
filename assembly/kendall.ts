/**
 * The loops of the Mann-Kendall test and Sen's slope on long series (src/analysis/kendall.ts,
 * through src/kernels/kendall.ts): a stable sort that counts the pairs it reverses, the
 * insertion from one cut's order to a nearby one (counting, or listing the pairs' slopes)
 * and an estimate of its moves, a cut's keys, and the selection of the middle slopes. The
 * counts and slopes are those of the JavaScript they replaced, to the bit; the caller keeps
 * the logic.
 *
 * Memory is the caller's (imported), the arrays bound once (bind) as byte offsets: the
 * series x, y (f64), a cut's keys key and a listing's keyTmp (f64), the points in key order
 * order and orderTmp (i32), the seasons' [segFrom, segTo) (i32), the radix sort's bits and
 * positions (two u64 and two i32 arrays), its digit counts (4096 i32: two passes of the
 * sort's 11-bit digits, or 256 for the selection's 8-bit ones), the Fenwick tree (i32, n + 1),
 * the bitset of placed points (placed, u64, BITSET_WORDS), the listed slopes (candidates,
 * f64, `capacity` of them; a listing's pairs, two i32 points each, until their slopes are
 * taken) and a series' summary (f64 × 13).
 */

export { heapBase } from "./lib/heap";

let x: usize = 0;
let y: usize = 0;
let key: usize = 0;
let keyTmp: usize = 0;
let order: usize = 0;
let orderTmp: usize = 0;
let segFrom: usize = 0;
let segTo: usize = 0;
let bits: usize = 0;
let bitsTmp: usize = 0;
/** The bits in the order of the positions the last radixSort returned: bits or bitsTmp. */
let sortedBits: usize = 0;
let position: usize = 0;
let positionTmp: usize = 0;
let counts: usize = 0;
let tree: usize = 0;
let placed: usize = 0;
let candidates: usize = 0;
let capacity: i64 = 0;
let summary: usize = 0;
/** Moves made by the last insertToCut, whole or given up. */
let moved: f64 = 0;

/** The sort's digits: 11 bits, two passes for the top COARSE_BITS (the counts of each fit in the first level of cache). */
const SORT_DIGIT_BITS: u64 = 11;
const SORT_DIGIT_MASK: u64 = 2047;
const SORT_BUCKETS = 2048;
/** The selection's digits. */
const DIGIT_BITS: u64 = 8;
const BUCKETS = 256;
/** Top differing bits of the keys a sort takes digit by digit before insertion settles the rest (sortCount). */
const COARSE_BITS: u64 = 22;
/** Insertion moves a point past which a sort goes back to every digit. */
const SETTLE_MOVES = 4;
/** Candidates few enough for selectRanks to sort by insertion. */
const SORTED_SELECTION = 24;
/** Seasons up to this many points are sorted by insertion (sortCount): a radix pass's 2048 counts cost more than their moves. */
const INSERTION_SORT = 64;
/** Series up to this many 64-point words are counted with a bitset (countReversed), longer ones with the Fenwick tree. */
const BITSET_WORDS = 64;

/** Where the arrays lie. */
export function bind(
  xAt: usize,
  yAt: usize,
  keyAt: usize,
  keyTmpAt: usize,
  orderAt: usize,
  orderTmpAt: usize,
  segFromAt: usize,
  segToAt: usize,
  bitsAt: usize,
  bitsTmpAt: usize,
  positionAt: usize,
  positionTmpAt: usize,
  countsAt: usize,
  treeAt: usize,
  placedAt: usize,
  candidatesAt: usize,
  candidatesCapacity: i32,
  summaryAt: usize,
): void {
  x = xAt;
  y = yAt;
  key = keyAt;
  keyTmp = keyTmpAt;
  order = orderAt;
  orderTmp = orderTmpAt;
  segFrom = segFromAt;
  segTo = segToAt;
  bits = bitsAt;
  bitsTmp = bitsTmpAt;
  position = positionAt;
  positionTmp = positionTmpAt;
  counts = countsAt;
  tree = treeAt;
  placed = placedAt;
  candidates = candidatesAt;
  capacity = candidatesCapacity;
  summary = summaryAt;
}

function f64At(array: usize, i: i32): f64 {
  return load<f64>(array + ((<usize>i) << 3));
}
function setF64(array: usize, i: i32, v: f64): void {
  store<f64>(array + ((<usize>i) << 3), v);
}
function i32At(array: usize, i: i32): i32 {
  return load<i32>(array + ((<usize>i) << 2));
}
function setI32(array: usize, i: i32, v: i32): void {
  store<i32>(array + ((<usize>i) << 2), v);
}

/** The key of point p at cut t; at ±∞ the x order alone. */
function cutKey(p: i32, t: f64): f64 {
  const xp = f64At(x, p);
  return t == -Infinity ? xp : t == Infinity ? -xp : f64At(y, p) - t * xp;
}

/** key[i] = the key of point i at cut t and order[i] = i, for i in [from, to). */
export function resetKeys(t: f64, from: i32, to: i32): void {
  let i = from;
  if (t - t == 0) {
    // Two at a time (a finite cut: the sort's keys at the first cut of each series).
    const ts = f64x2.splat(t);
    for (; i + 1 < to; i += 2) {
      const k = f64x2.sub(v128.load(y + ((<usize>i) << 3)), f64x2.mul(ts, v128.load(x + ((<usize>i) << 3))));
      v128.store(key + ((<usize>i) << 3), k);
      store<u64>(order + ((<usize>i) << 2), ((<u64>(i + 1)) << 32) | (<u64>i));
    }
  }
  for (; i < to; i++) {
    setF64(key, i, cutKey(i, t));
    setI32(order, i, i);
  }
}

/**
 * What the tests need of a series before Sen's slope, over the seasons [segFrom, segTo) of x/y:
 * false when a value is not finite or x decreases within a season. Into summary: 0 S, 1 Var(S)
 * with the tie correction, 2 pairs in decreasing order, 3 pairs of tied y, 4 the least gap
 * between distinct y, 5 Σ(x − x̄)², 6 Σ(x − x̄)(y − ȳ) (means within seasons), 7 max |y|,
 * 8 max |x|, 9 the least step of x > 0, 10 the widest span of x in a season, 11 whether x
 * repeats (1) or not (0), 12 Σ(y − ȳ)². Each season ends sorted by y in key and order (ties in
 * x order).
 */
export function summarize(segments: i32): bool {
  let maxAbsY: f64 = 0;
  let maxAbsX: f64 = 0;
  let minStepX: f64 = Infinity;
  let maxSpanX: f64 = 0;
  let equalXRuns = false;
  let score: f64 = 0;
  let variance: f64 = 0;
  let decreasing: f64 = 0;
  let tiedPairs: f64 = 0;
  let minGapY: f64 = Infinity;
  let sxx: f64 = 0;
  let sxy: f64 = 0;
  let syy: f64 = 0;
  const infinity = f64x2.splat(Infinity);
  const none = f64x2.splat(0);
  for (let s = 0; s < segments; s++) {
    const from = i32At(segFrom, s);
    const to = i32At(segTo, s);
    const size = <f64>(to - from);
    // One pass, two points at a time: the checks, the keys, and the sums about the season's
    // first point (sxx, sxy and syy only place the first cut and size its bracket, so their
    // last bits do not matter).
    // A value not finite or x stepping back fails the series once the pass is done.
    const x0 = f64At(x, from);
    const y0 = f64At(y, from);
    if (x0 - x0 != 0 || y0 - y0 != 0) return false; // ±∞ or NaN
    setF64(key, from, y0);
    setI32(order, from, from);
    const xs0 = f64x2.splat(x0);
    const ys0 = f64x2.splat(y0);
    let bad = i64x2.splat(0);
    let zeroStep = bad;
    let maxY = f64x2.splat(abs(y0));
    let maxX = f64x2.splat(abs(x0));
    let minStep = infinity;
    let sx = none;
    let sy = none;
    let sxxShifted = none;
    let sxyShifted = none;
    let syyShifted = none;
    let i = from + 1;
    for (; i + 1 < to; i += 2) {
      const xi = v128.load(x + ((<usize>i) << 3));
      const yi = v128.load(y + ((<usize>i) << 3));
      const step = f64x2.sub(xi, v128.load(x + ((<usize>(i - 1)) << 3)));
      bad = v128.or(bad, v128.or(f64x2.ne(f64x2.sub(xi, xi), none), f64x2.ne(f64x2.sub(yi, yi), none)));
      bad = v128.or(bad, f64x2.lt(step, none));
      zeroStep = v128.or(zeroStep, f64x2.eq(step, none));
      minStep = f64x2.pmin(minStep, v128.bitselect(step, infinity, f64x2.gt(step, none)));
      maxY = f64x2.pmax(maxY, f64x2.abs(yi));
      maxX = f64x2.pmax(maxX, f64x2.abs(xi));
      v128.store(key + ((<usize>i) << 3), yi);
      store<u64>(order + ((<usize>i) << 2), ((<u64>(i + 1)) << 32) | (<u64>i));
      const dx = f64x2.sub(xi, xs0);
      const dy = f64x2.sub(yi, ys0);
      sx = f64x2.add(sx, dx);
      sy = f64x2.add(sy, dy);
      sxxShifted = f64x2.add(sxxShifted, f64x2.mul(dx, dx));
      sxyShifted = f64x2.add(sxyShifted, f64x2.mul(dx, dy));
      syyShifted = f64x2.add(syyShifted, f64x2.mul(dy, dy));
    }
    if (v128.any_true(bad)) return false;
    let sxAll = f64x2.extract_lane(sx, 0) + f64x2.extract_lane(sx, 1);
    let syAll = f64x2.extract_lane(sy, 0) + f64x2.extract_lane(sy, 1);
    let sxxAll = f64x2.extract_lane(sxxShifted, 0) + f64x2.extract_lane(sxxShifted, 1);
    let sxyAll = f64x2.extract_lane(sxyShifted, 0) + f64x2.extract_lane(sxyShifted, 1);
    let syyAll = f64x2.extract_lane(syyShifted, 0) + f64x2.extract_lane(syyShifted, 1);
    maxAbsY = max(maxAbsY, max(f64x2.extract_lane(maxY, 0), f64x2.extract_lane(maxY, 1)));
    maxAbsX = max(maxAbsX, max(f64x2.extract_lane(maxX, 0), f64x2.extract_lane(maxX, 1)));
    minStepX = min(minStepX, min(f64x2.extract_lane(minStep, 0), f64x2.extract_lane(minStep, 1)));
    if (v128.any_true(zeroStep)) equalXRuns = true;
    if (i < to) {
      const xi = f64At(x, i);
      const yi = f64At(y, i);
      if (xi - xi != 0 || yi - yi != 0) return false;
      const step = xi - f64At(x, i - 1);
      if (step < 0) return false;
      if (step == 0) equalXRuns = true;
      else minStepX = min(minStepX, step);
      maxAbsY = max(maxAbsY, abs(yi));
      maxAbsX = max(maxAbsX, abs(xi));
      setF64(key, i, yi);
      setI32(order, i, i);
      const dx = xi - x0;
      const dy = yi - y0;
      sxAll += dx;
      syAll += dy;
      sxxAll += dx * dx;
      sxyAll += dx * dy;
      syyAll += dy * dy;
    }
    maxSpanX = max(maxSpanX, f64At(x, to - 1) - x0);
    sxx += sxxAll - (sxAll * sxAll) / size;
    sxy += sxyAll - (sxAll * syAll) / size;
    syy += syyAll - (syAll * syAll) / size;
    const down = sortCount(from, to, true);
    // Runs of equal y, found two gaps at a time: their pairs, and the tie correction of Var(S).
    let ties: f64 = 0;
    let tieTerm: f64 = 0;
    let minGap = infinity;
    let k = from + 1;
    while (k < to) {
      if (k + 1 < to) {
        const gap = f64x2.sub(v128.load(key + ((<usize>k) << 3)), v128.load(key + ((<usize>(k - 1)) << 3)));
        const tied = f64x2.eq(gap, none);
        if (!v128.any_true(tied)) {
          minGap = f64x2.pmin(minGap, gap);
          k += 2;
          continue;
        }
      }
      // A run starts at k − 1 when key[k] repeats it (the gap before k − 1 was not 0, or it
      // would have been taken with its own run), else this gap counts and the run, if any, starts at k.
      let a = k - 1;
      if (f64At(key, k) != f64At(key, a)) {
        minGapY = min(minGapY, f64At(key, k) - f64At(key, a));
        a = k;
      }
      let b = a + 1;
      while (b < to && f64At(key, b) == f64At(key, a)) b++;
      const run = <f64>(b - a);
      ties += (run * (run - 1)) / 2;
      if (run > 1) tieTerm += run * (run - 1) * (2 * run + 5);
      k = b;
    }
    minGapY = min(minGapY, min(f64x2.extract_lane(minGap, 0), f64x2.extract_lane(minGap, 1)));
    score += (size * (size - 1)) / 2 - ties - 2 * down;
    variance += (size * (size - 1) * (2 * size + 5) - tieTerm) / 18;
    decreasing += down;
    tiedPairs += ties;
  }
  setF64(summary, 0, score);
  setF64(summary, 1, variance);
  setF64(summary, 2, decreasing);
  setF64(summary, 3, tiedPairs);
  setF64(summary, 4, minGapY);
  setF64(summary, 5, sxx);
  setF64(summary, 6, sxy);
  setF64(summary, 7, maxAbsY);
  setF64(summary, 8, maxAbsX);
  setF64(summary, 9, minStepX);
  setF64(summary, 10, maxSpanX);
  setF64(summary, 11, equalXRuns ? 1 : 0);
  setF64(summary, 12, syy);
  return true;
}

/**
 * Sorts key[from..to) ascending, moving order along, and returns how many pairs it reverses:
 * a later key smaller (strict), or smaller or equal (not strict; equal keys end reversed).
 * An LSD radix sort on the keys' bits (its digits start at the lowest bit that differs
 * between keys; a digit all keys share is skipped), then the pairs reversed counted over the
 * original positions (countReversed).
 */
export function sortCount(from: i32, to: i32, strict: bool): f64 {
  const size = to - from;
  if (size < 2) return 0;
  if (size <= INSERTION_SORT) return insertionSortCount(from, size, strict);
  // Float32 data leave the low 29 bits zero, and a series' keys mostly share their exponent.
  const differ = toOrderedBits(key + ((<usize>from) << 3), bits, size);
  const end: u64 = differ == 0 ? 0 : 64 - clz(differ);
  const low: u64 = differ == 0 ? 0 : ctz(differ);
  // Keys at a cut other than 0 differ in all their bits (seven digits): sorted by their top
  // COARSE_BITS that differ, the few equal there are put in order by insertion (on the full
  // bits; both steps stable), or, when they are not few, sorted on every digit after all.
  const coarse = end > low + COARSE_BITS ? end - COARSE_BITS : low;
  let src = radixSort(coarse, end, differ, size);
  if (coarse > low && !settle(src, size, SETTLE_MOVES * size)) {
    // The passes moved the bits: taken again in the keys' order.
    toOrderedBits(key + ((<usize>from) << 3), bits, size);
    src = radixSort(low, end, differ, size);
  }
  let count = countReversed(src, size);
  for (let k = 0; k < size; k++) {
    const p = i32At(src, k);
    setF64(keyTmp, k, f64At(key, from + p));
    setI32(orderTmp, k, i32At(order, from + p));
  }
  if (!strict) count += reverseEqualRuns(size);
  memory.copy(key + ((<usize>from) << 3), keyTmp, (<usize>size) << 3);
  memory.copy(order + ((<usize>from) << 2), orderTmp, (<usize>size) << 2);
  return <f64>count;
}

/** sortCount of a few keys: by insertion, each move a pair reversed (a later key strictly smaller). */
function insertionSortCount(from: i32, size: i32, strict: bool): f64 {
  memory.copy(keyTmp, key + ((<usize>from) << 3), (<usize>size) << 3);
  memory.copy(orderTmp, order + ((<usize>from) << 2), (<usize>size) << 2);
  let count: i64 = 0;
  for (let j = 1; j < size; j++) {
    const k = f64At(keyTmp, j);
    if (f64At(keyTmp, j - 1) <= k) continue;
    const o = i32At(orderTmp, j);
    let i = j;
    do {
      setF64(keyTmp, i, f64At(keyTmp, i - 1));
      setI32(orderTmp, i, i32At(orderTmp, i - 1));
      i--;
    } while (i > 0 && f64At(keyTmp, i - 1) > k);
    setF64(keyTmp, i, k);
    setI32(orderTmp, i, o);
    count += j - i;
  }
  if (!strict) count += reverseEqualRuns(size);
  memory.copy(key + ((<usize>from) << 3), keyTmp, (<usize>size) << 3);
  memory.copy(order + ((<usize>from) << 2), orderTmp, (<usize>size) << 2);
  return <f64>count;
}

/**
 * The order-preserving unsigned bits of the f64 values[0..count) into out[0..count) (which
 * may be values itself): negatives flipped whole, positives with the sign set, −0 as 0.
 * Returns the bits in which any two of them differ.
 */
function toOrderedBits(values: usize, out: usize, count: i32): u64 {
  // Two at a time: + 0 turns −0 into 0; the sign spread over the bits flips a negative whole.
  const zero = f64x2.splat(0);
  const top = i64x2.splat(0x8000000000000000);
  let all = i64x2.splat(-1);
  let any = i64x2.splat(0);
  let i = 0;
  for (; i + 1 < count; i += 2) {
    const b = f64x2.add(v128.load(values + ((<usize>i) << 3)), zero);
    const o = v128.xor(b, v128.or(i64x2.shr_s(b, 63), top));
    v128.store(out + ((<usize>i) << 3), o);
    all = v128.and(all, o);
    any = v128.or(any, o);
  }
  let allBits = i64x2.extract_lane(all, 0) & i64x2.extract_lane(all, 1);
  let anyBits = i64x2.extract_lane(any, 0) | i64x2.extract_lane(any, 1);
  if (i < count) {
    const b = reinterpret<u64>(load<f64>(values + ((<usize>i) << 3)) + 0);
    const o = b ^ ((<u64>((<i64>b) >> 63)) | 0x8000000000000000);
    store<u64>(out + ((<usize>i) << 3), o);
    allBits &= o;
    anyBits |= o;
  }
  return allBits ^ anyBits;
}

/**
 * The positions 0..size in the order of their bits' digits from `from` up to `end` (LSD
 * radix, stable; a digit in which no key differs is skipped), each pass moving the bits with
 * their positions (sequential reads, no lookup through a position): position or
 * positionTmp, whichever holds them, with the bits in that order in sortedBits.
 */
function radixSort(from: u64, end: u64, differ: u64, size: i32): usize {
  let srcBits = bits;
  let dstBits = bitsTmp;
  let src = position;
  let dst = positionTmp;
  let first = true;
  // A digit's counts do not depend on the order: a sort of two digits (the coarse sort's usual)
  // counts both in one pass, the low one's into counts and the high one's after them.
  let digits = 0;
  let lowShift: u64 = 0;
  let highShift: u64 = 0;
  for (let shift = from; shift < end; shift += SORT_DIGIT_BITS) {
    if (((differ >> shift) & SORT_DIGIT_MASK) == 0) continue;
    if (digits++ == 0) lowShift = shift;
    else highShift = shift;
  }
  const both = digits == 2;
  if (both) {
    memory.fill(counts, 0, 2 * SORT_BUCKETS * 4);
    const high = counts + SORT_BUCKETS * 4;
    for (let k = 0; k < size; k++) {
      const b = load<u64>(srcBits + ((<usize>k) << 3));
      const atLow = counts + ((<usize>(<i32>((b >> lowShift) & SORT_DIGIT_MASK))) << 2);
      const atHigh = high + ((<usize>(<i32>((b >> highShift) & SORT_DIGIT_MASK))) << 2);
      store<i32>(atLow, load<i32>(atLow) + 1);
      store<i32>(atHigh, load<i32>(atHigh) + 1);
    }
  }
  let pass = 0;
  for (let shift = from; shift < end; shift += SORT_DIGIT_BITS) {
    if (((differ >> shift) & SORT_DIGIT_MASK) == 0) continue;
    const digitCounts = both && pass == 1 ? counts + SORT_BUCKETS * 4 : counts;
    if (!both) {
      memory.fill(counts, 0, SORT_BUCKETS * 4);
      for (let k = 0; k < size; k++) {
        const at = counts + ((<usize>(<i32>((load<u64>(srcBits + ((<usize>k) << 3)) >> shift) & SORT_DIGIT_MASK))) << 2);
        store<i32>(at, load<i32>(at) + 1);
      }
    }
    pass++;
    let sum = 0;
    for (let d = 0; d < SORT_BUCKETS; d++) {
      const n = i32At(digitCounts, d);
      setI32(digitCounts, d, sum);
      sum += n;
    }
    for (let k = 0; k < size; k++) {
      const b = load<u64>(srcBits + ((<usize>k) << 3));
      const at = digitCounts + ((<usize>(<i32>((b >> shift) & SORT_DIGIT_MASK))) << 2);
      const slot = load<i32>(at);
      store<i32>(at, slot + 1);
      store<u64>(dstBits + ((<usize>slot) << 3), b);
      // The first pass reads the keys in their own order: position k is k.
      setI32(dst, slot, first ? k : i32At(src, k));
    }
    let swap = src;
    src = dst;
    dst = swap;
    swap = srcBits;
    srcBits = dstBits;
    dstBits = swap;
    first = false;
  }
  if (first) for (let i = 0; i < size; i++) setI32(src, i, i);
  sortedBits = srcBits;
  return src;
}

/**
 * Insertion-sorts the positions sorted[0..size), with their bits in sortedBits, by those
 * bits (stable); false, leaving them part sorted, once past `cap` moves.
 */
function settle(sorted: usize, size: i32, cap: i32): bool {
  let moves = 0;
  for (let k = 1; k < size; k++) {
    const b = load<u64>(sortedBits + ((<usize>k) << 3));
    if (load<u64>(sortedBits + ((<usize>(k - 1)) << 3)) <= b) continue;
    const p = i32At(sorted, k);
    let i = k;
    while (i > 0) {
      const c = load<u64>(sortedBits + ((<usize>(i - 1)) << 3));
      if (c <= b) break;
      store<u64>(sortedBits + ((<usize>i) << 3), c);
      setI32(sorted, i, i32At(sorted, i - 1));
      i--;
    }
    store<u64>(sortedBits + ((<usize>i) << 3), b);
    setI32(sorted, i, p);
    moves += k - i;
    if (moves > cap) return false;
  }
  return true;
}

/** counts[d] = how many of the u64 values[0..size) have the 8-bit digit d at `shift`. */
function countDigits(values: usize, size: i32, shift: u64): void {
  memory.fill(counts, 0, BUCKETS * 4);
  for (let i = 0; i < size; i++) {
    const at = counts + ((<usize>(<i32>((load<u64>(values + ((<usize>i) << 3)) >> shift) & 255))) << 2);
    store<i32>(at, load<i32>(at) + 1);
  }
}

/**
 * Pairs reversed by the permutation sorted[0..size) of positions 0..size: for each position
 * in sorted order, those placed before it that lie after it. Up to BITSET_WORDS words of 64
 * positions: a bitset of the placed ones gives those after it in its own word, and a count
 * of placed points per word, one byte a word held in SIMD registers, those in the words
 * after (masked by word index and summed across lanes: no memory traffic and no branch that
 * depends on the data; a 1461-point sortCount takes 24 µs so, 30 µs with the counts in
 * memory, 55 µs with the Fenwick tree and its chains of dependent loads). A Fenwick tree
 * beyond.
 */
function countReversed(sorted: usize, size: i32): i64 {
  let count: i64 = 0;
  const words = (size + 63) >> 6;
  if (words > BITSET_WORDS) {
    memory.fill(tree, 0, (<usize>(size + 1)) << 2);
    for (let k = 0; k < size; k++) {
      const p = i32At(sorted, k);
      let notAfter = 0;
      for (let i = p + 1; i > 0; i -= i & -i) notAfter += i32At(tree, i);
      count += k - notAfter;
      for (let i = p + 1; i <= size; i += i & -i) setI32(tree, i, i32At(tree, i) + 1);
    }
    return count;
  }
  memory.fill(placed, 0, (<usize>words) << 3);
  // Placed points per word (≤ 64, a byte each): words 0-15, 16-31, 32-47 and 48-63.
  let c0 = i8x16.splat(0);
  let c1 = i8x16.splat(0);
  let c2 = i8x16.splat(0);
  let c3 = i8x16.splat(0);
  const w0 = i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const w1 = i8x16.add(w0, i8x16.splat(16));
  const w2 = i8x16.add(w0, i8x16.splat(32));
  const w3 = i8x16.add(w0, i8x16.splat(48));
  // Σ over the points of the placed ones in later words, in four i32 lanes (≤ size² / 2).
  let later = i32x4.splat(0);
  for (let k = 0; k < size; k++) {
    const p = i32At(sorted, k);
    const w = p >> 6;
    const at = placed + ((<usize>w) << 3);
    const word = load<u64>(at);
    const bit = u64(p & 63);
    // Bit p is not set yet: the word's bits from p up are those after it.
    count += i64(popcnt(word >> bit));
    store<u64>(at, word | (u64(1) << bit));
    const ws = i8x16.splat(i8(w));
    let sums = i16x8.extadd_pairwise_i8x16_u(v128.and(c0, i8x16.gt_u(w0, ws)));
    c0 = i8x16.sub(c0, i8x16.eq(w0, ws));
    if (words > 16) {
      sums = i16x8.add(sums, i16x8.extadd_pairwise_i8x16_u(v128.and(c1, i8x16.gt_u(w1, ws))));
      c1 = i8x16.sub(c1, i8x16.eq(w1, ws));
    }
    if (words > 32) {
      sums = i16x8.add(sums, i16x8.extadd_pairwise_i8x16_u(v128.and(c2, i8x16.gt_u(w2, ws))));
      sums = i16x8.add(sums, i16x8.extadd_pairwise_i8x16_u(v128.and(c3, i8x16.gt_u(w3, ws))));
      c2 = i8x16.sub(c2, i8x16.eq(w2, ws));
      c3 = i8x16.sub(c3, i8x16.eq(w3, ws));
    }
    later = i32x4.add(later, i32x4.extadd_pairwise_i16x8_u(sums));
  }
  const lanes = i64(i32x4.extract_lane(later, 0)) + i64(i32x4.extract_lane(later, 1));
  return count + lanes + i64(i32x4.extract_lane(later, 2)) + i64(i32x4.extract_lane(later, 3));
}

/** Reverses each run of equal keys in keyTmp[0..size) (orderTmp along); returns the pairs within the runs. */
function reverseEqualRuns(size: i32): i64 {
  let pairs: i64 = 0;
  for (let a = 0; a < size;) {
    let b = a + 1;
    while (b < size && f64At(keyTmp, b) == f64At(keyTmp, a)) b++;
    const run = b - a;
    if (run > 1) {
      pairs += (<i64>run * <i64>(run - 1)) / 2;
      // Equal, but 0 and −0 stay with their own order.
      for (let i = a, j = b - 1; i < j; i++, j--) {
        const ki = f64At(keyTmp, i);
        setF64(keyTmp, i, f64At(keyTmp, j));
        setF64(keyTmp, j, ki);
        const oi = i32At(orderTmp, i);
        setI32(orderTmp, i, i32At(orderTmp, j));
        setI32(orderTmp, j, oi);
      }
    }
    a = b;
  }
  return pairs;
}

/**
 * Re-sorts order (sorted at a cut where `below` pairs were below) to the cut at t by
 * insertion, each season alone, counting each pair it swaps into or out of x order; NaN once
 * past `cap` moves (given up). moves() tells the moves made.
 */
export function insertToCut(t: f64, segments: i32, cap: f64, below: f64): f64 {
  let count = <i64>below;
  let moves: i64 = 0;
  const limit = <i64>cap;
  for (let s = 0; s < segments; s++) {
    const from = i32At(segFrom, s);
    const to = i32At(segTo, s);
    for (let i = from; i < to; i++) {
      const o = i32At(order, i);
      setF64(key, i, f64At(y, o) - t * f64At(x, o));
    }
    for (let j = from + 1; j < to; j++) {
      const k = f64At(key, j);
      if (f64At(key, j - 1) <= k) continue;
      const b = i32At(order, j);
      // [from, j) is sorted: while the fourth key back is above k, the four move up one
      // together, and each lane counts the points a it passes that come before b in x.
      let i = j;
      let before = i32x4.splat(0);
      const bs = i32x4.splat(b);
      while (i - 4 >= from && f64At(key, i - 4) > k) {
        const at = i - 4;
        const a = v128.load(order + ((<usize>at) << 2));
        before = i32x4.sub(before, i32x4.lt_s(a, bs));
        const k0 = v128.load(key + ((<usize>at) << 3));
        const k1 = v128.load(key + ((<usize>at) << 3) + 16);
        v128.store(order + ((<usize>at) << 2) + 4, a);
        v128.store(key + ((<usize>at) << 3) + 8, k0);
        v128.store(key + ((<usize>at) << 3) + 24, k1);
        i = at;
      }
      // b passes each a: out of x order when a comes first in x (+1), back in order else (−1).
      const passed = j - i;
      const ahead =
        i32x4.extract_lane(before, 0) + i32x4.extract_lane(before, 1) + i32x4.extract_lane(before, 2) + i32x4.extract_lane(before, 3);
      count += i64(2 * ahead - passed);
      moves += passed;
      while (i > from && f64At(key, i - 1) > k) {
        const a = i32At(order, i - 1);
        count += a < b ? 1 : -1;
        setF64(key, i, f64At(key, i - 1));
        setI32(order, i, a);
        i--;
        moves++;
      }
      setF64(key, i, k);
      setI32(order, i, b);
      if (moves > limit) {
        moved = <f64>moves;
        return NaN;
      }
    }
  }
  moved = <f64>moves;
  return <f64>count;
}

/**
 * About how many moves insertToCut(t) would make, from `samples` points of each season
 * spread over the order: a point's key at the order's cut is at most `reach` (|t − cut| times
 * the widest x span) below that of any point that passes it on the way to t, so the points
 * after it that pass it lie within that reach and are counted; their total, scaled up to
 * all points, estimates the moves (all of them: every pair that crosses is counted once, at
 * the point it passes).
 */
export function crossingsAhead(t: f64, reach: f64, segments: i32, samples: i32): f64 {
  let total: f64 = 0;
  for (let s = 0; s < segments; s++) {
    const from = i32At(segFrom, s);
    const to = i32At(segTo, s);
    const size = to - from;
    const taken = min(samples, size);
    let ahead = 0;
    for (let k = 0; k < taken; k++) {
      const r = from + <i32>((<i64>(2 * k + 1) * <i64>size) / (2 * <i64>taken));
      const a = i32At(order, r);
      const ka = f64At(key, r);
      const kt = f64At(y, a) - t * f64At(x, a);
      for (let q = r + 1; q < to && f64At(key, q) - ka <= reach; q++) {
        const b = i32At(order, q);
        if (f64At(y, b) - t * f64At(x, b) < kt) ahead++;
      }
    }
    total += (<f64>ahead * <f64>size) / <f64>taken;
  }
  return total;
}

/** The moves the last insertToCut made. */
export function moves(): f64 {
  return moved;
}

/**
 * Insertion-sorts a copy of order (keyTmp, orderTmp), each season alone, by its key at cut t,
 * listing the slope of every pair this reverses in candidates as far as they hold them:
 * (y_j − y_i)/(x_j − x_i) with i before j in x order. Returns how many there are, or, once
 * past `limit`, stops and returns the count so far.
 */
export function listCrossings(t: f64, segments: i32, limit: f64): f64 {
  return crossingsTo(t, segments, limit, 0, true);
}

/**
 * The listing of the last listCrossings (or extendCrossings) taken on from its cut to t:
 * the copy re-sorted by its keys at t, the slopes of the pairs this reverses listed after the
 * `listed` there already. Returns the count of all of them (stopping, likewise, past
 * `limit`). Those listed are the pairs a listing from the first cut to t would list, each
 * once: the cuts lie far apart against the keys' rounding, so a pair's order is uncertain at
 * one cut at most and changes once on the way, in one step or the other.
 */
export function extendCrossings(t: f64, segments: i32, limit: f64, listed: f64): f64 {
  return crossingsTo(t, segments, limit, <i64>listed, false);
}

function crossingsTo(t: f64, segments: i32, limit: f64, listed: i64, fresh: bool): f64 {
  let count = listed;
  for (let s = 0; s < segments; s++) {
    const from = i32At(segFrom, s);
    const to = i32At(segTo, s);
    // A season's first points one by one, then each point against the four before it held in
    // registers (lo: keys j − 4 and j − 3, hi: j − 2 and j − 1, points: those four): the keys
    // before it that are greater, a suffix of them, move up one and are listed, with no branch
    // that depends on the data (the insertion's branches, mispredicted about once a point,
    // were two thirds of the listing's time); when all four move, the insertion goes on in
    // memory. Pairs are listed as points (a | b << 32) and their slopes taken at the end.
    const source = fresh ? order : orderTmp;
    const head = min(from + 4, to);
    for (let j = from; j < head; j++) {
      const b = i32At(source, j);
      setI32(orderTmp, j, b);
      setF64(keyTmp, j, cutKey(b, t));
      count = insertListing(j, from, count);
      if (<f64>count > limit) return slopesOf(listed, count);
    }
    if (head == to) continue;
    let lo = v128.load(keyTmp + ((<usize>from) << 3));
    let hi = v128.load(keyTmp + ((<usize>(from + 2)) << 3));
    let points = v128.load(orderTmp + ((<usize>from) << 2));
    const none = i64x2.splat(0);
    for (let j = from + 4; j < to; j++) {
      const b = i32At(source, j);
      const k = cutKey(b, t);
      setI32(orderTmp, j, b);
      setF64(keyTmp, j, k);
      const ks = f64x2.splat(k);
      const aboveLo = f64x2.gt(lo, ks);
      const aboveHi = f64x2.gt(hi, ks);
      const moves = popcnt(i64x2.bitmask(aboveLo) | (i64x2.bitmask(aboveHi) << 2));
      if (moves == 4 || count + 4 > capacity) {
        windowTo(j - 4, lo, hi, points);
        count = insertListing(j, from, count);
        lo = v128.load(keyTmp + ((<usize>(j - 3)) << 3));
        hi = v128.load(keyTmp + ((<usize>(j - 1)) << 3));
        points = v128.load(orderTmp + ((<usize>(j - 3)) << 2));
      } else {
        // The pairs (j − 1, j), (j − 2, j), ...: the first `moves` of them count.
        const bs = i32x4.splat(b);
        const at = candidates + ((<usize>count) << 3);
        v128.store(at, v128.shuffle<i32>(points, bs, 3, 4, 2, 4));
        v128.store(at + 16, v128.shuffle<i32>(points, bs, 1, 4, 0, 4));
        count += moves;
        // j − 4 leaves the window as it was (at most three moved). Position p of j − 3 .. j
        // takes the key before it if that one moved, else k if its own moved, else keeps its own.
        store<f64>(keyTmp + ((<usize>(j - 4)) << 3), f64x2.extract_lane(lo, 0));
        store<i32>(orderTmp + ((<usize>(j - 4)) << 2), i32x4.extract_lane(points, 0));
        const ownLo = v128.shuffle<f64>(lo, hi, 1, 2);
        const ownHi = v128.shuffle<f64>(hi, ks, 1, 2);
        const ownAboveLo = v128.shuffle<i64>(aboveLo, aboveHi, 1, 2);
        const ownAboveHi = v128.shuffle<i64>(aboveHi, none, 1, 2);
        const before = v128.shuffle<i32>(aboveLo, aboveHi, 0, 2, 4, 6);
        const own = v128.shuffle<i32>(before, none, 1, 2, 3, 4);
        const newLo = v128.bitselect(lo, v128.bitselect(ks, ownLo, ownAboveLo), aboveLo);
        hi = v128.bitselect(hi, v128.bitselect(ks, ownHi, ownAboveHi), aboveHi);
        lo = newLo;
        points = v128.bitselect(points, v128.bitselect(bs, v128.shuffle<i32>(points, bs, 1, 2, 3, 4), own), before);
      }
      if (<f64>count > limit) {
        windowTo(j - 3, lo, hi, points);
        return slopesOf(listed, count);
      }
    }
    windowTo(to - 4, lo, hi, points);
  }
  return slopesOf(listed, count);
}

/** The window's keys and points back in keyTmp and orderTmp, from position p. */
function windowTo(p: i32, lo: v128, hi: v128, points: v128): void {
  v128.store(keyTmp + ((<usize>p) << 3), lo);
  v128.store(keyTmp + ((<usize>(p + 2)) << 3), hi);
  v128.store(orderTmp + ((<usize>p) << 2), points);
}

/**
 * Inserts point j into the sorted keyTmp/orderTmp[from..j), listing each pair it passes (as
 * its two points, as far as candidates hold them); returns the count with them.
 */
function insertListing(j: i32, from: i32, listed: i64): i64 {
  let count = listed;
  const k = f64At(keyTmp, j);
  const b = i32At(orderTmp, j);
  let i = j - 1;
  while (i >= from && f64At(keyTmp, i) > k) {
    const a = i32At(orderTmp, i);
    if (count < capacity) store<u64>(candidates + ((<usize>count) << 3), (<u64>(<u32>a)) | ((<u64>b) << 32));
    count++;
    setF64(keyTmp, i + 1, f64At(keyTmp, i));
    setI32(orderTmp, i + 1, a);
    i--;
  }
  setF64(keyTmp, i + 1, k);
  setI32(orderTmp, i + 1, b);
  return count;
}

/**
 * The listed pairs candidates[from..count) (as far as they hold them) turned into their
 * slopes, (y_b − y_a)/(x_b − x_a) (the same double either way round); returns count.
 */
function slopesOf(from: i64, count: i64): f64 {
  const end = min(count, capacity);
  for (let i = from; i < end; i++) {
    const at = candidates + ((<usize>i) << 3);
    const pair = load<u64>(at);
    const a = <i32>(<u32>pair);
    const b = <i32>(pair >> 32);
    store<f64>(at, (f64At(y, b) - f64At(y, a)) / (f64At(x, b) - f64At(x, a)));
  }
  return <f64>count;
}

/**
 * The ranks low ≤ high (high ≤ low + 1) of candidates[0..count) into ranked(0) and
 * ranked(1); leaves candidates as order-preserving bits, part of them moved. A radix select:
 * the values' bits counted 8 at a time from the top bit in which any differ, only the bucket
 * holding both ranks kept (ranks in two buckets are the largest of one and the smallest of
 * the next), until few are left to sort by insertion; about 3 passes over the candidates and
 * no data-dependent branch in them (the Floyd-Rivest selection it replaced took 10 ns a
 * candidate in its partitions' branches). −0 counts as 0.
 */
export function selectRanks(count: i32, low: i32, high: i32): void {
  const differ = toOrderedBits(candidates, candidates, count);
  let size = count;
  let lo = low;
  let hi = high;
  // Rounds from the top differing bit down, 8 bits each (the last may start at bit 0 and
  // take bits already shared), keeping the one bucket that holds both ranks.
  let top = differ == 0 ? 0 : <i32>(64 - clz(differ));
  while (size > SORTED_SELECTION && top > 0) {
    const shift = <u64>max(top - <i32>DIGIT_BITS, 0);
    countDigits(candidates, size, shift);
    // The buckets of the two ranks, and how many lie below the first.
    let below = 0;
    let first = 0;
    while (below + i32At(counts, first) <= lo) below += i32At(counts, first++);
    let last = first;
    let through = below + i32At(counts, first);
    while (through <= hi) through += i32At(counts, ++last);
    if (last != first) {
      // Then lo is the largest in its bucket and hi the smallest in its own.
      let largest: u64 = 0;
      let smallest: u64 = ~(<u64>0);
      for (let i = 0; i < size; i++) {
        const b = load<u64>(candidates + ((<usize>i) << 3));
        const d = <i32>((b >> shift) & 255);
        if (d == first && b > largest) largest = b;
        if (d == last && b < smallest) smallest = b;
      }
      rankedLow = valueOfBits(largest);
      rankedHigh = valueOfBits(smallest);
      return;
    }
    let kept = 0;
    for (let i = 0; i < size; i++) {
      const b = load<u64>(candidates + ((<usize>i) << 3));
      const d = <i32>((b >> shift) & 255);
      store<u64>(candidates + ((<usize>kept) << 3), b);
      kept += d == first ? 1 : 0;
    }
    size = kept;
    lo -= below;
    hi -= below;
    top = <i32>shift;
  }
  for (let k = 1; k < size; k++) {
    const b = load<u64>(candidates + ((<usize>k) << 3));
    let i = k;
    for (; i > 0 && load<u64>(candidates + ((<usize>(i - 1)) << 3)) > b; i--) {
      store<u64>(candidates + ((<usize>i) << 3), load<u64>(candidates + ((<usize>(i - 1)) << 3)));
    }
    store<u64>(candidates + ((<usize>i) << 3), b);
  }
  rankedLow = valueOfBits(load<u64>(candidates + ((<usize>lo) << 3)));
  rankedHigh = valueOfBits(load<u64>(candidates + ((<usize>hi) << 3)));
}

/** The f64 whose order-preserving bits (toOrderedBits) are b. */
function valueOfBits(b: u64): f64 {
  return reinterpret<f64>(b >> 63 ? b ^ 0x8000000000000000 : ~b);
}

let rankedLow: f64 = 0;
let rankedHigh: f64 = 0;

/** The slopes selectRanks found: 0 the lower rank's, 1 the higher's. */
export function ranked(which: i32): f64 {
  return which == 0 ? rankedLow : rankedHigh;
}
