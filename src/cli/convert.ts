/** `strata convert`: copy a raster to a new Zarr v3 store. */
import { rm, stat } from "node:fs/promises";
import { InvalidInputError } from "../cube/errors.js";
import { openCube } from "../io/open.js";
import { wholeCubePlan } from "../tasks/plan.js";
import { writeSubset } from "../tasks/subset.js";
import { type Command, parseCommandArgs } from "./command.js";
import { resolveSource, storeSpecs } from "./source.js";

export const convertCommand: Command = {
  usage: `Usage: strata convert <in> <out.zarr> [--store SPEC ...]

Copy every variable of <in> (NetCDF-3, NetCDF-4/HDF5, GeoTIFF, Zarr v2/v3) to a new Zarr v3
store: zstd chunks of one slice by up to 512x512 cells, CF attributes, coordinates, a CF
grid mapping and GeoZarr georeferencing, so xarray and GDAL read it without Strata.
The output must not exist; a failed conversion leaves nothing behind.

Options:
  --store SPEC    register a data store (fileShare:<name>=<dir>, cloudStore:<name>=<dir|url>)`,
  async run(args, out) {
    const { values, positionals } = parseCommandArgs(args, { store: { type: "string", multiple: true } });
    if (positionals.length !== 2)
      throw new InvalidInputError(`expected <in> and <out.zarr>, got ${positionals.length} argument(s); see strata convert --help`);
    const [input, output] = positionals;
    if (await stat(output).catch(() => undefined)) throw new InvalidInputError(`${output} already exists; choose a new output path`);
    const cube = await openCube(await resolveSource(input, storeSpecs(values.store as string[] | undefined)));
    try {
      await writeSubset(cube, wholeCubePlan(cube), output);
    } catch (e) {
      await rm(output, { recursive: true, force: true });
      throw e;
    } finally {
      await cube.close();
    }
    out.stderr(`strata convert: wrote ${cube.variables.length} variable(s) to ${output}\n`);
    return 0;
  },
};
