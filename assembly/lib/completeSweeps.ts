/**
 * The least-squares fit of a tile's complete pixels (src/analysis/trendFit.ts completePixels)
 * as two sweeps over its slice-major slab, slices in x order, two pixels per 128-bit lane
 * pair: the same operations in the same order per pixel as the JavaScript they replace, so
 * the sums are the same bit for bit (a pixel's accumulators are independent of its
 * neighbours', so going two at a time changes no sum).
 *
 * Per pixel (`pixels` of them), f64 arrays one after the other from `sums`: count, Σy (then
 * the mean), min, max, SSE, SST, then p arrays of coefficients. `map` and `basis` are p × n
 * (row j, slice in x order k at j·n + k): the solution map R⁻¹Qᵀ and the basis.
 */
import { pairAt, validPair, valueAt } from "./values";

/** Pass 1: counts of valid values, Σy, extremes and the coefficients Σk map[j·n + k]·y. */
export function sumSweep<T>(slab: usize, order: usize, n: i32, pixels: i32, p: i32, map: usize, nodata: f64, sums: usize): void {
  const P = <usize>pixels;
  const count = sums;
  const sum = count + (P << 3);
  const lo = sum + (P << 3);
  const hi = lo + (P << 3);
  const acc = sums + 6 * (P << 3);
  memory.fill(sums, 0, (6 + <usize>p) * (P << 3));
  for (let q: usize = 0; q < P; q++) {
    store<f64>(lo + (q << 3), Infinity);
    store<f64>(hi + (q << 3), -Infinity);
  }
  const nd = f64x2.splat(nodata);
  const one = f64x2.splat(1);
  // LINEAR's two coefficients with their weights held (the loop over j costs a third more).
  const acc1 = acc + (P << 3);
  for (let k = 0; k < n; k++) {
    const row = <usize>load<i32>(order + ((<usize>k) << 2)) * P;
    const w0 = f64x2.splat(load<f64>(map + ((<usize>k) << 3)));
    const w1 = p == 2 ? f64x2.splat(load<f64>(map + ((<usize>n + <usize>k) << 3))) : w0;
    let q: usize = 0;
    for (; q + 1 < P; q += 2) {
      const o = q << 3;
      const y = pairAt<T>(slab, row + q);
      v128.store(count + o, f64x2.add(v128.load(count + o), v128.and(validPair(y, nd), one)));
      v128.store(sum + o, f64x2.add(v128.load(sum + o), y));
      v128.store(lo + o, f64x2.pmin(v128.load(lo + o), y));
      v128.store(hi + o, f64x2.pmax(v128.load(hi + o), y));
      if (p == 2) {
        v128.store(acc + o, f64x2.add(v128.load(acc + o), f64x2.mul(w0, y)));
        v128.store(acc1 + o, f64x2.add(v128.load(acc1 + o), f64x2.mul(w1, y)));
        continue;
      }
      for (let j = 0; j < p; j++) {
        const w = f64x2.splat(load<f64>(map + ((<usize>j * <usize>n + <usize>k) << 3)));
        const a = acc + ((<usize>j * P) << 3) + o;
        v128.store(a, f64x2.add(v128.load(a), f64x2.mul(w, y)));
      }
    }
    if (q < P) {
      const o = q << 3;
      const y = valueAt<T>(slab, row + q);
      if (y == y && y != nodata) store<f64>(count + o, load<f64>(count + o) + 1);
      store<f64>(sum + o, load<f64>(sum + o) + y);
      if (y < load<f64>(lo + o)) store<f64>(lo + o, y);
      if (y > load<f64>(hi + o)) store<f64>(hi + o, y);
      for (let j = 0; j < p; j++) {
        const a = acc + ((<usize>j * P) << 3) + o;
        store<f64>(a, load<f64>(a) + load<f64>(map + ((<usize>j * <usize>n + <usize>k) << 3)) * y);
      }
    }
  }
}

/** Pass 2, after pass 1: Σy becomes the mean, then SSE = Σ(y − Σj basis[j·n + k]·aj)² and SST = Σ(y − mean)². */
export function residualSweep<T>(slab: usize, order: usize, n: i32, pixels: i32, p: i32, basis: usize, sums: usize): void {
  const P = <usize>pixels;
  const mean = sums + (P << 3);
  const sse = sums + 4 * (P << 3);
  const sst = sums + 5 * (P << 3);
  const acc = sums + 6 * (P << 3);
  const slices = <f64>n;
  for (let q: usize = 0; q < P; q++) store<f64>(mean + (q << 3), load<f64>(mean + (q << 3)) / slices);
  const acc1 = acc + (P << 3);
  for (let k = 0; k < n; k++) {
    const row = <usize>load<i32>(order + ((<usize>k) << 2)) * P;
    const b0 = f64x2.splat(load<f64>(basis + ((<usize>k) << 3)));
    const b1 = p == 2 ? f64x2.splat(load<f64>(basis + ((<usize>n + <usize>k) << 3))) : b0;
    let q: usize = 0;
    for (; q + 1 < P; q += 2) {
      const o = q << 3;
      const y = pairAt<T>(slab, row + q);
      let fitted = f64x2.splat(0);
      if (p == 2) fitted = f64x2.add(f64x2.add(fitted, f64x2.mul(b0, v128.load(acc + o))), f64x2.mul(b1, v128.load(acc1 + o)));
      else
        for (let j = 0; j < p; j++) {
          const b = f64x2.splat(load<f64>(basis + ((<usize>j * <usize>n + <usize>k) << 3)));
          fitted = f64x2.add(fitted, f64x2.mul(b, v128.load(acc + ((<usize>j * P) << 3) + o)));
        }
      const e = f64x2.sub(y, fitted);
      const d = f64x2.sub(y, v128.load(mean + o));
      v128.store(sse + o, f64x2.add(v128.load(sse + o), f64x2.mul(e, e)));
      v128.store(sst + o, f64x2.add(v128.load(sst + o), f64x2.mul(d, d)));
    }
    if (q < P) {
      const o = q << 3;
      const y = valueAt<T>(slab, row + q);
      let fitted: f64 = 0;
      for (let j = 0; j < p; j++)
        fitted += load<f64>(basis + ((<usize>j * <usize>n + <usize>k) << 3)) * load<f64>(acc + ((<usize>j * P) << 3) + o);
      const e = y - fitted;
      const d = y - load<f64>(mean + o);
      store<f64>(sse + o, load<f64>(sse + o) + e * e);
      store<f64>(sst + o, load<f64>(sst + o) + d * d);
    }
  }
}
