/**
 * The metadata database (users, tokens, items, folders, services, jobs): by default one SQLite
 * file under the data directory (WAL, so readers never wait on the writer); with
 * `--metadata postgres://...` a PostgreSQL database that several API nodes share. Each module
 * owns its tables and declares them as numbered migrations (sqlDb.ts), applied once, in order,
 * inside a transaction. Modules talk to it through their own small async repository
 * functions, which take a MetadataDb: the database, or a transaction in it.
 */
import { isPostgresUrl, openPostgresDb } from "./postgresDb.js";
import type { SqlDatabase, SqlExecutor } from "./sqlDb.js";
import { openSqliteDb } from "./sqliteDb.js";

/** What repository functions take: the database, or one transaction in it. */
export type MetadataDb = SqlExecutor;
/** The opened database: statements, migrations, close(). */
export type MetadataDatabase = SqlDatabase;

export type { MigrationStep } from "./sqlDb.js";

/**
 * Open the metadata database: a `postgres://` (or `postgresql://`) URL, else a SQLite file path.
 * @example
 * const db = await openMetadataDb("./data/strata.db");
 * await migrate(db, "portal", ["CREATE TABLE users (...)", "ALTER TABLE users ADD ..."]);
 */
export async function openMetadataDb(target: string): Promise<MetadataDatabase> {
  return isPostgresUrl(target) ? openPostgresDb(target) : openSqliteDb(target);
}

/**
 * Apply the migrations of `module` not yet applied; step i is steps[i].
 * @example
 * await migrate(db, "jobs", JOB_MIGRATIONS);
 */
export function migrate(db: MetadataDatabase, module: string, steps: Parameters<SqlDatabase["migrate"]>[1]): Promise<void> {
  return db.migrate(module, steps);
}
