/**
 * A throwaway PostgreSQL 15 for tests: initdb into a temp directory, `postgres` on a free
 * loopback port (as the `postgres` OS user when the tests run as root, since PostgreSQL will
 * not run as root), with a password so that URLs carry one as in production. Each test asks
 * for a fresh database (`createDatabase`); `stop()` shuts the server down and removes the
 * directory. Debian's postgresql-15 is installed by scripts/system-packages.sh when missing.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { freePort } from "./freePort.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
const BIN = "/usr/lib/postgresql/15/bin";
const SYSTEM_PACKAGES = fileURLToPath(new URL("../../scripts/system-packages.sh", import.meta.url));
const USER = "strata_test";

export interface TestPostgres {
  /** The server's URL without a database, e.g. postgres://strata_test:pw@127.0.0.1:41234 */
  readonly baseUrl: string;
  readonly password: string;
  /** A new empty database; resolves to its URL (with the password). */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * @example
 * const server = await startPostgres();
 * const url = await server.createDatabase();
 * // ... strata serve --metadata url
 * await server.stop();
 */
export async function startPostgres(): Promise<TestPostgres> {
  if (!existsSync(join(BIN, "postgres"))) await run("bash", [SYSTEM_PACKAGES], { timeout: 600_000 });
  const dir = await mkdtemp(join(tmpdir(), "strata-pg-"));
  let child: ChildProcess | undefined;
  try {
    const owner = await osUser();
    if (owner) await chown(dir, owner.uid, owner.gid);
    const password = `pw-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;
    const pwfile = join(dir, "pwfile");
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (owner) await chown(pwfile, owner.uid, owner.gid);
    const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
    const data = join(dir, "data");
    await run(
      join(BIN, "initdb"),
      ["-D", data, "-U", USER, `--pwfile=${pwfile}`, "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"],
      { ...as, cwd: dir, timeout: 120_000 },
    );
    const port = await freePort();
    child = spawn(
      join(BIN, "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=100",
      ],
      { ...as, cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
    );
    let log = "";
    child.stderr!.on("data", (c: Buffer) => (log = (log + c.toString()).slice(-4000)));
    const baseUrl = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    await waitUntilReady(`${baseUrl}/postgres`, child, () => log);
    const server = child;
    let n = 0;
    return {
      baseUrl,
      password,
      async createDatabase() {
        const name = `strata_${process.pid}_${++n}`;
        const client = new pg.Client({ connectionString: `${baseUrl}/postgres` });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${name}`);
        } finally {
          await client.end();
        }
        return `${baseUrl}/${name}`;
      },
      async stop() {
        await stopProcess(server);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    if (child) await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

/** The `postgres` OS user's ids when running as root (PostgreSQL refuses to run as root). */
async function osUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const { stdout: uid } = await run("id", ["-u", "postgres"]);
  const { stdout: gid } = await run("id", ["-g", "postgres"]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

async function waitUntilReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}:\n${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (e) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections in 60 s (${(e as Error).message}):\n${log()}`, { cause: e });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    // SIGINT: PostgreSQL's fast shutdown (clients disconnected, no waiting for them).
    child.kill("SIGINT");
  });
}
