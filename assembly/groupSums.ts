/**
 * The streamed anomaly's pass-0 sums (src/analysis/groupMoments.ts, GroupMoments.addRun) over
 * a segment of a run whose slices all belong to one group: per pixel, in slice order, the
 * same operations as the JavaScript loop it replaces (the sums bit for bit the same), two
 * pixels per 128-bit lane pair, each pixel's sums in registers through the segment.
 *
 * Memory is the caller's (imported): every argument named like an array is a byte offset
 * into it. The sums, bound once (bind), per cell (group g, pixel i: cell g·pixels + i):
 * shift (f64 K, per cell when `shiftPerCell`, else per pixel; NaN until a valid value comes),
 * s1 = Σ(x−K), s2 = Σ(x−K)² (f64; s2 = 0: not kept), n (u32), bad (u8, 1 once nodata was
 * met). A segment: `values` holds `slices` slices of `pixels` values each (f32 or f64).
 */

export { heapBase } from "./lib/heap";
export { unshuffle } from "./lib/unshuffle";
import { bothSet, pairAt, validPair, valueAt } from "./lib/values";

let shiftBase: usize = 0;
let shiftPerCell = false;
let s1Base: usize = 0;
let s2Base: usize = 0;
let nBase: usize = 0;
let badBase: usize = 0;

/** Where the sums lie. */
export function bind(shiftAt: usize, perCell: bool, s1At: usize, s2At: usize, nAt: usize, badAt: usize): void {
  shiftBase = shiftAt;
  shiftPerCell = perCell;
  s1Base = s1At;
  s2Base = s2At;
  nBase = nAt;
  badBase = badAt;
}

/** A segment of slices all in the group whose first cell is `cell`. */
function addSegment<T>(values: usize, slices: i32, pixels: i32, nodata: f64, cell: usize): void {
  const shift = shiftBase + (shiftPerCell ? cell << 3 : 0);
  const s1 = s1Base + (cell << 3);
  const s2 = s2Base == 0 ? 0 : s2Base + (cell << 3);
  const n = nBase + (cell << 2);
  const bad = badBase + cell;
  const nd = f64x2.splat(nodata);
  const stride = <usize>pixels;
  const withSd = s2 != 0;
  let i = 0;
  for (; i + 1 < pixels; i += 2) {
    const o = (<usize>i) << 3;
    const k = v128.load(shift + o);
    // A pair whose K are set and whose segment is all valid goes the vector way.
    if (bothSet(k)) {
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

/** One pixel through the segment, value by value (its first value, a gap); the arrays at the group's row. */
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

export function addSegmentF32(values: usize, slices: i32, pixels: i32, nodata: f64, cell: usize): void {
  addSegment<f32>(values, slices, pixels, nodata, cell);
}

export function addSegmentF64(values: usize, slices: i32, pixels: i32, nodata: f64, cell: usize): void {
  addSegment<f64>(values, slices, pixels, nodata, cell);
}
