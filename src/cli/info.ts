/** `strata info`: describe a raster. */
import { detectFormat, openCube } from "../io/open.js";
import { describeCube, formatCubeInfo } from "./describe.js";
import { type Command, parseCommandArgs } from "./command.js";
import { resolveSource, storeSpecs } from "./source.js";
import { InvalidInputError } from "../cube/errors.js";

export const infoCommand: Command = {
  usage: `Usage: strata info <path|uri> [--json] [--store SPEC ...]

Describe a raster: its grid (size, transform, extent, CRS), its variables (pixel type,
unit, nodata, dimensions, chunking) and each dimension (values, extent, regular interval,
calendar). StdTime values are printed as ISO 8601; with --json they are epoch milliseconds
UTC with the ISO strings beside them.

Options:
  --json          print JSON instead of text
  --store SPEC    register a data store (fileShare:<name>=<dir>, cloudStore:<name>=<dir|url>)`,
  async run(args, out) {
    const { values, positionals } = parseCommandArgs(args, { json: { type: "boolean" }, store: { type: "string", multiple: true } });
    if (positionals.length !== 1) throw new InvalidInputError(`expected one input, got ${positionals.length}; see strata info --help`);
    const source = await resolveSource(positionals[0], storeSpecs(values.store as string[] | undefined));
    const format = source instanceof URL ? "zarr" : await detectFormat(source);
    const cube = await openCube(source);
    try {
      const info = describeCube(cube, positionals[0], format);
      out.stdout(values.json ? `${JSON.stringify(info, null, 2)}\n` : `${formatCubeInfo(info)}\n`);
    } finally {
      await cube.close();
    }
    return 0;
  },
};
