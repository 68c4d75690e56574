/**
 * Portal folders: a flat list per owner (as in ArcGIS), titles unique per owner regardless of
 * case. Items outside any folder are in the owner's root.
 */
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import type { MetadataDb } from "../store/metadataDb.js";
import { isPortalId, newPortalId } from "./ids.js";
import { canonicalUsername, getUser } from "./users.js";

export interface Folder {
  readonly id: string;
  /** The owner's username as displayed. */
  readonly owner: string;
  readonly title: string;
  /** Epoch milliseconds. */
  readonly created: number;
}

const MAX_TITLE = 255;

interface FolderRow {
  id: string;
  owner: string;
  title: string;
  created: number;
}

const SELECT = "SELECT f.id, u.display_name AS owner, f.title, f.created FROM folders f JOIN users u ON u.username = f.owner";

/**
 * @example
 * const folder = createFolder(db, "alice", "Sea temperature");
 */
export function createFolder(db: MetadataDb, owner: string, title: string): Folder {
  const key = canonicalUsername(owner);
  if (!getUser(db, key)) throw new NotFoundError(`no user named ${owner}`, { parameter: "owner" });
  const clean = checkFolderTitle(title);
  const id = newPortalId();
  try {
    db.prepare("INSERT INTO folders (id, owner, title, created) VALUES (?, ?, ?, ?)").run(id, key, clean, Date.now());
  } catch (e) {
    if ((e as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE")
      throw new InvalidInputError(`${owner} already has a folder named ${JSON.stringify(clean)}`, { parameter: "title" });
    throw e;
  }
  return getFolder(db, id)!;
}

/**
 * @example
 * getFolder(db, id)?.title; // "Sea temperature"
 */
export function getFolder(db: MetadataDb, id: string): Folder | undefined {
  if (!isPortalId(id)) return undefined;
  return db.prepare(`${SELECT} WHERE f.id = ?`).get(id) as FolderRow | undefined;
}

/**
 * The owner's folders, by title.
 * @example
 * listFolders(db, "alice").map((f) => f.title);
 */
export function listFolders(db: MetadataDb, owner: string): Folder[] {
  return db.prepare(`${SELECT} WHERE f.owner = ? ORDER BY f.title, f.id`).all(canonicalUsername(owner)) as FolderRow[];
}

/**
 * Delete an empty folder; refused (InvalidInputError) while items are in it.
 * @example
 * deleteFolder(db, folder.id);
 */
export function deleteFolder(db: MetadataDb, id: string): void {
  db.transaction(() => {
    const folder = getFolder(db, id);
    if (!folder) throw new NotFoundError(`no folder with id ${JSON.stringify(String(id).slice(0, 80))}`, { parameter: "folderId" });
    const n = (db.prepare("SELECT count(*) AS n FROM items WHERE folder_id = ?").get(id) as { n: number }).n;
    if (n > 0)
      throw new InvalidInputError(`folder ${JSON.stringify(folder.title)} holds ${n} item(s); move or delete them first`, {
        parameter: "folderId",
      });
    db.prepare("DELETE FROM folders WHERE id = ?").run(id);
  }).immediate();
}

function checkFolderTitle(title: unknown): string {
  const clean = typeof title === "string" ? title.trim() : "";
  if (clean === "" || clean.length > MAX_TITLE || /[\p{Cc}/\\]/u.test(clean))
    throw new InvalidInputError(`folder title must be 1 to ${MAX_TITLE} characters, without '/', '\\' or control characters`, {
      parameter: "title",
    });
  return clean;
}
