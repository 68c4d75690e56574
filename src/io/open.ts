/**
 * Open any supported raster as a Cube, choosing the reader by content (magic bytes), not
 * by file name: NetCDF-3, NetCDF-4/HDF5, GeoTIFF, or a Zarr directory / HTTP(S) base.
 */
import { open as openFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { NotFoundError, UnsupportedDataError } from "../cube/errors.js";
import type { Cube } from "../cube/types.js";
import { cubeFromRaw } from "./cf.js";
import { isTiff, openGeotiff } from "./geotiff.js";
import { isNetcdf3, openNetcdf3 } from "./netcdf3.js";
import { isHdf5, openNetcdf4 } from "./netcdf4.js";
import { openZarr } from "./zarrRead.js";

export type RasterFormat = "netcdf3" | "netcdf4" | "geotiff" | "zarr";

/**
 * @example
 * const cube = await openCube("test/fixtures/real/monthly_navy_winds.cdf");
 * console.log(cube.variables.map((v) => v.name)); // ["UWND", "VWND"]
 * await cube.close();
 */
export async function openCube(location: string | URL): Promise<Cube> {
  if (location instanceof URL) return cubeFromRaw(await openZarr(location), location.href);
  const format = await detectFormat(location);
  switch (format) {
    case "netcdf3":
      return cubeFromRaw(await openNetcdf3(location), location);
    case "netcdf4":
      return cubeFromRaw(await openNetcdf4(location), location);
    case "zarr":
      return cubeFromRaw(await openZarr(location), location);
    case "geotiff":
      return openGeotiff(location);
  }
}

export async function detectFormat(path: string): Promise<RasterFormat> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new NotFoundError(`${path} does not exist`);
  if (info.isDirectory()) {
    const marker = await Promise.any([".zgroup", ".zarray", "zarr.json", ".zmetadata"].map((m) => stat(join(path, m)))).catch(
      () => undefined,
    );
    if (marker) return "zarr";
    throw new UnsupportedDataError(`${path} is a directory but not a Zarr store (no zarr.json, .zgroup or .zarray)`);
  }
  const fh = await openFile(path, "r");
  const head = new Uint8Array(8);
  try {
    await fh.read(head, 0, 8, 0);
  } finally {
    await fh.close();
  }
  if (isNetcdf3(head)) return "netcdf3";
  if (isHdf5(head)) return "netcdf4";
  if (isTiff(head)) return "geotiff";
  throw new UnsupportedDataError(`${path} is not a format Strata reads (NetCDF-3, NetCDF-4/HDF5, GeoTIFF or Zarr)`);
}
