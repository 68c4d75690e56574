/**
 * Run kernels (the streamed sums and the anomalies of a run of slices) take the pixels a
 * block at a time through every slice of the run: a block's per-pixel state (sums, the
 * reference row: 8-60 bytes a pixel) then stays in a core's cache while the run's slices
 * pass, instead of streaming from memory once a slice.
 */
export const RUN_PIXEL_BLOCK = 8192;
