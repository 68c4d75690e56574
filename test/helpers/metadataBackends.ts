/**
 * The metadata backends repository tests run against: the embedded SQLite file and a
 * throwaway PostgreSQL (postgres.ts), started once per test file on first use and stopped
 * when the file's tests end. `STRATA_TEST_BACKENDS=sqlite` runs the SQLite half only.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { type MetadataDatabase, openMetadataDb } from "../../src/store/metadataDb.js";
import { type TestPostgres, startPostgres } from "./postgres.js";

export type BackendName = "sqlite" | "postgres";

export const BACKENDS: readonly BackendName[] = (["sqlite", "postgres"] as const).filter((b) =>
  (process.env.STRATA_TEST_BACKENDS ?? "sqlite,postgres").split(",").includes(b),
);

export interface TestMetadata {
  /** What to open: the SQLite file's path or the PostgreSQL database's URL. */
  readonly target: string;
  /** The SQLite file, for tests that look inside it. */
  readonly path?: string;
}

let server: Promise<TestPostgres> | undefined;
const dirs: string[] = [];
const open: MetadataDatabase[] = [];

after(async () => {
  // Connections first: the server goes next.
  for (const db of open.splice(0)) await db.close().catch(() => undefined);
  // pg's pool.end() resolves before its sockets have closed; let them, so the server's
  // shutdown does not cut them (and log it).
  if (server) await new Promise((resolve) => setTimeout(resolve, 200));
  if (server) await (await server).stop();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The shared throwaway PostgreSQL of this test file, started on first use. */
export function testPostgres(): Promise<TestPostgres> {
  server ??= startPostgres();
  return server;
}

/**
 * A fresh, empty metadata database of `backend` (removed when the file's tests end).
 * @example
 * const { target } = await freshMetadata("postgres");
 * const db = await openMetadataDb(target);
 */
export async function freshMetadata(backend: BackendName): Promise<TestMetadata> {
  if (backend === "postgres") return { target: await (await testPostgres()).createDatabase() };
  const dir = await mkdtemp(join(tmpdir(), "strata-metadata-"));
  dirs.push(dir);
  const path = join(dir, "strata.db");
  return { target: path, path };
}

/** Close `db` (if still open) when the file's tests end, before the server stops. */
export function closeAtEnd<T extends MetadataDatabase>(db: T): T {
  open.push(db);
  return db;
}

/** A fresh database of `backend`, opened (and closed when the file's tests end). */
export async function openFreshMetadata(backend: BackendName): Promise<{ db: MetadataDatabase; target: string; path?: string }> {
  const fresh = await freshMetadata(backend);
  return { db: closeAtEnd(await openMetadataDb(fresh.target)), ...fresh };
}
