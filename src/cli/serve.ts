/** `strata serve`: run the server until SIGTERM/SIGINT, then stop gracefully. */
import { type Command, parseCommandArgs } from "./command.js";
import { SERVE_OPTIONS, resolveServeConfig } from "./serveConfig.js";
import { startStrata } from "./startStrata.js";

const optionHelp = Object.entries(SERVE_OPTIONS)
  .map(([name, o]) => `  --${name.padEnd(20)} ${o.help} [${o.env}]`)
  .join("\n");

export const serveCommand: Command = {
  usage: `Usage: strata serve [options]

Start the server: the ArcGIS-style REST API under the public URL (portal at /sharing/rest,
services at /rest/services, raster analysis tools at
/rest/services/System/RasterAnalysisTools/GPServer), jobs on worker threads, metadata and
rasters under the data directory. The first start creates the user "admin" and prints its
one-time password once, and publishes the sample datasets as public image services.

Options (each also read from the environment variable in brackets):
${optionHelp}`,
  async run(args, out) {
    const parseOptions = Object.fromEntries(
      Object.entries(SERVE_OPTIONS).map(([k, o]) => [k, { type: o.type, ...("multiple" in o ? { multiple: true } : {}) }]),
    ) as Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
    const { values, positionals } = parseCommandArgs(args, parseOptions);
    if (positionals.length) throw new TypeError(`strata serve takes no arguments (got ${positionals.join(" ")}); see strata serve --help`);
    const config = resolveServeConfig(values as never, process.env);
    const strata = await startStrata(config);
    if (strata.adminPassword) {
      out.stdout(
        `\nFirst start: created the user "admin" with the one-time password\n\n    ${strata.adminPassword}\n\nIt is shown only now and stored nowhere in clear; change it with: strata user passwd admin\n\n`,
      );
    }
    out.stdout(`Strata is serving ${strata.url} (tools: ${strata.url}/rest/services/System/RasterAnalysisTools/GPServer)\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
    out.stdout("Stopping: running jobs go back to the queue\n");
    await strata.close();
    return 0;
  },
};
