/**
 * Portal folders: a flat list per owner (as in ArcGIS), titles unique per owner regardless of
 * case. Items outside any folder are in the owner's root.
 */
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import type { MetadataDb } from "../store/metadataDb.js";
import { isUniqueViolation } from "../store/sqlDb.js";
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
 * const folder = await createFolder(db, "alice", "Sea temperature");
 */
export async function createFolder(db: MetadataDb, owner: string, title: string): Promise<Folder> {
  const key = canonicalUsername(owner);
  if (!(await getUser(db, key))) throw new NotFoundError(`no user named ${owner}`, { parameter: "owner" });
  const clean = checkFolderTitle(title);
  const id = newPortalId();
  try {
    await db.run("INSERT INTO folders (id, owner, title, created) VALUES (?, ?, ?, ?)", [id, key, clean, Date.now()]);
  } catch (e) {
    if (isUniqueViolation(e))
      throw new InvalidInputError(`${owner} already has a folder named ${JSON.stringify(clean)}`, { parameter: "title" });
    throw e;
  }
  return (await getFolder(db, id))!;
}

/**
 * @example
 * (await getFolder(db, id))?.title; // "Sea temperature"
 */
export async function getFolder(db: MetadataDb, id: string): Promise<Folder | undefined> {
  if (!isPortalId(id)) return undefined;
  return db.one<FolderRow>(`${SELECT} WHERE f.id = ?`, [id]);
}

/**
 * The owner's folders, by title.
 * @example
 * (await listFolders(db, "alice")).map((f) => f.title);
 */
export async function listFolders(db: MetadataDb, owner: string): Promise<Folder[]> {
  return db.all<FolderRow>(`${SELECT} WHERE f.owner = ? ORDER BY f.title, f.id`, [canonicalUsername(owner)]);
}

/**
 * Delete an empty folder; refused (InvalidInputError) while items are in it.
 * @example
 * await deleteFolder(db, folder.id);
 */
export async function deleteFolder(db: MetadataDb, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const folder = await getFolder(tx, id);
    if (!folder) throw new NotFoundError(`no folder with id ${JSON.stringify(String(id).slice(0, 80))}`, { parameter: "folderId" });
    const n = (await tx.one<{ n: number }>("SELECT count(*) AS n FROM items WHERE folder_id = ?", [id]))!.n;
    if (n > 0)
      throw new InvalidInputError(`folder ${JSON.stringify(folder.title)} holds ${n} item(s); move or delete them first`, {
        parameter: "folderId",
      });
    await tx.run("DELETE FROM folders WHERE id = ?", [id]);
  });
}

function checkFolderTitle(title: unknown): string {
  const clean = typeof title === "string" ? title.trim() : "";
  if (clean === "" || clean.length > MAX_TITLE || /[\p{Cc}/\\]/u.test(clean))
    throw new InvalidInputError(`folder title must be 1 to ${MAX_TITLE} characters, without '/', '\\' or control characters`, {
      parameter: "title",
    });
  return clean;
}
