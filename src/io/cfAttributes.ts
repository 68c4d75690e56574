/**
 * CF attributes shared by the writers (Zarr, NetCDF-4): coordinate variables for StdTime,
 * StdZ and other dimensions, lat/lon or projection y/x axes, the grid-mapping variable and
 * a data variable's own attributes. Pure functions: each writer stores them its own way.
 */
import { encodeCfTimes } from "../cube/time.js";
import { type Crs, type Dimension, type Grid, STD_TIME, STD_Z, type Variable } from "../cube/types.js";
import { WGS84_WKT } from "./wkt.js";

/** Unix-epoch milliseconds: exact in float64 for any date within ±285 000 years. */
export const TIME_UNITS = "milliseconds since 1970-01-01T00:00:00";
/** Name of the CF grid-mapping variable. */
export const GRID_MAPPING = "spatial_ref";

/** Names of the row and column axes: lat/lon on a geographic grid, y/x otherwise. */
export function spatialNames(grid: Grid): readonly [y: string, x: string] {
  return grid.crs.epsg === 4326 ? ["lat", "lon"] : ["y", "x"];
}

/**
 * Values and attributes of a dimension's coordinate variable: StdTime encoded in `timeUnits`
 * in the source calendar (so readers decode the same instants), StdZ as a height.
 * @example
 * const [values, attrs] = dimensionCoordinate(timeDim, "days since 1970-01-01 00:00:00");
 * attrs.calendar; // "proleptic_gregorian" unless the source named another
 */
export function dimensionCoordinate(d: Dimension, timeUnits: string = TIME_UNITS): [Float64Array, Record<string, unknown>] {
  const base = { long_name: d.description, "strata:source_name": d.sourceName };
  if (d.name === STD_TIME) {
    const calendar = d.calendar ?? "proleptic_gregorian";
    const values = Float64Array.from(encodeCfTimes(d.values, timeUnits, calendar));
    return [values, { ...base, standard_name: "time", axis: "T", units: timeUnits, calendar }];
  }
  if (d.name === STD_Z) return [Float64Array.from(d.values), { ...base, axis: "Z", positive: "up", units: d.unit }];
  return [Float64Array.from(d.values), { ...base, ...(d.unit ? { units: d.unit } : {}) }];
}

/**
 * Attributes of a spatial coordinate variable; `units` (projection axes only) when known.
 * @example
 * spatialAttributes("y", true); // { standard_name: "latitude", ..., units: "degrees_north", axis: "Y" }
 */
export function spatialAttributes(axis: "x" | "y", geographic: boolean, units?: string): Record<string, unknown> {
  if (geographic) {
    return axis === "y"
      ? { standard_name: "latitude", long_name: "latitude", units: "degrees_north", axis: "Y" }
      : { standard_name: "longitude", long_name: "longitude", units: "degrees_east", axis: "X" };
  }
  return {
    standard_name: `projection_${axis}_coordinate`,
    long_name: `${axis} coordinate of projection`,
    ...(units ? { units } : {}),
    axis: axis.toUpperCase(),
  };
}

/**
 * Attributes of the 0-d CF grid-mapping variable, the way GDAL and rioxarray write it:
 * the WKT twice (CF `crs_wkt`, GDAL `spatial_ref`) and GDAL's GeoTransform.
 * @example
 * gridMappingAttributes(grid).GeoTransform; // "-180 2.5 0 90 0 -2.5"
 */
export function gridMappingAttributes(grid: Grid): Record<string, string> {
  const [t0, t1, t2, t3, t4, t5] = grid.transform;
  const wkt = grid.crs.wkt ?? (grid.crs.epsg === 4326 ? WGS84_WKT : undefined);
  return {
    ...(grid.crs.epsg === 4326 ? { grid_mapping_name: "latitude_longitude" } : {}),
    ...(wkt ? { crs_wkt: wkt, spatial_ref: wkt } : {}),
    ...(grid.crs.epsg !== undefined ? { epsg_code: `EPSG:${grid.crs.epsg}` } : {}),
    GeoTransform: [t0, t1, t2, t3, t4, t5].map((v) => String(v)).join(" "),
  };
}

/**
 * CF attributes of a data variable: the source's, then long_name, units, `_FillValue` when
 * `fillValue` is given, the grid mapping and the Strata name (group variables are stored
 * flat, so readers restore "grp1/T" from it).
 * @example
 * variableAttributes(sst, sst.nodata); // { ..., long_name: "SST", units: "K", _FillValue: NaN, grid_mapping: "spatial_ref", "strata:name": "sst" }
 */
export function variableAttributes(
  v: Pick<Variable, "name" | "description" | "unit" | "attributes">,
  fillValue?: number,
): Record<string, unknown> {
  return {
    ...v.attributes,
    long_name: v.description,
    ...(v.unit ? { units: v.unit } : {}),
    ...(fillValue !== undefined ? { _FillValue: fillValue } : {}),
    grid_mapping: GRID_MAPPING,
    "strata:name": v.name,
  };
}

/** udunits spellings of WKT linear unit names. */
const LINEAR_UNITS: Readonly<Record<string, string>> = {
  metre: "m",
  meter: "m",
  metres: "m",
  meters: "m",
  kilometre: "km",
  kilometer: "km",
  foot: "ft",
  "international foot": "ft",
  "us survey foot": "US_survey_foot",
  foot_us: "US_survey_foot",
};

/**
 * The udunits name of a projected CRS's linear unit, from its WKT (WKT1 `UNIT`, WKT2
 * `LENGTHUNIT`): the last one stated belongs to the projected CRS itself, the earlier ones to
 * its base geographic CRS. Undefined for a geographic or unknown CRS.
 * @example
 * linearUnits({ epsg: 32633, wkt: 'PROJCS["WGS 84 / UTM zone 33N",...,UNIT["metre",1,...],...]' }); // "m"
 */
export function linearUnits(crs: Crs): string | undefined {
  const wkt = crs.wkt;
  if (!wkt || !/^\s*(PROJCS|PROJCRS|PROJECTEDCRS)\b/i.test(wkt)) return undefined;
  const units = [...wkt.matchAll(/\b(?:LENGTH)?UNIT\[\s*"([^"]+)"\s*,\s*([0-9.eE+-]+)/gi)];
  const last = units.at(-1);
  if (!last) return undefined;
  const name = LINEAR_UNITS[last[1].toLowerCase()];
  if (name) return name;
  return Number(last[2]) === 1 ? "m" : undefined;
}
