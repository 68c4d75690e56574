/**
 * A throwaway Redis for tests: Debian's redis-server on a free loopback port, with its own
 * temp directory and no persistence, stopped (and the directory removed) by stop().
 * scripts/system-packages.sh installs redis-server when missing.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { freePort } from "./freePort.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const SYSTEM_PACKAGES = fileURLToPath(new URL("../../scripts/system-packages.sh", import.meta.url));

export interface TestRedis {
  /** e.g. redis://127.0.0.1:41234 */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

async function hasRedis(): Promise<boolean> {
  return run("redis-server", ["--version"]).then(
    () => true,
    () => false,
  );
}

/**
 * @example
 * const redis = await startRedis();
 * // ... strata serve --queue redis.url
 * await redis.stop();
 */
export async function startRedis(): Promise<TestRedis> {
  if (!(await hasRedis())) await run("bash", [SYSTEM_PACKAGES], { timeout: 600_000 });
  const dir = await mkdtemp(join(tmpdir(), "strata-redis-"));
  const port = await freePort();
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--daemonize", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start in 20 s:\n${output}`)), 20_000);
      const ready = (): void => {
        if (!/Ready to accept connections/.test(output)) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout!.on("data", ready);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  } catch (e) {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
          child.once("exit", () => {
            clearTimeout(force);
            resolve();
          });
          child.kill("SIGTERM");
        });
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
