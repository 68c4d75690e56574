/**
 * Portal items: what a user owns and shares (hosted image services, uploaded rasters).
 * These functions do not check the caller's rights: ask access.ts (canRead, canWrite)
 * first. listItems is the exception, since it must only list what the viewer may read.
 */
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import type { MetadataDb } from "../store/metadataDb.js";
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
 * const item = createItem(db, "alice", { title: "SST anomaly", serviceName: "sst_anomaly", url, properties: { datasetId } });
 */
export function createItem(db: MetadataDb, owner: string, fields: NewItem): Item {
  const id = newPortalId();
  const row = { id, ...checkNewItem(db, owner, fields) };
  writeGuarded(row.service_name, () =>
    db
      .prepare(
        `INSERT INTO items (id, owner, folder_id, title, type, type_keywords, description, snippet, tags, url, service_name,
                            access, created, modified, properties)
         VALUES (:id, :owner, :folder_id, :title, :type, :type_keywords, :description, :snippet, :tags, :url, :service_name,
                 :access, :created, :modified, :properties)`,
      )
      .run(row),
  );
  return getItem(db, id)!;
}

/**
 * The row createItem would insert, or the InvalidInputError it would throw: lets a caller
 * check an item before doing the work it describes (an upload stored, a dataset written).
 * @example
 * checkNewItem(db, "alice", { title: "x".repeat(300) }); // throws: title must be ... at most 256 characters
 */
export function checkNewItem(db: MetadataDb, owner: string, fields: NewItem) {
  const key = canonicalUsername(owner);
  if (!getUser(db, key)) throw new NotFoundError(`no user named ${owner}`, { parameter: "owner" });
  const now = Date.now();
  return {
    owner: key,
    folder_id: checkFolder(db, key, fields.folderId ?? null),
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
 * getItem(db, "3f2a9c0d5e8b4f7a9e1c2b3d4a5f6e7d")?.title;
 */
export function getItem(db: MetadataDb, id: string): Item | undefined {
  if (!isPortalId(id)) return undefined;
  const row = db.prepare(`${SELECT} WHERE i.id = ?`).get(id) as ItemRow | undefined;
  return row && toItem(row);
}

/**
 * The item of a hosted service, found by service name regardless of case.
 * @example
 * getItemByServiceName(db, "SST_Anomaly")?.id;
 */
export function getItemByServiceName(db: MetadataDb, serviceName: string): Item | undefined {
  if (typeof serviceName !== "string" || serviceName === "") return undefined;
  const row = db.prepare(`${SELECT} WHERE i.service_name = ?`).get(serviceName) as ItemRow | undefined;
  return row && toItem(row);
}

/**
 * Change some fields (absent ones keep their value) and bump `modified`. `folderId` moves the
 * item (null: to the root); `properties` replaces the whole object.
 * @example
 * updateItem(db, item.id, { title: "SST anomaly 1981-2010", properties: { datasetId: newId } });
 */
export function updateItem(db: MetadataDb, id: string, patch: ItemPatch): Item {
  return db
    .transaction(() => {
      const current = requireRow(db, id);
      const set: Record<string, unknown> = {};
      if (patch.title !== undefined) set.title = checkText(patch.title, "title", 256);
      if (patch.typeKeywords !== undefined) set.type_keywords = JSON.stringify(checkStringList(patch.typeKeywords, "typeKeywords"));
      if (patch.description !== undefined) set.description = checkLongText(patch.description, "description", 65_536);
      if (patch.snippet !== undefined) set.snippet = checkText(patch.snippet, "snippet", 2048, true);
      if (patch.tags !== undefined) set.tags = JSON.stringify(checkStringList(patch.tags, "tags"));
      if (patch.url !== undefined) set.url = checkUrl(patch.url);
      if (patch.serviceName !== undefined) set.service_name = checkServiceName(patch.serviceName);
      if (patch.folderId !== undefined) set.folder_id = checkFolder(db, current.owner, patch.folderId);
      if (patch.properties !== undefined) set.properties = checkProperties(patch.properties);
      set.modified = Math.max(Date.now(), current.modified);
      // Column names come from the fixed list above, never from the caller.
      const assignments = Object.keys(set).map((column) => `${column} = :${column}`);
      writeGuarded(set.service_name as string | null | undefined, () =>
        db.prepare(`UPDATE items SET ${assignments.join(", ")} WHERE id = :id`).run({ ...set, id }),
      );
      return getItem(db, id)!;
    })
    .immediate();
}

/**
 * Set the sharing level: "private", "org" or "public".
 * @example
 * shareItem(db, item.id, "public");
 */
export function shareItem(db: MetadataDb, id: string, access: Access): Item {
  const level = checkAccess(access);
  const changed = db.prepare("UPDATE items SET access = ?, modified = max(modified, ?) WHERE id = ?").run(level, Date.now(), id).changes;
  if (changed === 0) throw notFound(id);
  return getItem(db, id)!;
}

/**
 * @example
 * deleteItem(db, item.id);
 */
export function deleteItem(db: MetadataDb, id: string): void {
  if (!isPortalId(id) || db.prepare("DELETE FROM items WHERE id = ?").run(id).changes === 0) throw notFound(id);
}

/**
 * Items the viewer may read, oldest first, optionally narrowed to an owner and a folder.
 * @example
 * listItems(db, { owner: "alice", folderId: null, viewer }); // alice's root items the viewer may see
 */
export function listItems(db: MetadataDb, query: ItemQuery): Item[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.owner !== undefined) {
    where.push("i.owner = ?");
    params.push(canonicalUsername(query.owner));
  }
  if (query.folderId === null) where.push("i.folder_id IS NULL");
  else if (query.folderId !== undefined) {
    where.push("i.folder_id = ?");
    params.push(query.folderId);
  }
  const sql = `${SELECT}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY i.created, i.rowid`;
  // The access rule is applied here, in JS, so that canRead stays its only statement.
  return (db.prepare(sql).all(...params) as ItemRow[]).map(toItem).filter((item) => canRead(query.viewer, item));
}

function checkFolder(db: MetadataDb, ownerKey: string, folderId: unknown): string | null {
  if (folderId === null) return null;
  const folder = typeof folderId === "string" ? getFolder(db, folderId) : undefined;
  // Another user's folder is answered as no folder at all: its title and existence stay theirs.
  if (!folder || !sameUsername(folder.owner, ownerKey)) {
    throw new InvalidInputError(`you have no folder with id ${JSON.stringify(String(folderId).slice(0, 80))}`, { parameter: "folderId" });
  }
  return folder.id;
}

function requireRow(db: MetadataDb, id: string): ItemRow {
  const row = isPortalId(id) ? (db.prepare(`${SELECT} WHERE i.id = ?`).get(id) as ItemRow | undefined) : undefined;
  if (!row) throw notFound(id);
  return row;
}

/** Turn the unique-index violation on service_name into a 400 that names the service. */
function writeGuarded(serviceName: string | null | undefined, write: () => void): void {
  try {
    write();
  } catch (e) {
    if ((e as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE" && serviceName)
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
