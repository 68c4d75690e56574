/**
 * What the server says an analysis made, from a variable's `attributes` in
 * `multidimensionalInfo`: `strata:anomaly` (draw a diverging ramp), `strata:trend` (the
 * dimension the trend was fitted along and the names of its bands).
 */
import type { TrendAttribute, Variable } from "./types.js";

export const isAnomaly = (variable: Variable): boolean => Boolean(variable.attributes?.["strata:anomaly"]);

export const trendOf = (variable: Variable): TrendAttribute | undefined => variable.attributes?.["strata:trend"];

/**
 * The names of a variable's raster bands when it has several (a trend raster's Slope,
 * Intercept, …, chosen with exportImage's bandIds), else none.
 */
export function bandsOf(variable: Variable): string[] {
  const bands = trendOf(variable)?.bands ?? [];
  return bands.length > 1 ? bands : [];
}
