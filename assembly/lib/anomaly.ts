/**
 * An anomaly against a reference, slice by slice (src/analysis/anomaly.ts, applyRow): four
 * pixels a step in SIMD lanes, computed in f64 exactly as the JavaScript loop does (the same
 * operations, so the same values), then stored as f32 or f64. `values` (T), `out` (O), `ref`
 * (µ or m, f64) and `sd` (s, Z_SCORE only) are byte offsets at the slice's first pixel; `out`
 * may be `values` (each value is read before its anomaly is written). A value is kept only
 * when it is not nodata and within ±limit (the output type's largest finite value): NaN,
 * ±Infinity and division by zero come out NaN.
 */
import { pairAt, valueAt } from "./values";

/** The methods, as analysis/anomaly.ts numbers them. */
const DIFFERENCE = 0;
const PERCENT_DIFFERENCE = 1;
const PERCENT_OF = 2;
const Z_SCORE = 3;

function anomaly(kind: i32, x: f64, r: f64, s: f64): f64 {
  if (kind == DIFFERENCE) return x - r;
  if (kind == PERCENT_DIFFERENCE) return Math.abs(x - r) / ((x + r) / 2);
  if (kind == PERCENT_OF) return x / r;
  return (x - r) / s;
}

function anomalyPair(kind: i32, x: v128, r: v128, s: v128): v128 {
  if (kind == DIFFERENCE) return f64x2.sub(x, r);
  if (kind == PERCENT_DIFFERENCE) return f64x2.div(f64x2.abs(f64x2.sub(x, r)), f64x2.div(f64x2.add(x, r), f64x2.splat(2)));
  if (kind == PERCENT_OF) return f64x2.div(x, r);
  return f64x2.div(f64x2.sub(x, r), s);
}

/** v where x is not nodata and v within ±limit, else NaN. */
function keptPair(x: v128, v: v128, nd: v128, lim: v128): v128 {
  const keep = v128.and(f64x2.ne(x, nd), v128.and(f64x2.le(v, lim), f64x2.ge(v, f64x2.neg(lim))));
  return v128.bitselect(v, f64x2.splat(NaN), keep);
}

function storePairs<O>(out: usize, i: usize, a: v128, b: v128): void {
  if (sizeof<O>() == 4) {
    const lo = f32x4.demote_f64x2_zero(a);
    const hi = f32x4.demote_f64x2_zero(b);
    v128.store(out + (i << 2), v128.shuffle<i64>(lo, hi, 0, 2));
  } else {
    v128.store(out + (i << 3), a);
    v128.store(out + (i << 3) + 16, b);
  }
}

function applySlice<T, O>(kind: i32, values: usize, out: usize, pixels: i32, nodata: f64, ref: usize, sd: usize, limit: f64): void {
  const nd = f64x2.splat(nodata);
  const lim = f64x2.splat(limit);
  const z = kind == Z_SCORE;
  let i = 0;
  for (; i + 3 < pixels; i += 4) {
    const p = <usize>i;
    const x0 = pairAt<T>(values, p);
    const x1 = pairAt<T>(values, p + 2);
    const r0 = v128.load(ref + (p << 3));
    const r1 = v128.load(ref + (p << 3) + 16);
    const s0 = z ? v128.load(sd + (p << 3)) : r0;
    const s1 = z ? v128.load(sd + (p << 3) + 16) : r1;
    const a = keptPair(x0, anomalyPair(kind, x0, r0, s0), nd, lim);
    const b = keptPair(x1, anomalyPair(kind, x1, r1, s1), nd, lim);
    storePairs<O>(out, p, a, b);
  }
  for (; i < pixels; i++) {
    const p = <usize>i;
    const x = valueAt<T>(values, p);
    const v = anomaly(kind, x, load<f64>(ref + (p << 3)), z ? load<f64>(sd + (p << 3)) : 0);
    store<O>(out + (p << alignof<O>()), <O>(x != nodata && v <= limit && v >= -limit ? v : NaN));
  }
}

/** One slice, specialised per method (the branch taken once a slice, not once a value). */
export function apply<T, O>(kind: i32, values: usize, out: usize, pixels: i32, nodata: f64, ref: usize, sd: usize, limit: f64): void {
  if (kind == DIFFERENCE) applySlice<T, O>(DIFFERENCE, values, out, pixels, nodata, ref, sd, limit);
  else if (kind == PERCENT_DIFFERENCE) applySlice<T, O>(PERCENT_DIFFERENCE, values, out, pixels, nodata, ref, sd, limit);
  else if (kind == PERCENT_OF) applySlice<T, O>(PERCENT_OF, values, out, pixels, nodata, ref, sd, limit);
  else applySlice<T, O>(Z_SCORE, values, out, pixels, nodata, ref, sd, limit);
}
