/**
 * What the server says an analysis made, from a variable's `attributes` in
 * `multidimensionalInfo`: `strata:anomaly` (draw a diverging ramp), `strata:trend` (the
 * dimension the trend was fitted along and the names of its bands).
 */
import { formatValue } from "../format.js";
import type { TrendAttribute, Variable } from "./types.js";

export const isAnomaly = (variable: Variable): boolean => Boolean(variable.attributes?.["strata:anomaly"]);

export const trendOf = (variable: Variable): TrendAttribute | undefined => variable.attributes?.["strata:trend"];

/** A slice position as people read it: a trend's Band by its name (Slope, …), else the value. */
export function sliceLabel(variable: Variable, dimension: string, value: number): string {
  const band = dimension === "Band" ? trendOf(variable)?.bands?.[value - 1] : undefined;
  return band ?? formatValue(dimension, value);
}
