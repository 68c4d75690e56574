/**
 * `download?format=netcdf` (SPEC §11): the dataset, or the variables and slices a request
 * selects (`variables`, `time`, `mosaicRule`), as a CF-1.8 NetCDF-4 file for xarray, QGIS or
 * Panoply. The selection is checked here, on the server; the file is written whole to a
 * scratch path (the HDF5 library needs a file) on a writer work thread (one stays warm,
 * with the HDF5 library loaded), then sent, then removed. A trend raster's bands are the
 * file's dimension `band` (BAND_FILE_DIMENSION), values 1..n in the order of the variable's
 * `strata:trend` bands.
 */
import { BAND_DIMENSION } from "../analysis/trendModel.js";
import { InvalidInputError } from "../cube/errors.js";
import type { Cube } from "../cube/types.js";
import type { DimensionSelection } from "../io/netcdf4Write.js";
import { bandAxis } from "./bands.js";
import { selectIndices } from "./slices.js";

/**
 * The name of a trend raster's band dimension in a NetCDF download: `band`, the name GDAL
 * and CF tools give a raster's bands (ArcGIS's Raster to NetCDF takes it as a parameter and
 * documents no default).
 */
const BAND_FILE_DIMENSION = "band";

/**
 * The variables and slices a download request selects of `cube`, checked: every bad
 * parameter is a 400 naming it; a selection with no slice of any variable is one too.
 * @example
 * planDownload(cube, { format: "netcdf", variables: "UWND", time: "0,1e12" });
 * // { variables: ["UWND"], selections: { UWND: { StdTime: [0, 1, ...] } } }
 */
export function planDownload(
  cube: Cube,
  params: Record<string, string>,
): { variables: string[]; selections: Record<string, DimensionSelection>; dimensionNames?: Record<string, string> } {
  const format = (params.format ?? "netcdf").trim().toLowerCase();
  if (format !== "netcdf" && format !== "nc")
    throw new InvalidInputError(`format must be netcdf; got "${params.format}"`, { parameter: "format" });
  const variables = params.variables?.trim()
    ? params.variables
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "")
    : cube.variables.map((v) => v.name);
  const chosen = variables.map((name) => {
    const v = cube.variables.find((x) => x.name === name) ?? cube.variables.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!v)
      throw new InvalidInputError(`the service has no variable "${name}" (it has ${cube.variables.map((x) => x.name).join(", ")})`, {
        parameter: "variables",
      });
    return v;
  });
  const selections = new Map(chosen.map((v) => [v.name, selectIndices(v, params)]));
  const empty = [...selections].filter(([, sel]) => Object.values(sel).some((list) => list.length === 0)).map(([name]) => name);
  if (empty.length === chosen.length) {
    throw new InvalidInputError(`the selection keeps no slice of ${empty.join(", ")}`, {
      parameter: params.time?.trim() ? "time" : "mosaicRule",
    });
  }
  const kept = chosen.filter((v) => !empty.includes(v.name));
  const bands = kept.some((v) => bandAxis(v) !== undefined);
  return {
    variables: kept.map((v) => v.name),
    selections: Object.fromEntries(kept.map((v) => [v.name, selections.get(v.name)!])),
    ...(bands ? { dimensionNames: { [BAND_DIMENSION]: BAND_FILE_DIMENSION } } : {}),
  };
}
