/**
 * `download?format=netcdf` (SPEC §11): the dataset, or the variables and slices a request
 * selects (`variables`, `time`, `mosaicRule`), as a CF-1.8 NetCDF-4 file for xarray, QGIS or
 * Panoply. The file is written whole to a scratch path first (the HDF5 library needs a
 * file) on a thread of its own (the library's memory and compression stay off the server's
 * event loop), then sent, then removed. The selection is checked here first.
 */
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { InvalidInputError } from "../cube/errors.js";
import type { Cube } from "../cube/types.js";
import { writeNetcdf4InThread } from "../io/netcdf4InThread.js";
import { selectIndices } from "./slices.js";

/**
 * Write the selection a request asks for of `cube` (read from `source`, its path) into a
 * new file under `scratchDir`; its path.
 * Every bad parameter is a 400 naming it; a selection with no slice of any variable is one too.
 * @example
 * const path = await writeDownload(cube, datasetPath, { format: "netcdf", variables: "UWND", time: "0,1e12" }, "/data/tmp");
 */
export async function writeDownload(
  cube: Cube,
  source: string,
  params: Record<string, string>,
  scratchDir: string,
  signal?: AbortSignal,
): Promise<string> {
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
  await mkdir(scratchDir, { recursive: true });
  const path = join(scratchDir, `download-${randomUUID()}.nc`);
  const keptSelections = Object.fromEntries(kept.map((v) => [v.name, selections.get(v.name)!]));
  await writeNetcdf4InThread({ source, target: path, variables: kept.map((v) => v.name), selections: keptSelections }, signal);
  return path;
}
