/**
 * A real Strata server in a process of its own (`strata serve` on a free loopback port), for
 * tests that measure what the server does with its memory and time, apart from the test's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export interface ServerProcess {
  /** Public base URL, e.g. http://127.0.0.1:40123/arcgis */
  readonly url: string;
  readonly pid: number;
  /** The server process's resident memory now, in MB (Linux /proc). */
  rssMb(): Promise<number>;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
  close(): Promise<void>;
}

const STRATA = fileURLToPath(new URL("../../bin/strata.js", import.meta.url));

/**
 * @example
 * const server = await startServerProcess(dataDir, ["--work-threads", "2"], { STRATA_METADATA: url });
 * await fetch(`${server.url}/rest/info?f=json`);
 * await server.close();
 */
export async function startServerProcess(dataDir: string, flags: string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [STRATA, "serve", "--port", "0", "--data-dir", dataDir, "--log-level", "warn", ...flags], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`strata serve did not start in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const m = output.match(/Strata is serving (\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`strata serve exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    pid: child.pid!,
    async rssMb() {
      const status = await readFile(`/proc/${child.pid}/status`, "utf8");
      return Number(status.match(/VmRSS:\s+(\d+)\s+kB/)![1]) / 1024;
    },
    output: () => output,
    close: () => stop(child),
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
