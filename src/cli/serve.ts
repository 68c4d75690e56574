/** `strata serve`: run the server until SIGTERM/SIGINT, then stop gracefully. */
import { rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Command, parseCommandArgs } from "./command.js";
import { textLogStream } from "./requestLog.js";
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
rasters under the data directory. The first start creates the user "admin" and publishes
the sample datasets as public image services. The admin's one-time password is shown once
on a terminal, framed, after the server has started; when stdout is not a terminal (a
service, a log file) it is written instead to <data directory>/initial-admin-password,
readable only by the server's user. Requests are logged one readable line each on a
terminal, as JSON otherwise (--log-format).

Options (each also read from the environment variable in brackets):
${optionHelp}`,
  async run(args, out) {
    const parseOptions = Object.fromEntries(
      Object.entries(SERVE_OPTIONS).map(([k, o]) => [k, { type: o.type, ...("multiple" in o ? { multiple: true } : {}) }]),
    ) as Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
    const { values, positionals } = parseCommandArgs(args, parseOptions);
    if (positionals.length) throw new TypeError(`strata serve takes no arguments (got ${positionals.join(" ")}); see strata serve --help`);
    const config = resolveServeConfig(values as never, process.env);
    const format = config.logFormat ?? (out.terminal ? "text" : "json");
    const logger = { level: config.logLevel, ...(format === "text" ? { stream: textLogStream((line) => out.stdout(line)) } : {}) };
    const strata = await startStrata(config, { logger });
    // The file (when there is no terminal) exists before the server says it is serving.
    const password = strata.adminPassword ? await handOver(strata.adminPassword, config.dataDir, out.terminal === true, strata.url) : "";
    out.stdout(`Strata is serving ${strata.url} (tools: ${strata.url}/rest/services/System/RasterAnalysisTools/GPServer)\n`);
    // Last, once the start has settled, so that no start-up line pushes it away.
    out.stdout(password);
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

/** Name of the file that holds the first admin password when no terminal shows it. */
export const INITIAL_PASSWORD_FILE = "initial-admin-password";

/**
 * The command that changes the admin's password, as it works from a clone (where `strata`
 * is not on the PATH: npx finds the package's own bin), naming the data directory unless it
 * is the default.
 */
export function passwdCommand(dataDir: string): string {
  const dir = resolve(dataDir) === resolve("./data") ? "" : ` --data-dir ${shellWord(dataDir)}`;
  return `STRATA_PASSWORD='<new password>' npx strata user passwd admin${dir}`;
}

function shellWord(text: string): string {
  return /^[\w./@:+-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/** Lines in a frame that stands out of a scrolling log. */
export function framed(lines: readonly string[]): string {
  const width = Math.max(...lines.map((l) => l.length));
  const rule = "═".repeat(width + 4);
  return [`╔${rule}╗`, ...lines.map((l) => `║  ${l.padEnd(width)}  ║`), `╚${rule}╝`].join("\n");
}

/**
 * The first admin password goes to a person, never into a log: shown on a terminal, in a
 * frame; else written to a file under the data directory that only the server's user can
 * read, and only that file's place is printed.
 */
export async function handOver(password: string, dataDir: string, terminal: boolean, url = ""): Promise<string> {
  const change = passwdCommand(dataDir);
  const signIn = url ? `Sign in at ${url}/ as admin, then change it (from this directory):` : "Sign in as admin, then change it:";
  if (terminal) {
    const lines = [
      `First start: created the user "admin". Its one-time password is`,
      "",
      `    ${password}`,
      "",
      "It is shown only now and stored nowhere in clear.",
      signIn,
      `    ${change}`,
    ];
    return `\n${framed(lines)}\n\n`;
  }
  const file = join(dataDir, INITIAL_PASSWORD_FILE);
  // A fresh file, created 0600 before a byte is written: an older file would keep its mode
  // while the password is written into it, and a symlink would put it wherever it points.
  await rm(file, { force: true });
  await writeFile(file, `${password}\n`, { mode: 0o600, flag: "wx" });
  return `\nFirst start: created the user "admin"; its one-time password is in ${file} (readable only by this user). Sign in, change it with: ${change}, and delete the file.\n\n`;
}
