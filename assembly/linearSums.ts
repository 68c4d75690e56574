/**
 * Pass-0 sums of the streamed LINEAR trend (src/analysis/trendStream.ts, TrendSums with p = 2)
 * over one run of slices: the same operations in the same order per pixel as the JavaScript
 * it replaces, so the sums are bit for bit the same, two pixels per 128-bit lane pair.
 *
 * Memory is the caller's (imported): every argument named like an array is a byte offset
 * into it. The sums, bound once (bind), per pixel i: count[i] (u32), bad[i] (u8),
 * ymin/ymax/sumY/shift/syy[i] (f64), xty[2i..2i+1] (f64), missing[3i..3i+2] (f64, the upper
 * triangle of Σφφᵀ over slices the pixel lacks). A run: `values` holds `slices` slices of
 * `pixels` values each (f32 or f64), phi the basis rows (φ0, φ1) of its slices.
 */

export { heapBase } from "./lib/heap";
export { unshuffle } from "./lib/unshuffle";

import { bothSet, pairAt, validPair, valueAt } from "./lib/values";

let count: usize = 0;
let bad: usize = 0;
let ymin: usize = 0;
let ymax: usize = 0;
let sumY: usize = 0;
let shift: usize = 0;
let syy: usize = 0;
let xty: usize = 0;
let missing: usize = 0;

/** Where the sums lie. */
export function bind(
  countAt: usize,
  badAt: usize,
  yminAt: usize,
  ymaxAt: usize,
  sumYAt: usize,
  shiftAt: usize,
  syyAt: usize,
  xtyAt: usize,
  missingAt: usize,
): void {
  count = countAt;
  bad = badAt;
  ymin = yminAt;
  ymax = ymaxAt;
  sumY = sumYAt;
  shift = shiftAt;
  syy = syyAt;
  xty = xtyAt;
  missing = missingAt;
}

function sumRun<T>(values: usize, slices: i32, pixels: i32, phi: usize, nodata: f64): void {
  const nd = f64x2.splat(nodata);
  const stride = <usize>pixels;
  let i = 0;
  for (; i + 1 < pixels; i += 2) {
    const o = (<usize>i) << 3;
    const k = v128.load(shift + o);
    // Lanes of a pair whose shift is set and whose run is all valid go the vector way.
    if (bothSet(k)) {
      let sy = v128.load(sumY + o);
      let s2 = v128.load(syy + o);
      let lo = v128.load(ymin + o);
      let hi = v128.load(ymax + o);
      let a = v128.load(xty + (o << 1));
      let b = v128.load(xty + (o << 1) + 16);
      let valid = i64x2.splat(-1);
      for (let s = 0; s < slices; s++) {
        const f = v128.load(phi + ((<usize>s) << 4));
        const y = pairAt<T>(values, <usize>s * stride + <usize>i);
        valid = v128.and(valid, validPair(y, nd));
        const d = f64x2.sub(y, k);
        sy = f64x2.add(sy, y);
        s2 = f64x2.add(s2, f64x2.mul(d, d));
        lo = f64x2.pmin(lo, y);
        hi = f64x2.pmax(hi, y);
        a = f64x2.add(a, f64x2.mul(f, v128.shuffle<f64>(y, y, 0, 0)));
        b = f64x2.add(b, f64x2.mul(f, v128.shuffle<f64>(y, y, 1, 1)));
      }
      if (i64x2.all_true(valid)) {
        v128.store(sumY + o, sy);
        v128.store(syy + o, s2);
        v128.store(ymin + o, lo);
        v128.store(ymax + o, hi);
        v128.store(xty + (o << 1), a);
        v128.store(xty + (o << 1) + 16, b);
        const c = count + ((<usize>i) << 2);
        store<u32>(c, load<u32>(c) + <u32>slices);
        store<u32>(c + 4, load<u32>(c + 4) + <u32>slices);
        continue;
      }
    }
    sumPixel<T>(values, slices, stride, phi, nodata, <usize>i);
    sumPixel<T>(values, slices, stride, phi, nodata, <usize>i + 1);
  }
  if (i < pixels) sumPixel<T>(values, slices, stride, phi, nodata, <usize>i);
}

/** One pixel through the run, value by value (its first value, a gap). */
function sumPixel<T>(values: usize, slices: i32, stride: usize, phi: usize, nodata: f64, i: usize): void {
  const o = i << 3;
  for (let s = 0; s < slices; s++) {
    const f0 = load<f64>(phi + ((<usize>s) << 4));
    const f1 = load<f64>(phi + ((<usize>s) << 4) + 8);
    const y = valueAt<T>(values, <usize>s * stride + i);
    if (y != y || y == nodata) {
      store<u8>(bad + i, 1);
      const m = missing + i * 24;
      store<f64>(m, load<f64>(m) + f0 * f0);
      store<f64>(m + 8, load<f64>(m + 8) + f0 * f1);
      store<f64>(m + 16, load<f64>(m + 16) + f1 * f1);
      continue;
    }
    let k = load<f64>(shift + o);
    if (k != k) {
      k = y;
      store<f64>(shift + o, y);
    }
    const d = y - k;
    store<u32>(count + (i << 2), load<u32>(count + (i << 2)) + 1);
    store<f64>(sumY + o, load<f64>(sumY + o) + y);
    store<f64>(syy + o, load<f64>(syy + o) + d * d);
    if (y < load<f64>(ymin + o)) store<f64>(ymin + o, y);
    if (y > load<f64>(ymax + o)) store<f64>(ymax + o, y);
    store<f64>(xty + (o << 1), load<f64>(xty + (o << 1)) + f0 * y);
    store<f64>(xty + (o << 1) + 8, load<f64>(xty + (o << 1) + 8) + f1 * y);
  }
}

export function sumRunF32(values: usize, slices: i32, pixels: i32, phi: usize, nodata: f64): void {
  sumRun<f32>(values, slices, pixels, phi, nodata);
}

export function sumRunF64(values: usize, slices: i32, pixels: i32, phi: usize, nodata: f64): void {
  sumRun<f64>(values, slices, pixels, phi, nodata);
}
