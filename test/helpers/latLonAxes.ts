/**
 * The CF latitude/longitude axes of a synthetic NetCDF grid (test/helpers/netcdf3Writer.ts):
 * the two dimensions, and their coordinate variables in degrees north and east.
 */
import type { NcFile, NcVariable } from "./netcdf3Writer.js";

/** The lat and lon dimensions of a grid on `lats` × `lons` (after any time dimension). */
export function latLonDims(lats: readonly number[], lons: readonly number[]): NcFile["dims"] {
  return [
    { name: "lat", size: lats.length },
    { name: "lon", size: lons.length },
  ];
}

/** The lat and lon coordinate variables (doubles, CF units) of a grid on `lats` × `lons`. */
export function latLonVars(lats: readonly number[], lons: readonly number[]): NcVariable[] {
  return [
    { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: lats },
    { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: lons },
  ];
}
