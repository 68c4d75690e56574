/**
 * The portal's tables in the metadata database. Usernames are stored canonical (lower-case)
 * as keys, so every foreign key and comparison is case-insensitive by construction; the form
 * the user typed is kept beside it for display.
 */
import { migrate, openMetadataDb, type MetadataDb } from "../store/metadataDb.js";

/** Append new steps; never edit an applied one. */
const PORTAL_MIGRATIONS: readonly string[] = [
  `CREATE TABLE users (
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
];

/**
 * Create or upgrade the portal tables; idempotent, call once after opening the database.
 * @example
 * const db = openMetadataDb("./data/strata.db");
 * migratePortal(db);
 */
export function migratePortal(db: MetadataDb): void {
  migrate(db, "portal", PORTAL_MIGRATIONS);
}

/**
 * Open the metadata database at `path` with the portal tables ready (for the CLI and tests;
 * the server opens one database and migrates every module on it).
 * @example
 * const db = openPortalDb(join(dataDir, "strata.db"));
 * try { listUsers(db); } finally { db.close(); }
 */
export function openPortalDb(path: string): MetadataDb {
  const db = openMetadataDb(path);
  try {
    migratePortal(db);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}
