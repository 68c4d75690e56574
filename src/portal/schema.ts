/**
 * The portal's tables in the metadata database. Usernames are stored canonical (lower-case)
 * as keys, so every foreign key and comparison is case-insensitive by construction; the form
 * the user typed is kept beside it for display.
 */
import { type MetadataDatabase, type MigrationStep, migrate, openMetadataDb } from "../store/metadataDb.js";

/**
 * PostgreSQL's spelling of step 0: BIGINT epoch milliseconds; SQLite's NOCASE (ASCII case
 * folding, for service names and folder titles) as a nondeterministic ICU collation of the
 * same name, so that the repositories' comparisons and unique keys read alike in both; and
 * items' insertion order as an identity column named like SQLite's implicit rowid.
 */
const PORTAL_V0_POSTGRES = `CREATE COLLATION IF NOT EXISTS nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
   CREATE TABLE users (
     username      TEXT PRIMARY KEY,
     display_name  TEXT NOT NULL,
     role          TEXT NOT NULL CHECK (role IN ('admin', 'publisher', 'user')),
     full_name     TEXT,
     email         TEXT,
     password_hash TEXT NOT NULL,
     created       BIGINT NOT NULL,
     modified      BIGINT NOT NULL
   );
   CREATE TABLE tokens (
     hash     TEXT PRIMARY KEY,
     username TEXT NOT NULL REFERENCES users (username) ON DELETE CASCADE,
     created  BIGINT NOT NULL,
     expires  BIGINT NOT NULL,
     client   TEXT NOT NULL CHECK (client IN ('referer', 'requestip', 'anonymous')),
     bound_to TEXT
   );
   CREATE INDEX tokens_by_user ON tokens (username);
   CREATE INDEX tokens_by_expiry ON tokens (expires);
   CREATE TABLE folders (
     id      TEXT PRIMARY KEY,
     owner   TEXT NOT NULL REFERENCES users (username) ON DELETE CASCADE,
     title   TEXT NOT NULL COLLATE nocase,
     created BIGINT NOT NULL,
     UNIQUE (owner, title),
     UNIQUE (id, owner)
   );
   CREATE TABLE items (
     rowid         BIGINT GENERATED ALWAYS AS IDENTITY,
     id            TEXT PRIMARY KEY,
     owner         TEXT NOT NULL REFERENCES users (username),
     folder_id     TEXT,
     title         TEXT NOT NULL,
     type          TEXT NOT NULL,
     type_keywords TEXT NOT NULL,
     description   TEXT NOT NULL,
     snippet       TEXT NOT NULL,
     tags          TEXT NOT NULL,
     url           TEXT,
     service_name  TEXT COLLATE nocase UNIQUE,
     access        TEXT NOT NULL CHECK (access IN ('private', 'org', 'public')),
     created       BIGINT NOT NULL,
     modified      BIGINT NOT NULL,
     properties    TEXT NOT NULL,
     FOREIGN KEY (folder_id, owner) REFERENCES folders (id, owner)
   );
   CREATE INDEX items_by_owner ON items (owner, folder_id);`;

/** Append new steps; never edit an applied one. */
const PORTAL_MIGRATIONS: readonly MigrationStep[] = [
  {
    sqlite: `CREATE TABLE users (
     username      TEXT PRIMARY KEY,
     display_name  TEXT NOT NULL,
     role          TEXT NOT NULL CHECK (role IN ('admin', 'publisher', 'user')),
     full_name     TEXT,
     email         TEXT,
     password_hash TEXT NOT NULL,
     created       INTEGER NOT NULL,
     modified      INTEGER NOT NULL
   );
   CREATE TABLE tokens (
     hash     TEXT PRIMARY KEY,
     username TEXT NOT NULL REFERENCES users (username) ON DELETE CASCADE,
     created  INTEGER NOT NULL,
     expires  INTEGER NOT NULL,
     client   TEXT NOT NULL CHECK (client IN ('referer', 'requestip', 'anonymous')),
     bound_to TEXT
   );
   CREATE INDEX tokens_by_user ON tokens (username);
   CREATE INDEX tokens_by_expiry ON tokens (expires);
   CREATE TABLE folders (
     id      TEXT PRIMARY KEY,
     owner   TEXT NOT NULL REFERENCES users (username) ON DELETE CASCADE,
     title   TEXT NOT NULL COLLATE NOCASE,
     created INTEGER NOT NULL,
     UNIQUE (owner, title),
     UNIQUE (id, owner)
   );
   CREATE TABLE items (
     id            TEXT PRIMARY KEY,
     owner         TEXT NOT NULL REFERENCES users (username),
     folder_id     TEXT,
     title         TEXT NOT NULL,
     type          TEXT NOT NULL,
     type_keywords TEXT NOT NULL,
     description   TEXT NOT NULL,
     snippet       TEXT NOT NULL,
     tags          TEXT NOT NULL,
     url           TEXT,
     service_name  TEXT COLLATE NOCASE UNIQUE,
     access        TEXT NOT NULL CHECK (access IN ('private', 'org', 'public')),
     created       INTEGER NOT NULL,
     modified      INTEGER NOT NULL,
     properties    TEXT NOT NULL,
     FOREIGN KEY (folder_id, owner) REFERENCES folders (id, owner)
   );
   CREATE INDEX items_by_owner ON items (owner, folder_id);`,
    postgres: PORTAL_V0_POSTGRES,
  },
];

/**
 * Create or upgrade the portal tables; idempotent, call once after opening the database.
 * @example
 * const db = await openMetadataDb("./data/strata.db");
 * await migratePortal(db);
 */
export function migratePortal(db: MetadataDatabase): Promise<void> {
  return migrate(db, "portal", PORTAL_MIGRATIONS);
}

/**
 * Open the metadata database at `target` (a SQLite file path or a postgres:// URL) with the
 * portal tables ready (for the CLI and tests; the server opens one database and migrates
 * every module on it).
 * @example
 * const db = await openPortalDb(join(dataDir, "strata.db"));
 * try { await listUsers(db); } finally { await db.close(); }
 */
export async function openPortalDb(target: string): Promise<MetadataDatabase> {
  const db = await openMetadataDb(target);
  try {
    await migratePortal(db);
  } catch (e) {
    await db.close();
    throw e;
  }
  return db;
}
