/** Reading a run's values (f32 or f64, the type argument T) as f64, one or two at a time. */

/** values[index] as f64. */
export function valueAt<T>(values: usize, index: usize): f64 {
  return <f64>load<T>(values + (index << alignof<T>()));
}

/** values[index], values[index + 1] as f64x2. */
export function pairAt<T>(values: usize, index: usize): v128 {
  if (sizeof<T>() == 4) return f64x2.promote_low_f32x4(v128.load64_zero(values + (index << 2)));
  return v128.load(values + (index << 3));
}

/** Whether both lanes are valid: neither NaN nor nodata. */
export function validPair(y: v128, nodata: v128): v128 {
  return v128.and(f64x2.eq(y, y), f64x2.ne(y, nodata));
}

/** Whether both lanes hold a number (a pixel's K set), not NaN. */
export function bothSet(k: v128): bool {
  return i64x2.all_true(f64x2.eq(k, k));
}
