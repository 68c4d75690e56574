/**
 * Per-user storage quotas: what a user's items take in the raster store (the bytes recorded
 * on each item when its dataset was stored, measured on disk for items older than that)
 * against the server's quota. Admins have none. Uploads and publication are refused, before
 * anything is written, when they would not fit; so are jobs of a user with nothing left.
 */
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { type Viewer, isAdmin } from "../portal/access.js";
import { type Item, listItems } from "../portal/items.js";
import { directorySize } from "../store/diskUsage.js";
import type { MetadataDb } from "../store/metadataDb.js";
import type { RasterStore } from "../store/rasterStore.js";
import { datasetIdOf } from "./publish.js";

/**
 * Bytes `owner`'s items take.
 * @example
 * await storageUsed(db, store, "ana"); // 48213504
 */
export async function storageUsed(db: MetadataDb, store: RasterStore, owner: string): Promise<number> {
  const items = await listItems(db, { owner, viewer: { username: owner, role: "admin" } });
  let total = 0;
  for (const item of items) total += await itemBytes(store, item);
  return total;
}

async function itemBytes(store: RasterStore, item: Item): Promise<number> {
  // Recorded by publishOutput and addItem when the dataset was stored.
  const recorded = item.properties.bytes;
  if (typeof recorded === "number" && recorded >= 0) return recorded;
  const id = datasetIdOf(item);
  if (!id) return 0;
  try {
    return await directorySize(await store.resolve(id));
  } catch (e) {
    if (e instanceof NotFoundError) return 0;
    throw e;
  }
}

/**
 * Bytes the viewer may still store: Infinity for admins or without a quota.
 * @example
 * await storageLeft(db, store, viewer, 10 * 1024 ** 3);
 */
export async function storageLeft(db: MetadataDb, store: RasterStore, viewer: NonNullable<Viewer>, quota: number): Promise<number> {
  if (isAdmin(viewer) || !Number.isFinite(quota)) return Infinity;
  return Math.max(0, quota - (await storageUsed(db, store, viewer.username)));
}

/**
 * Throws a 400 naming `parameter` when the viewer has no storage left.
 * @example
 * await requireStorage(db, store, viewer, quota, "outputName");
 */
export async function requireStorage(
  db: MetadataDb,
  store: RasterStore,
  viewer: NonNullable<Viewer>,
  quota: number,
  parameter: string,
): Promise<void> {
  if ((await storageLeft(db, store, viewer, quota)) > 0) return;
  throw new InvalidInputError(
    `your storage quota of ${(quota / 1024 ** 3).toFixed(2)} GiB is used up: delete items you no longer need, or ask an admin to raise it`,
    { parameter },
  );
}
