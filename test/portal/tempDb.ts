/** A fresh portal database per test, on either backend, closed and removed afterwards. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { openPortalDb } from "../../src/portal/schema.js";
import type { MetadataDatabase } from "../../src/store/metadataDb.js";
import { type BackendName, closeAtEnd, freshMetadata } from "../helpers/metadataBackends.js";

export { BACKENDS, type BackendName } from "../helpers/metadataBackends.js";

const dirs: string[] = [];

after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temp directory that is removed when the file's tests end. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "strata-portal-"));
  dirs.push(dir);
  return dir;
}

/** An empty, migrated portal database; `path` is the SQLite file (absent on PostgreSQL). */
export async function tempDb(backend: BackendName = "sqlite"): Promise<{ db: MetadataDatabase; path?: string }> {
  const { target, path } = await freshMetadata(backend);
  return { db: closeAtEnd(await openPortalDb(target)), path };
}
