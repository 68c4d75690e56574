/**
 * Portal items: what a user owns and shares (hosted image services, uploaded rasters).
 * These functions do not check the caller's rights: ask access.ts (canRead, canWrite)
 * first. listItems is the exception, since it must only list what the viewer may read.
 */
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import type { MetadataDb } from "../store/metadataDb.js";
import { type SqlValue, isUniqueViolation } from "../store/sqlDb.js";
import { canRead, type Access, type Viewer } from "./access.js";
import { getFolder } from "./folders.js";
import { isPortalId, newPortalId } from "./ids.js";
import { checkAccess, checkLongText, checkProperties, checkServiceName, checkStringList, checkText, checkUrl } from "./itemFields.js";
import { canonicalUsername, getUser, sameUsername } from "./users.js";

export interface Item {
  /** 32 lower-case hex digits. */
  readonly id: string;
  /** The owner's username as displayed. */
  readonly owner: string;
  /** null: the owner's root folder. */
  readonly folderId: string | null;
  readonly title: string;
  readonly type: string;
  readonly typeKeywords: string[];
  readonly description: string;
  readonly snippet: string;
  readonly tags: string[];
  readonly url: string | null;
  /** The hosted service the item stands for, unique among items regardless of case. */
  readonly serviceName: string | null;
  readonly access: Access;
  /** Epoch milliseconds. */
  readonly created: number;
  readonly modified: number;
  /** Free JSON for the owning module, e.g. { datasetId }. */
  readonly properties: Record<string, unknown>;
}

export interface NewItem {
  title: string;
  /** Default "Image Service". */
  type?: string;
  typeKeywords?: string[];
  description?: string;
  snippet?: string;
  tags?: string[];
  url?: string | null;
  serviceName?: string | null;
  /** Default "private". */
  access?: Access;
  folderId?: string | null;
  properties?: Record<string, unknown>;
}

/** Fields updateItem may change; sharing goes through shareItem, ownership never changes. */
export type ItemPatch = Partial<Omit<NewItem, "type" | "access">>;

export interface ItemQuery {
  /** Only items of this owner. */
  owner?: string;
  /** Only items in this folder; null: only items in the owner's root folder. */
  folderId?: string | null;
  /** Who is asking: only what they may read is listed. */
  viewer: Viewer;
}

interface ItemRow {
  id: string;
  owner_display: string;
  owner: string;
  folder_id: string | null;
  title: string;
  type: string;
  type_keywords: string;
  description: string;
  snippet: string;
  tags: string;
  url: string | null;
  service_name: string | null;
  access: Access;
  created: number;
  modified: number;
  properties: string;
}

const SELECT = "SELECT i.*, u.display_name AS owner_display FROM items i JOIN users u ON u.username = i.owner";

/**
 * @example
 * const item = await createItem(db, "alice", { title: "SST anomaly", serviceName: "sst_anomaly", url, properties: { datasetId } });
 */
export async function createItem(db: MetadataDb, owner: string, fields: NewItem): Promise<Item> {
  const id = newPortalId();
  const row = { id, ...(await checkNewItem(db, owner, fields)) };
  const columns = Object.keys(row) as (keyof typeof row)[];
  await writeGuarded(row.service_name, () =>
    db.run(
      `INSERT INTO items (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      columns.map((c) => row[c]),
    ),
  );
  return (await getItem(db, id))!;
}

/**
 * The row createItem would insert, or the InvalidInputError it would throw: lets a caller
 * check an item before doing the work it describes (an upload stored, a dataset written).
 * @example
 * await checkNewItem(db, "alice", { title: "x".repeat(300) }); // throws: title must be ... at most 256 characters
 */
export async function checkNewItem(db: MetadataDb, owner: string, fields: NewItem) {
  const key = canonicalUsername(owner);
  if (!(await getUser(db, key))) throw new NotFoundError(`no user named ${owner}`, { parameter: "owner" });
  const now = Date.now();
  return {
    owner: key,
    folder_id: await checkFolder(db, key, fields.folderId ?? null),
    title: checkText(fields.title, "title", 256),
    type: checkText(fields.type ?? "Image Service", "type", 64),
    type_keywords: JSON.stringify(checkStringList(fields.typeKeywords ?? [], "typeKeywords")),
    description: checkLongText(fields.description ?? "", "description", 65_536),
    snippet: checkText(fields.snippet ?? "", "snippet", 2048, true),
    tags: JSON.stringify(checkStringList(fields.tags ?? [], "tags")),
    url: checkUrl(fields.url ?? null),
    service_name: checkServiceName(fields.serviceName ?? null),
    access: checkAccess(fields.access ?? "private"),
    created: now,
    modified: now,
    properties: checkProperties(fields.properties ?? {}),
  };
}

/**
 * @example
 * (await getItem(db, "3f2a9c0d5e8b4f7a9e1c2b3d4a5f6e7d"))?.title;
 */
export async function getItem(db: MetadataDb, id: string): Promise<Item | undefined> {
  if (!isPortalId(id)) return undefined;
  const row = await db.one<ItemRow>(`${SELECT} WHERE i.id = ?`, [id]);
  return row && toItem(row);
}

/**
 * The item of a hosted service, found by service name regardless of case.
 * @example
 * (await getItemByServiceName(db, "SST_Anomaly"))?.id;
 */
export async function getItemByServiceName(db: MetadataDb, serviceName: string): Promise<Item | undefined> {
  if (typeof serviceName !== "string" || serviceName === "") return undefined;
  const row = await db.one<ItemRow>(`${SELECT} WHERE i.service_name = ?`, [serviceName]);
  return row && toItem(row);
}

/**
 * Change some fields (absent ones keep their value) and bump `modified`. `folderId` moves the
 * item (null: to the root); `properties` replaces the whole object.
 * @example
 * await updateItem(db, item.id, { title: "SST anomaly 1981-2010", properties: { datasetId: newId } });
 */
export async function updateItem(db: MetadataDb, id: string, patch: ItemPatch): Promise<Item> {
  return db.transaction(async (tx) => {
    const current = await requireRow(tx, id);
    const set: Record<string, SqlValue> = {};
    if (patch.title !== undefined) set.title = checkText(patch.title, "title", 256);
    if (patch.typeKeywords !== undefined) set.type_keywords = JSON.stringify(checkStringList(patch.typeKeywords, "typeKeywords"));
    if (patch.description !== undefined) set.description = checkLongText(patch.description, "description", 65_536);
    if (patch.snippet !== undefined) set.snippet = checkText(patch.snippet, "snippet", 2048, true);
    if (patch.tags !== undefined) set.tags = JSON.stringify(checkStringList(patch.tags, "tags"));
    if (patch.url !== undefined) set.url = checkUrl(patch.url);
    if (patch.serviceName !== undefined) set.service_name = checkServiceName(patch.serviceName);
    if (patch.folderId !== undefined) set.folder_id = await checkFolder(tx, current.owner, patch.folderId);
    if (patch.properties !== undefined) set.properties = checkProperties(patch.properties);
    set.modified = Math.max(Date.now(), current.modified);
    // Column names come from the fixed list above, never from the caller.
    const columns = Object.keys(set);
    await writeGuarded(set.service_name as string | null | undefined, () =>
      tx.run(`UPDATE items SET ${columns.map((column) => `${column} = ?`).join(", ")} WHERE id = ?`, [...columns.map((c) => set[c]), id]),
    );
    return (await getItem(tx, id))!;
  });
}

/**
 * Set the sharing level: "private", "org" or "public".
 * @example
 * await shareItem(db, item.id, "public");
 */
export async function shareItem(db: MetadataDb, id: string, access: Access): Promise<Item> {
  const level = checkAccess(access);
  const now = Date.now();
  // CASE rather than SQLite's max(a, b) / PostgreSQL's greatest(a, b): both read it.
  const changed = await db.run("UPDATE items SET access = ?, modified = CASE WHEN modified > ? THEN modified ELSE ? END WHERE id = ?", [
    level,
    now,
    now,
    id,
  ]);
  if (changed === 0) throw notFound(id);
  return (await getItem(db, id))!;
}

/**
 * @example
 * await deleteItem(db, item.id);
 */
export async function deleteItem(db: MetadataDb, id: string): Promise<void> {
  if (!isPortalId(id) || (await db.run("DELETE FROM items WHERE id = ?", [id])) === 0) throw notFound(id);
}

/**
 * Items the viewer may read, oldest first, optionally narrowed to an owner and a folder.
 * @example
 * await listItems(db, { owner: "alice", folderId: null, viewer }); // alice's root items the viewer may see
 */
export async function listItems(db: MetadataDb, query: ItemQuery): Promise<Item[]> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (query.owner !== undefined) {
    where.push("i.owner = ?");
    params.push(canonicalUsername(query.owner));
  }
  if (query.folderId === null) where.push("i.folder_id IS NULL");
  else if (query.folderId !== undefined) {
    where.push("i.folder_id = ?");
    params.push(query.folderId);
  }
  // rowid: SQLite's implicit one, or the identity column of that name PostgreSQL's items have.
  const sql = `${SELECT}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY i.created, i.rowid`;
  // The access rule is applied here, in JS, so that canRead stays its only statement.
  return (await db.all<ItemRow>(sql, params)).map(toItem).filter((item) => canRead(query.viewer, item));
}

async function checkFolder(db: MetadataDb, ownerKey: string, folderId: unknown): Promise<string | null> {
  if (folderId === null) return null;
  const folder = typeof folderId === "string" ? await getFolder(db, folderId) : undefined;
  // Another user's folder is answered as no folder at all: its title and existence stay theirs.
  if (!folder || !sameUsername(folder.owner, ownerKey)) {
    throw new InvalidInputError(`you have no folder with id ${JSON.stringify(String(folderId).slice(0, 80))}`, { parameter: "folderId" });
  }
  return folder.id;
}

async function requireRow(db: MetadataDb, id: string): Promise<ItemRow> {
  const row = isPortalId(id) ? await db.one<ItemRow>(`${SELECT} WHERE i.id = ?`, [id]) : undefined;
  if (!row) throw notFound(id);
  return row;
}

/** Turn the unique-index violation on service_name into a 400 that names the service. */
async function writeGuarded(serviceName: string | null | undefined, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (e) {
    if (isUniqueViolation(e) && serviceName)
      throw new InvalidInputError(`a service named ${serviceName} already exists; choose another name`, { parameter: "serviceName" });
    throw e;
  }
}

function toItem(row: ItemRow): Item {
  return {
    id: row.id,
    owner: row.owner_display,
    folderId: row.folder_id,
    title: row.title,
    type: row.type,
    typeKeywords: JSON.parse(row.type_keywords) as string[],
    description: row.description,
    snippet: row.snippet,
    tags: JSON.parse(row.tags) as string[],
    url: row.url,
    serviceName: row.service_name,
    access: row.access,
    created: row.created,
    modified: row.modified,
    properties: JSON.parse(row.properties) as Record<string, unknown>,
  };
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`no item with id ${JSON.stringify(String(id).slice(0, 80))}`, { parameter: "itemId" });
}
