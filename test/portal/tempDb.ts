/** A fresh portal database in a temp dir per test file, removed afterwards. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { openPortalDb } from "../../src/portal/schema.js";
import type { MetadataDb } from "../../src/store/metadataDb.js";

const dirs: string[] = [];
const dbs: MetadataDb[] = [];

after(async () => {
  for (const db of dbs) if (db.open) db.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temp directory that is removed when the file's tests end. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "strata-portal-"));
  dirs.push(dir);
  return dir;
}

/** An empty, migrated portal database and its file path. */
export async function tempDb(): Promise<{ db: MetadataDb; path: string }> {
  const path = join(await tempDir(), "strata.db");
  const db = openPortalDb(path);
  dbs.push(db);
  return { db, path };
}
