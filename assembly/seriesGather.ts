/**
 * The per-pixel fits' gather (src/analysis/trendFit.ts, through src/kernels/seriesGather.ts):
 * a tile's slab is slice-major, a fit wants each pixel's series in x order. A block of pixels'
 * values is first copied slice by slice (contiguous runs, as f64), then each pixel's series
 * read down the block, with its valid flags and count; the JavaScript loops it replaces were
 * a tenth of a Mann-Kendall job. The tile's complete pixels skip the gather: a least-squares
 * fit sweeps the whole slab for them (lib/completeSweeps.ts). Chunks a walk reads into the
 * slab are unshuffled here (lib/unshuffle.ts).
 *
 * Memory is the caller's (imported); the arrays are bound once (bind) as byte offsets: the
 * slices' x order (i32, n), the block (f64, n × width), a pixel's series (f64, n) and its
 * valid flags (u8, n).
 */

export { heapBase } from "./lib/heap";
export { unshuffle } from "./lib/unshuffle";
import { residualSweep, sumSweep } from "./lib/completeSweeps";
import { valueAt } from "./lib/values";

let order: usize = 0;
let block: usize = 0;
let series: usize = 0;
let valid: usize = 0;
let slices: i32 = 0;
let width: i32 = 0;

/** Where the arrays lie, for series of n slices and blocks of `blockWidth` pixels. */
export function bind(orderAt: usize, blockAt: usize, seriesAt: usize, validAt: usize, n: i32, blockWidth: i32): void {
  order = orderAt;
  block = blockAt;
  series = seriesAt;
  valid = validAt;
  slices = n;
  width = blockWidth;
}

/** block[k·width + j] = slab[order[k]·pixels + p0 + j] for j < count: the slab's f32 values. */
export function blockF32(slab: usize, pixels: i32, p0: i32, count: i32): void {
  copyBlock<f32>(slab, pixels, p0, count);
}

/** The same from f64 values. */
export function blockF64(slab: usize, pixels: i32, p0: i32, count: i32): void {
  copyBlock<f64>(slab, pixels, p0, count);
}

function copyBlock<T>(slab: usize, pixels: i32, p0: i32, count: i32): void {
  for (let k = 0; k < slices; k++) {
    const from = <usize>load<i32>(order + ((<usize>k) << 2)) * <usize>pixels + <usize>p0;
    const to = block + ((<usize>k * <usize>width) << 3);
    let j = 0;
    if (sizeof<T>() == 4) {
      for (; j + 4 <= count; j += 4) {
        const four = v128.load(slab + ((from + <usize>j) << 2));
        v128.store(to + ((<usize>j) << 3), f64x2.promote_low_f32x4(four));
        v128.store(to + ((<usize>j + 2) << 3), f64x2.promote_low_f32x4(i32x4.shuffle(four, four, 2, 3, 0, 1)));
      }
    }
    for (; j < count; j++) store<f64>(to + ((<usize>j) << 3), valueAt<T>(slab, from + <usize>j));
  }
}

/** series[k] = block[k·width + j] and valid[k] = neither NaN nor nodata, over the n slices; returns how many are valid. */
export function pixel(j: i32, nodata: f64): i32 {
  let m = 0;
  let at = block + ((<usize>j) << 3);
  const step = (<usize>width) << 3;
  for (let k = 0; k < slices; k++) {
    const v = load<f64>(at);
    const ok = v == v && v != nodata;
    store<f64>(series + ((<usize>k) << 3), v);
    store<u8>(valid + <usize>k, ok ? 1 : 0);
    m += ok ? 1 : 0;
    at += step;
  }
  return m;
}

/** The complete pixels' sums of a float32 slab (lib/completeSweeps.ts), both passes, into `sums`. */
export function sweepF32(slab: usize, pixels: i32, p: i32, map: usize, basis: usize, nodata: f64, sums: usize): void {
  sumSweep<f32>(slab, order, slices, pixels, p, map, nodata, sums);
  residualSweep<f32>(slab, order, slices, pixels, p, basis, sums);
}

/** The same from f64 values. */
export function sweepF64(slab: usize, pixels: i32, p: i32, map: usize, basis: usize, nodata: f64, sums: usize): void {
  sumSweep<f64>(slab, order, slices, pixels, p, map, nodata, sums);
  residualSweep<f64>(slab, order, slices, pixels, p, basis, sums);
}
