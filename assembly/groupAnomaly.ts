/**
 * The anomaly of a time-whole tile (src/analysis/anomaly.ts, anomalyTile) against each
 * group's median or mean, four pixels at a time in SIMD lanes, its slices then replaced by
 * their anomalies in place.
 * - Medians: each group's values of four pixels gathered into a column of f32x4 (NaN and
 *   nodata as +Infinity, which sorts them last), sorted by a sorting network
 *   (src/kernels/sortingNetwork.ts; its comparators given as byte offsets into the column),
 *   and each lane's median read at its own count of valid values. A network's comparisons do
 *   not depend on the values, where a quickselect mispredicts about every other one, and four
 *   pixels share each.
 * - Means (and population standard deviations): each pixel's valid values summed in f64 in
 *   the group's order, as the JavaScript loop sums them, so µ and s are its values bit for bit.
 *
 * Memory is the caller's (imported): `values` is the tile (f32, slice after slice of
 * `pixels`), `rows` the group's slices (i32), `ref` and `sd` slices of f64 (µ or m; s),
 * `column` room for a group's f32x4 values, the networks (u32 byte-offset pairs) as the
 * caller wrote them. Chunks read into the tile are unshuffled here (src/kernels/arena.ts).
 */

export { heapBase } from "./lib/heap";
export { unshuffle } from "./lib/unshuffle";
import { apply } from "./lib/anomaly";

const INF = f32x4.splat(Infinity);

/** Lanes 0 .. lanes-1 of the four f32 at `at` (lanes < 4 at a tile's last pixels), +Infinity beyond. */
function partial(at: usize, lanes: i32): v128 {
  let x = f32x4.replace_lane(INF, 0, load<f32>(at));
  if (lanes > 1) x = f32x4.replace_lane(x, 1, load<f32>(at + 4));
  if (lanes > 2) x = f32x4.replace_lane(x, 2, load<f32>(at + 8));
  return x;
}

/** Pixels p .. p+3 of the group's j-th slice `rows[j]` (slices `stride` bytes apart), +Infinity beyond `lanes`. */
function groupValues(values: usize, rows: usize, j: i32, stride: usize, p: i32, lanes: i32): v128 {
  const at = values + <usize>load<i32>(rows + ((<usize>j) << 2)) * stride + ((<usize>p) << 2);
  return lanes == 4 ? v128.load(at) : partial(at, lanes);
}

/** Runs a network's `count` comparators (pairs of byte offsets into `column`). */
function sort(column: usize, network: usize, count: i32): void {
  for (let c = 0; c < count; c++) {
    const a = column + <usize>load<u32>(network + ((<usize>c) << 3));
    const b = column + <usize>load<u32>(network + ((<usize>c) << 3) + 4);
    const x = v128.load(a);
    const y = v128.load(b);
    // pmin(x, y) = y < x ? y : x and pmax(y, x) = y < x ? x : y: a swap or nothing, never a value twice.
    v128.store(a, f32x4.pmin(x, y));
    v128.store(b, f32x4.pmax(y, x));
  }
}

/** The median of lane `lane` of a sorted column whose first n values are valid (NaN if none, or if any is missing and that voids it). */
function medianOf(column: usize, lane: usize, n: i32, count: i32, ignoreNoData: bool): f64 {
  if (n == 0 || (n < count && !ignoreNoData)) return NaN;
  const k = <usize>(n >> 1);
  const upper = <f64>load<f32>(column + (k << 4) + (lane << 2));
  if (n & 1) return upper;
  return (<f64>load<f32>(column + ((k - 1) << 4) + (lane << 2)) + upper) / 2;
}

/**
 * ref[p] = the median of pixel p over the group's `count` slices `rows`, for every pixel.
 * `complete` is a network that puts the two middle positions of `count` values in place
 * (for four pixels with no value missing), `every` one that sorts all `count`. A value is
 * missing when it is NaN or equals `nodata` (NaN when the nodata value is no f32).
 */
export function groupMediansF32(
  values: usize,
  pixels: i32,
  rows: usize,
  count: i32,
  complete: usize,
  completeCount: i32,
  every: usize,
  everyCount: i32,
  column: usize,
  nodata: f32,
  ignoreNoData: bool,
  ref: usize,
): void {
  const nd = f32x4.splat(nodata);
  const whole = i32x4.splat(count);
  const stride = (<usize>pixels) << 2;
  for (let p = 0; p < pixels; p += 4) {
    const lanes = min(4, pixels - p);
    let valid = i32x4.splat(0);
    for (let j = 0; j < count; j++) {
      const x = groupValues(values, rows, j, stride, p, lanes);
      const ok = v128.and(f32x4.eq(x, x), f32x4.ne(x, nd));
      valid = i32x4.sub(valid, ok); // a true lane is -1
      v128.store(column + ((<usize>j) << 4), v128.bitselect(x, INF, ok));
    }
    if (i32x4.all_true(i32x4.eq(valid, whole))) sort(column, complete, completeCount);
    else sort(column, every, everyCount);
    const out = ref + ((<usize>p) << 3);
    store<f64>(out, medianOf(column, 0, i32x4.extract_lane(valid, 0), count, ignoreNoData));
    if (lanes > 1) store<f64>(out + 8, medianOf(column, 1, i32x4.extract_lane(valid, 1), count, ignoreNoData));
    if (lanes > 2) store<f64>(out + 16, medianOf(column, 2, i32x4.extract_lane(valid, 2), count, ignoreNoData));
    if (lanes > 3) store<f64>(out + 24, medianOf(column, 3, i32x4.extract_lane(valid, 3), count, ignoreNoData));
  }
}

/**
 * ref[p] = µ of pixel p over the group's `count` slices `rows` (its valid values' sum over
 * their number, NaN when none, or when one is missing and that voids it), and with `withSd`
 * sd[p] = s, the population standard deviation about µ. Missing: NaN or `nodata`.
 */
export function groupMeansF32(
  values: usize,
  pixels: i32,
  rows: usize,
  count: i32,
  nodata: f32,
  ignoreNoData: bool,
  withSd: bool,
  ref: usize,
  sd: usize,
): void {
  const nd = f32x4.splat(nodata);
  const stride = (<usize>pixels) << 2;
  const zero = f32x4.splat(0);
  const none = f64x2.splat(NaN);
  for (let p = 0; p < pixels; p += 4) {
    const lanes = min(4, pixels - p);
    let lo = f64x2.splat(0);
    let hi = f64x2.splat(0);
    let valid = i32x4.splat(0);
    let missing = i32x4.splat(0);
    for (let j = 0; j < count; j++) {
      const x = groupValues(values, rows, j, stride, p, lanes);
      const ok = v128.and(f32x4.eq(x, x), f32x4.ne(x, nd));
      valid = i32x4.sub(valid, ok); // a true lane is -1
      missing = v128.or(missing, v128.not(ok));
      // A missing value adds +0, which leaves any sum as it was.
      const kept = v128.bitselect(x, zero, ok);
      lo = f64x2.add(lo, f64x2.promote_low_f32x4(kept));
      hi = f64x2.add(hi, f64x2.promote_low_f32x4(v128.shuffle<i32>(kept, kept, 2, 3, 2, 3)));
    }
    const n = f64x2.convert_low_i32x4_s(valid);
    const m = f64x2.convert_low_i32x4_s(v128.shuffle<i32>(valid, valid, 2, 3, 2, 3));
    // Void: no valid value, or one missing when that voids the group.
    const voidAll = ignoreNoData ? i32x4.eq(valid, i32x4.splat(0)) : v128.or(i32x4.eq(valid, i32x4.splat(0)), missing);
    const voidLo = i64x2.extend_low_i32x4_s(voidAll);
    const voidHi = i64x2.extend_high_i32x4_s(voidAll);
    const meanLo = v128.bitselect(none, f64x2.div(lo, n), voidLo);
    const meanHi = v128.bitselect(none, f64x2.div(hi, m), voidHi);
    storeLanes(ref + ((<usize>p) << 3), meanLo, meanHi, lanes);
    if (!withSd) continue;
    let dlo = f64x2.splat(0);
    let dhi = f64x2.splat(0);
    for (let j = 0; j < count; j++) {
      const x = groupValues(values, rows, j, stride, p, lanes);
      const ok = v128.and(f32x4.eq(x, x), f32x4.ne(x, nd));
      const xlo = f64x2.promote_low_f32x4(x);
      const xhi = f64x2.promote_low_f32x4(v128.shuffle<i32>(x, x, 2, 3, 2, 3));
      const a = f64x2.sub(xlo, meanLo);
      const b = f64x2.sub(xhi, meanHi);
      // A missing value adds +0 (its square might be NaN or Infinity otherwise).
      dlo = f64x2.add(dlo, v128.bitselect(f64x2.mul(a, a), f64x2.splat(0), i64x2.extend_low_i32x4_s(ok)));
      dhi = f64x2.add(dhi, v128.bitselect(f64x2.mul(b, b), f64x2.splat(0), i64x2.extend_high_i32x4_s(ok)));
    }
    storeLanes(sd + ((<usize>p) << 3), f64x2.sqrt(f64x2.div(dlo, n)), f64x2.sqrt(f64x2.div(dhi, m)), lanes);
  }
}

/** Lanes 0 .. lanes-1 of (lo, hi) as f64 at `at`. */
function storeLanes(at: usize, lo: v128, hi: v128, lanes: i32): void {
  store<f64>(at, f64x2.extract_lane(lo, 0));
  if (lanes > 1) store<f64>(at + 8, f64x2.extract_lane(lo, 1));
  if (lanes > 2) store<f64>(at + 16, f64x2.extract_lane(hi, 0));
  if (lanes > 3) store<f64>(at + 24, f64x2.extract_lane(hi, 1));
}

/** Each of the group's slices `rows` replaced by its anomalies against ref (and sd; lib/anomaly.ts's apply, f32 to f32). */
export function applyRowsF32(
  kind: i32,
  values: usize,
  pixels: i32,
  rows: usize,
  count: i32,
  nodata: f64,
  ref: usize,
  sd: usize,
  limit: f64,
): void {
  const stride = (<usize>pixels) << 2;
  for (let j = 0; j < count; j++) {
    const at = values + <usize>load<i32>(rows + ((<usize>j) << 2)) * stride;
    apply<f32, f32>(kind, at, at, pixels, nodata, ref, sd, limit);
  }
}
