/**
 * The streamed anomaly's pass 1 (src/analysis/anomaly.ts, applyRow): each value of a slice
 * against its group's reference (assembly/lib/anomaly.ts), then the output's statistics
 * taken in the same memory (assembly/lib/statistics.ts).
 *
 * Memory is the caller's (imported): `values` (T: f32 or f64), `out` (O: f32 or f64), `ref`
 * (µ) and `sd` (s, Z_SCORE only) are byte offsets into it, each at the slice's first pixel.
 */

export { heapBase } from "./lib/heap";
export { unshuffle } from "./lib/unshuffle";
import { apply } from "./lib/anomaly";

export { binValuesF32, binValuesF64, blockSumsF32, blockSumsF64 } from "./lib/statistics";

export function applyF32toF32(kind: i32, values: usize, out: usize, pixels: i32, nodata: f64, ref: usize, sd: usize, limit: f64): void {
  apply<f32, f32>(kind, values, out, pixels, nodata, ref, sd, limit);
}

export function applyF32toF64(kind: i32, values: usize, out: usize, pixels: i32, nodata: f64, ref: usize, sd: usize, limit: f64): void {
  apply<f32, f64>(kind, values, out, pixels, nodata, ref, sd, limit);
}

export function applyF64toF32(kind: i32, values: usize, out: usize, pixels: i32, nodata: f64, ref: usize, sd: usize, limit: f64): void {
  apply<f64, f32>(kind, values, out, pixels, nodata, ref, sd, limit);
}

export function applyF64toF64(kind: i32, values: usize, out: usize, pixels: i32, nodata: f64, ref: usize, sd: usize, limit: f64): void {
  apply<f64, f64>(kind, values, out, pixels, nodata, ref, sd, limit);
}
