/**
 * Raster bands of a hosted image service (SPEC §8, §11). A trend raster is stored with its
 * bands along a `Band` dimension (docs/tasks.md), but it is served as ArcGIS serves it: each
 * slice a multiband raster whose bands are named (Slope, Intercept, ...), so the `Band`
 * dimension is no dimension of the service (no slice, no multidimensionalInfo entry) and
 * requests choose bands with `bandIds`. Every other variable is one band, named after itself.
 */
import type { Statistics } from "../analysis/statistics.js";
import { BAND_DIMENSION, TREND_ATTRIBUTE, bandStatisticsKey } from "../analysis/trendModel.js";
import { InvalidInputError } from "../cube/errors.js";
import type { Dimension, IndexRange, Variable } from "../cube/types.js";

/** A variable's band axis: where it is among the dimensions, and the bands' names in order. */
export interface BandAxis {
  readonly axis: number;
  readonly names: readonly string[];
}

/**
 * The band axis of a variable served as raster bands (a trend raster's `Band` dimension,
 * whose names its `strata:trend` metadata holds), or undefined for a one-band variable.
 * @example
 * bandAxis(trend.variables[0]); // { axis: 0, names: ["Slope", "Intercept", "RMSE"] }
 */
export function bandAxis(v: Variable): BandAxis | undefined {
  const axis = v.dimensions.findIndex((d) => d.name === BAND_DIMENSION);
  const meta = v.attributes[TREND_ATTRIBUTE] as { bands?: unknown } | undefined;
  if (axis < 0 || !meta || !Array.isArray(meta.bands) || meta.bands.length !== v.dimensions[axis].values.length) return undefined;
  return { axis, names: meta.bands.map(String) };
}

/**
 * The names of a variable's bands: a trend raster's, else the variable's own name.
 * @example
 * bandNamesOf(sst); // ["sst"]
 */
export function bandNamesOf(v: Variable): string[] {
  return [...(bandAxis(v)?.names ?? [v.name])];
}

/**
 * The dimensions a service shows for a variable (its slices vary along them): all but the band axis.
 * @example
 * sliceDimensions(trend.variables[0]).map((d) => d.name); // ["StdZ"] for a trend fitted along StdTime of a (StdTime, StdZ) variable
 */
export function sliceDimensions(v: Variable): readonly Dimension[] {
  const band = bandAxis(v);
  return band ? v.dimensions.filter((_, i) => i !== band.axis) : v.dimensions;
}

/**
 * The `dims` of a read of bands [b0, b1) of the slice at `indices` (one index per slice
 * dimension); the values come band by band (band-major), each a whole window.
 * @example
 * variable.read({ dims: sliceReadDims(variable, slice.indices, [0, 2]), window });
 */
export function sliceReadDims(v: Variable, indices: readonly number[], bands?: readonly [number, number]): IndexRange[] {
  const band = bandAxis(v);
  const dims: IndexRange[] = indices.map((i) => [i, i + 1] as const);
  if (band) dims.splice(band.axis, 0, bands ?? [0, band.names.length]);
  return dims;
}

/**
 * Each band's stored statistics: a trend raster's per-band statistics (bandStatisticsKey),
 * or for a one-band variable the variable's. A band without its own (a dataset written before
 * they were kept) has none: its range then comes from the pixels drawn.
 * @example
 * bandStatistics(stats, trend.variables[0]); // [{ min, max, mean, stddev, count }, ...] one per band
 */
export function bandStatistics(
  statistics: Readonly<Record<string, Statistics | null | undefined>>,
  v: Variable,
): (Statistics | undefined)[] {
  const band = bandAxis(v);
  if (!band) return [statistics[v.name] ?? undefined];
  return band.names.map((name) => statistics[bandStatisticsKey(v.name, name)] ?? undefined);
}

/**
 * `bandIds` of a request: band indices (0-based, as ArcGIS numbers them), comma-separated
 * or a JSON list; absent or empty = undefined. Every id must name a band of the variable.
 * @example
 * parseBandIds("2,1,0", 3); // [2, 1, 0]
 */
export function parseBandIds(text: string | undefined, bandCount: number): number[] | undefined {
  const t = text?.trim();
  if (!t) return undefined;
  const parts = t.startsWith("[") ? parseList(t) : t.split(",").map((p) => p.trim());
  const ids = parts.map((p) => (typeof p === "number" ? p : p === "" ? NaN : Number(p)));
  if (ids.length === 0 || ids.some((id) => !Number.isInteger(id) || id < 0 || id >= bandCount)) {
    throw new InvalidInputError(
      `bandIds must be band indices from 0 to ${bandCount - 1} (this service has ${bandCount} band${bandCount === 1 ? "" : "s"}); got "${t}"`,
      { parameter: "bandIds" },
    );
  }
  return ids;
}

function parseList(text: string): unknown[] {
  try {
    const v: unknown = JSON.parse(text);
    if (Array.isArray(v)) return v;
  } catch {
    // reported below
  }
  throw new InvalidInputError(`bandIds must be a list of band indices such as 0,1,2 or [0,1,2]; got "${text}"`, { parameter: "bandIds" });
}
