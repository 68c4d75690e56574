/**
 * The `strata` command line: serve, info, convert, run, user. Every failure exits non-zero with a
 * one-line reason; --help works everywhere.
 */
import { StrataError } from "../cube/errors.js";
import { type Command, type Output, PROCESS_OUTPUT } from "./command.js";

const USAGE = `strata: multidimensional raster analysis server

Usage:
  strata serve [--port N] [--data-dir DIR] ... (see strata serve --help)
  strata info <path|uri> [--json] [--store SPEC ...]
  strata convert <in> <out.zarr> [--store SPEC ...]
  strata run <Task> --input <file|uri> --output <out.zarr> [--<parameter> <value> ...]
  strata user add|passwd|list|remove ... [--data-dir DIR]
  strata worker --queue redis://host:6379 [--data-dir DIR] ... (see strata worker --help)
  strata <command> --help

Commands:
  serve     run the server (REST API, jobs, image services)
  info      describe a raster: variables, dimensions with values and intervals, grid, CRS, nodata
  convert   copy a raster (NetCDF-3, NetCDF-4/HDF5, GeoTIFF, Zarr v2/v3) to a new Zarr v3 store
  run       run an analysis task (Subset, Anomaly, Trend, Predict) on local files into a Zarr store
  user      manage the server's users (roles admin, publisher, user)
  worker    run jobs from the job queue that API nodes started with --queue hand out

Inputs are file paths, Zarr directories, http(s) URLs of Zarr stores with consolidated
metadata, or data-store URIs (/fileShares/<name>/<path>, /cloudStores/<name>/<path>) of
stores registered with --store or STRATA_DATA_STORES (specs separated by ';').
A store SPEC is fileShare:<name>=<dir> or cloudStore:<name>=<dir|https://base>.`;

// Each command's modules load only when it runs: `strata run` need not load the server's
// (fastify, sharp, the portal), a tenth of a second of every run's start.
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./serve.js")).serveCommand,
  info: async () => (await import("./info.js")).infoCommand,
  convert: async () => (await import("./convert.js")).convertCommand,
  run: async () => (await import("./run.js")).runCommand,
  user: async () => (await import("./user.js")).userCommand,
  worker: async () => (await import("./worker.js")).workerCommand,
};

export async function main(argv: string[], out: Output = PROCESS_OUTPUT): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    out.stdout(`${USAGE}\n`);
    return name ? 0 : 1;
  }
  const load = COMMANDS[name];
  if (!load) {
    out.stderr(`strata: unknown command '${name}' (known: ${Object.keys(COMMANDS).join(", ")}); see strata --help\n`);
    return 2;
  }
  const command = await load();
  if (rest.includes("--help") || rest.includes("-h")) {
    out.stdout(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, out);
  } catch (e) {
    out.stderr(`strata ${name}: ${oneLine(e)}\n`);
    return e instanceof StrataError || e instanceof TypeError ? 1 : 3;
  }
}

/** A user-readable reason on one line, without a stack trace. */
function oneLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.replace(/\s*\n\s*/g, " ");
}
