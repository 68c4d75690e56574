/**
 * A `strata worker` in a process of its own, for the job queue's tests: started, seen ready
 * ("Strata worker taking jobs"), stopped gracefully or killed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface WorkerProcess {
  readonly pid: number;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGKILL, as a machine lost would stop it; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after 20 s. */
  close(): Promise<void>;
}

const STRATA = fileURLToPath(new URL("../../bin/strata.js", import.meta.url));

/**
 * `launcher` runs the worker through another command (e.g. ["taskset", "-c", "1"] to keep it
 * on one core, as a machine of its own would be).
 * @example
 * const worker = await startWorkerProcess(dataDir, ["--workers", "1"], { STRATA_QUEUE: redis.url, STRATA_METADATA: url });
 */
export async function startWorkerProcess(
  dataDir: string,
  flags: string[] = [],
  env: Record<string, string> = {},
  launcher: readonly string[] = [],
): Promise<WorkerProcess> {
  const [command, ...prefix] = [...launcher, process.execPath];
  const child = spawn(command, [...prefix, STRATA, "worker", "--data-dir", dataDir, ...flags], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`strata worker did not start in 60 s:\n${output}`)), 60_000);
    const ready = (): void => {
      if (!output.includes("Strata worker taking jobs")) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on("data", ready);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`strata worker exited with ${code}:\n${output}`));
    });
  });
  return { pid: child.pid!, output: () => output, kill: () => stop(child, "SIGKILL"), close: () => stop(child, "SIGTERM") };
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}
