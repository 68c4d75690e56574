/**
 * How long each pass of a walk takes against the others (OpenedInput.walk.cost), so that a
 * job's progress moves evenly in time rather than evenly per pass. Measured with `strata run`
 * on the bench's daily cube (1461 × 360 × 720 float32, NetCDF-4 zlib + shuffle, a day a
 * chunk: bench/cdo.ts) on 1 and 2 threads of a 2-core machine, each pass's time against the
 * first's, which reads the input once. The ratios move with the input (a NetCDF-3 input
 * reads faster; Kendall's work per pixel grows a little faster than its series), so progress
 * is even to within about half again, not exactly: without them, Mann-Kendall's first half
 * took a fifth of its time.
 */

/** A streamed anomaly's second pass (its kept values read back, the anomalies written) against its first. */
export function anomalyApplyCost(compressed: boolean, threads: number): number {
  // zstd: 11.4 s against 3.0 on one thread, 6.6 against 2.4 on two (the encoder's thread
  // compresses beside it); raw output: 2.5 against 2.9, and 1.5 against 2.5.
  if (compressed) return threads > 1 ? 2.75 : 3.8;
  return threads > 1 ? 0.6 : 0.85;
}

/**
 * A streamed trend's passes after its sums: the residuals, a pass needed only where a fit is
 * too close to perfect for the sums to give its statistics (rare: as long as the sums when
 * it is, so progress then waits in it), and the bands, solved from the merged sums and
 * written on one thread (0.2-0.3 s against 1.9-2.9).
 */
export const TREND_RESIDUALS_COST = 0.05;
export const TREND_BANDS_COST = 0.12;

/**
 * Mann-Kendall's or Seasonal-Kendall's tiles against the transposition before them: 34 s
 * against 4.5 on one thread; on two, whose shares split the tiles, 19.3 against 4.3, and
 * Seasonal-Kendall 16.3 against 3.4 (days of the year, the default) or 21.3 against 3.3
 * (months).
 */
export function kendallTilesCost(threads: number): number {
  return 7.5 / (1 + 0.67 * (threads - 1));
}

/**
 * A median anomaly's tiles (one share, its output encoded on a thread beside it when the job
 * has two) against the transposition: zstd output 13.9 s against 3.4 on one thread, 8.0
 * against 3.3 on two; raw 7.7 against 3.0, and 6.8 against 3.4.
 */
export function medianTilesCost(compressed: boolean, threads: number): number {
  if (compressed) return threads > 1 ? 2.4 : 4.1;
  return threads > 1 ? 2.0 : 2.6;
}
