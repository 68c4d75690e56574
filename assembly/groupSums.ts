/**
 * The streamed anomaly's pass-0 sums (src/analysis/groupMoments.ts, GroupMoments.addRun) over
 * a segment of a run whose slices all belong to one group: per pixel, in slice order, the
 * same operations as the JavaScript loop it replaces (the sums bit for bit the same), two
 * pixels per 128-bit lane pair, each pixel's sums in registers through the segment.
 *
 * Memory is the caller's (imported): every argument named like an array is a byte offset
 * into it, already at the group's row. Per pixel i: shift[i] (f64 K: the group's own with
 * s, else the pixel's; NaN until a valid value comes), s1[i] = Σ(x−K), s2[i] = Σ(x−K)² (f64;
 * s2 = 0: not kept), n[i] (u32), bad[i] (u8, 1 once nodata was met). values holds `slices`
 * slices of `pixels` values each (f32 or f64).
 */
import { pairAt, validPair, valueAt } from "./lib/values";

function addSegment<T>(
  values: usize,
  slices: i32,
  pixels: i32,
  nodata: f64,
  shift: usize,
  s1: usize,
  s2: usize,
  n: usize,
  bad: usize,
): void {
  const nd = f64x2.splat(nodata);
  const stride = <usize>pixels;
  const withSd = s2 != 0;
  let i = 0;
  for (; i + 1 < pixels; i += 2) {
    const o = (<usize>i) << 3;
    const k = v128.load(shift + o);
    // A pair whose K are set and whose segment is all valid goes the vector way.
    if (f64x2.extract_lane(k, 0) == f64x2.extract_lane(k, 0) && f64x2.extract_lane(k, 1) == f64x2.extract_lane(k, 1)) {
      let a = v128.load(s1 + o);
      let b = withSd ? v128.load(s2 + o) : f64x2.splat(0);
      let valid = i64x2.splat(-1);
      for (let s = 0; s < slices; s++) {
        const x = pairAt<T>(values, <usize>s * stride + <usize>i);
        valid = v128.and(valid, validPair(x, nd));
        const d = f64x2.sub(x, k);
        a = f64x2.add(a, d);
        if (withSd) b = f64x2.add(b, f64x2.mul(d, d));
      }
      if (i64x2.all_true(valid)) {
        v128.store(s1 + o, a);
        if (withSd) v128.store(s2 + o, b);
        const c = n + ((<usize>i) << 2);
        store<u32>(c, load<u32>(c) + <u32>slices);
        store<u32>(c + 4, load<u32>(c + 4) + <u32>slices);
        continue;
      }
    }
    addPixel<T>(values, slices, stride, nodata, <usize>i, shift, s1, s2, n, bad);
    addPixel<T>(values, slices, stride, nodata, <usize>i + 1, shift, s1, s2, n, bad);
  }
  if (i < pixels) addPixel<T>(values, slices, stride, nodata, <usize>i, shift, s1, s2, n, bad);
}

/** One pixel through the segment, value by value (its first value, a gap). */
function addPixel<T>(
  values: usize,
  slices: i32,
  stride: usize,
  nodata: f64,
  i: usize,
  shift: usize,
  s1: usize,
  s2: usize,
  n: usize,
  bad: usize,
): void {
  const o = i << 3;
  for (let s = 0; s < slices; s++) {
    const x = valueAt<T>(values, <usize>s * stride + i);
    if (x != x || x == nodata) {
      store<u8>(bad + i, 1);
      continue;
    }
    let k = load<f64>(shift + o);
    if (k != k) {
      k = x;
      store<f64>(shift + o, x);
    }
    const d = x - k;
    store<f64>(s1 + o, load<f64>(s1 + o) + d);
    if (s2 != 0) store<f64>(s2 + o, load<f64>(s2 + o) + d * d);
    store<u32>(n + (i << 2), load<u32>(n + (i << 2)) + 1);
  }
}

export function addSegmentF32(
  values: usize,
  slices: i32,
  pixels: i32,
  nodata: f64,
  shift: usize,
  s1: usize,
  s2: usize,
  n: usize,
  bad: usize,
): void {
  addSegment<f32>(values, slices, pixels, nodata, shift, s1, s2, n, bad);
}

export function addSegmentF64(
  values: usize,
  slices: i32,
  pixels: i32,
  nodata: f64,
  shift: usize,
  s1: usize,
  s2: usize,
  n: usize,
  bad: usize,
): void {
  addSegment<f64>(values, slices, pixels, nodata, shift, s1, s2, n, bad);
}
