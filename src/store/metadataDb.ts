/**
 * The metadata database (users, tokens, items, folders, services, jobs): one SQLite file
 * under the data directory, opened with WAL so readers never wait on the writer. Each module
 * owns its tables and declares them as numbered migrations, applied once, in order, inside a
 * transaction. Modules talk to it through their own small repository functions, so that a
 * PostgreSQL implementation can replace this one for multi-node deployments.
 */
import Database from "better-sqlite3";

export type MetadataDb = Database.Database;

/**
 * @example
 * const db = openMetadataDb("./data/strata.db");
 * migrate(db, "portal", ["CREATE TABLE users (...)", "ALTER TABLE users ADD ..."]);
 */
export function openMetadataDb(path: string): MetadataDb {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT NOT NULL, step INTEGER NOT NULL, PRIMARY KEY (module, step))");
  return db;
}

/** Apply the migrations of `module` not yet applied; step i is statements[i]. */
export function migrate(db: MetadataDb, module: string, statements: readonly string[]): void {
  const applied = new Set(
    (db.prepare("SELECT step FROM schema_migrations WHERE module = ?").all(module) as { step: number }[]).map((r) => r.step),
  );
  const apply = db.transaction(() => {
    statements.forEach((sql, step) => {
      if (applied.has(step)) return;
      db.exec(sql);
      db.prepare("INSERT INTO schema_migrations (module, step) VALUES (?, ?)").run(module, step);
    });
  });
  apply();
}
