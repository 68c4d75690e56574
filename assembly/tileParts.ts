/**
 * The transposition's per-run loop (src/analysis/transpose.ts, through src/kernels/tileParts.ts):
 * a run of slices cut into the parts that fall in each time-whole tile, one memory.copy a
 * tile row (the JavaScript made a typed-array view and a set() call for each, millions a
 * cube). With HDF5's unshuffle, so that chunks are decoded straight into the run here.
 *
 * Memory is the caller's (imported): `values` and `out` are byte offsets into it.
 */

export { heapBase } from "./lib/heap";
export { unshuffle } from "./lib/unshuffle";

/**
 * The run at `values` (`steps` slices of height × width values of `size` bytes) into `out`,
 * tile after tile (tileHeight × tileWidth, smaller at the right and bottom edges; tiles
 * row by row), each tile's part slice by slice, row by row.
 */
export function tileParts(
  values: usize,
  out: usize,
  steps: i32,
  height: i32,
  width: i32,
  tileHeight: i32,
  tileWidth: i32,
  size: i32,
): void {
  const rowBytes = <usize>width * <usize>size;
  const sliceBytes = rowBytes * <usize>height;
  let o = out;
  for (let ty = 0; ty < height; ty += tileHeight) {
    const th = min(tileHeight, height - ty);
    for (let tx = 0; tx < width; tx += tileWidth) {
      const bytes = <usize>min(tileWidth, width - tx) * <usize>size;
      const corner = values + <usize>ty * rowBytes + <usize>tx * <usize>size;
      for (let s = 0; s < steps; s++) {
        let from = corner + <usize>s * sliceBytes;
        for (let r = 0; r < th; r++) {
          memory.copy(o, from, bytes);
          o += bytes;
          from += rowBytes;
        }
      }
    }
  }
}
