/**
 * The output statistics' per-block loops (src/analysis/statistics.ts and histogram.ts):
 * count, Σ(x−K), Σ(x−K)², min and max of a block's valid values (neither NaN nor nodata), in
 * four SIMD lanes; and each valid value's bin of the fine histogram counted.
 *
 * Memory is the caller's (imported): `values` (f32 or f64), `out` (5 f64) and `tally` (four
 * i32 per bin) are byte offsets into it.
 */
import { pairAt, validPair, valueAt } from "./values";

function blockSums<T>(values: usize, length: i32, nodata: f64, k: f64, out: usize): void {
  const nd = f64x2.splat(nodata);
  const kk = f64x2.splat(k);
  const one = f64x2.splat(1);
  const inf = f64x2.splat(Infinity);
  const ninf = f64x2.splat(-Infinity);
  // Two accumulators of two lanes each, so consecutive additions do not wait on each other.
  let n0 = f64x2.splat(0);
  let n1 = f64x2.splat(0);
  let a0 = f64x2.splat(0);
  let a1 = f64x2.splat(0);
  let b0 = f64x2.splat(0);
  let b1 = f64x2.splat(0);
  let lo0 = inf;
  let lo1 = inf;
  let hi0 = ninf;
  let hi1 = ninf;
  let i = 0;
  for (; i + 3 < length; i += 4) {
    const x = pairAt<T>(values, <usize>i);
    const y = pairAt<T>(values, <usize>i + 2);
    const vx = validPair(x, nd);
    const vy = validPair(y, nd);
    const dx = v128.and(f64x2.sub(x, kk), vx);
    const dy = v128.and(f64x2.sub(y, kk), vy);
    n0 = f64x2.add(n0, v128.and(one, vx));
    n1 = f64x2.add(n1, v128.and(one, vy));
    a0 = f64x2.add(a0, dx);
    a1 = f64x2.add(a1, dy);
    b0 = f64x2.add(b0, f64x2.mul(dx, dx));
    b1 = f64x2.add(b1, f64x2.mul(dy, dy));
    lo0 = f64x2.pmin(lo0, v128.bitselect(x, inf, vx));
    lo1 = f64x2.pmin(lo1, v128.bitselect(y, inf, vy));
    hi0 = f64x2.pmax(hi0, v128.bitselect(x, ninf, vx));
    hi1 = f64x2.pmax(hi1, v128.bitselect(y, ninf, vy));
  }
  const n = f64x2.add(n0, n1);
  const a = f64x2.add(a0, a1);
  const b = f64x2.add(b0, b1);
  const lo = f64x2.pmin(lo0, lo1);
  const hi = f64x2.pmax(hi0, hi1);
  let count = f64x2.extract_lane(n, 0) + f64x2.extract_lane(n, 1);
  let s1 = f64x2.extract_lane(a, 0) + f64x2.extract_lane(a, 1);
  let s2 = f64x2.extract_lane(b, 0) + f64x2.extract_lane(b, 1);
  const lane1Low = f64x2.extract_lane(lo, 1);
  const lane1High = f64x2.extract_lane(hi, 1);
  let lowest = f64x2.extract_lane(lo, 0);
  let highest = f64x2.extract_lane(hi, 0);
  if (lane1Low < lowest) lowest = lane1Low;
  if (lane1High > highest) highest = lane1High;
  for (; i < length; i++) {
    const x = valueAt<T>(values, <usize>i);
    if (x != x || x == nodata) continue;
    const d = x - k;
    count += 1;
    s1 += d;
    s2 += d * d;
    if (x < lowest) lowest = x;
    if (x > highest) highest = x;
  }
  store<f64>(out, count);
  store<f64>(out + 8, s1);
  store<f64>(out + 16, s2);
  store<f64>(out + 24, lowest);
  store<f64>(out + 32, highest);
}

/**
 * tally[(x·scale − origin) truncated] += 1 for each valid x (the caller's bins hold every
 * one). Four tallies of `bins` each, taken in turn: neighbouring values often share a bin,
 * and one tally's increments would each wait for the last; the caller adds them up.
 */
function binValues<T>(values: usize, length: i32, nodata: f64, scale: f64, origin: f64, tally: usize, bins: i32): void {
  const nd = f64x2.splat(nodata);
  const sc = f64x2.splat(scale);
  const or = f64x2.splat(origin);
  const t1 = tally + ((<usize>bins) << 2);
  const t2 = t1 + ((<usize>bins) << 2);
  const t3 = t2 + ((<usize>bins) << 2);
  let i = 0;
  for (; i + 3 < length; i += 4) {
    const x = pairAt<T>(values, <usize>i);
    const y = pairAt<T>(values, <usize>i + 2);
    if (!i64x2.all_true(v128.and(validPair(x, nd), validPair(y, nd)))) {
      for (let j = i; j < i + 4; j++) binOne<T>(values, j, nodata, scale, origin, tally);
      continue;
    }
    const bx = i32x4.trunc_sat_f64x2_s_zero(f64x2.sub(f64x2.mul(x, sc), or));
    const by = i32x4.trunc_sat_f64x2_s_zero(f64x2.sub(f64x2.mul(y, sc), or));
    const a = tally + ((<usize>i32x4.extract_lane(bx, 0)) << 2);
    const b = t1 + ((<usize>i32x4.extract_lane(bx, 1)) << 2);
    const c = t2 + ((<usize>i32x4.extract_lane(by, 0)) << 2);
    const d = t3 + ((<usize>i32x4.extract_lane(by, 1)) << 2);
    store<i32>(a, load<i32>(a) + 1);
    store<i32>(b, load<i32>(b) + 1);
    store<i32>(c, load<i32>(c) + 1);
    store<i32>(d, load<i32>(d) + 1);
  }
  for (; i < length; i++) binOne<T>(values, i, nodata, scale, origin, tally);
}

function binOne<T>(values: usize, i: i32, nodata: f64, scale: f64, origin: f64, tally: usize): void {
  const x = valueAt<T>(values, <usize>i);
  if (x != x || x == nodata) return;
  const at = tally + ((<usize>(<i32>(x * scale - origin))) << 2);
  store<i32>(at, load<i32>(at) + 1);
}

export function blockSumsF32(values: usize, length: i32, nodata: f64, k: f64, out: usize): void {
  blockSums<f32>(values, length, nodata, k, out);
}

export function blockSumsF64(values: usize, length: i32, nodata: f64, k: f64, out: usize): void {
  blockSums<f64>(values, length, nodata, k, out);
}

export function binValuesF32(values: usize, length: i32, nodata: f64, scale: f64, origin: f64, tally: usize, bins: i32): void {
  binValues<f32>(values, length, nodata, scale, origin, tally, bins);
}

export function binValuesF64(values: usize, length: i32, nodata: f64, scale: f64, origin: f64, tally: usize, bins: i32): void {
  binValues<f64>(values, length, nodata, scale, origin, tally, bins);
}
