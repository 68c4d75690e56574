/**
 * Publication (SPEC §5): a hosted image service is a portal item with a service name whose
 * properties point at a committed dataset. Creating one makes the item; updating one points
 * the existing item at a new dataset in one UPDATE (atomic for readers), then removes the
 * old dataset. Item id and URL never change on update.
 */
import { InvalidInputError } from "../cube/errors.js";
import { joinLocation } from "../io/s3Location.js";
import { canWrite, type Viewer } from "../portal/access.js";
import { type NewItem, checkNewItem, createItem, getItem, getItemByServiceName, updateItem } from "../portal/items.js";
import { directorySize } from "../store/diskUsage.js";
import type { MetadataDb } from "../store/metadataDb.js";
import type { RasterStore } from "../store/rasterStore.js";
import type { OutputTarget } from "../tasks/types.js";
import { type ServerUrls, serviceUrl } from "./urls.js";

export interface Published {
  readonly url: string;
  readonly itemId: string;
}

/** typeKeywords ArcGIS gives hosted multidimensional image services. */
export const HOSTED_TYPE_KEYWORDS: readonly string[] = ["Dynamic Imagery", "Multidimensional", "Hosted Service", "Raster"];

/**
 * @example
 * const { url, itemId } = await publishOutput(db, store, urls, { kind: "create", serviceName: "sst", itemProperties: {} }, "alice", datasetId);
 * await publishOutput(db, store, urls, target, "alice", output.datasetId, output.bytes); // a job's run measured it
 */
export async function publishOutput(
  db: MetadataDb,
  store: RasterStore,
  urls: ServerUrls,
  target: OutputTarget,
  owner: string,
  datasetId: string,
  measured?: number,
): Promise<Published> {
  // Recorded for quotas (services/quota.ts): measured once, when the dataset is complete (by
  // the job's thread when `measured` is given).
  const bytes =
    measured !== undefined && Number.isFinite(measured) && measured >= 0 ? measured : await directorySize(await store.resolve(datasetId));
  if (target.kind === "create") {
    if (await getItemByServiceName(db, target.serviceName)) {
      throw new InvalidInputError(`the service name ${target.serviceName} was taken while the job ran`, { parameter: "outputName" });
    }
    const item = await createItem(db, owner, { ...outputItem(urls, target), properties: { datasetId, bytes } });
    return { url: item.url!, itemId: item.id };
  }
  const item = await getItem(db, target.itemId);
  if (!item || !item.serviceName)
    throw new InvalidInputError(`the service to update (item ${target.itemId}) no longer exists`, { parameter: "outputName" });
  const old = item.properties.datasetId;
  await updateItem(db, item.id, { properties: { ...item.properties, datasetId, bytes } });
  if (typeof old === "string" && old !== datasetId) await store.remove(old).catch(() => undefined);
  return { url: item.url ?? serviceUrl(urls, item.serviceName), itemId: item.id };
}

/** The item a new output service gets, from the job's itemProperties. */
function outputItem(urls: ServerUrls, target: Extract<OutputTarget, { kind: "create" }>): NewItem {
  const p = target.itemProperties;
  return {
    title: typeof p.title === "string" && p.title ? p.title : target.serviceName,
    description: typeof p.description === "string" ? p.description : "",
    snippet: typeof p.snippet === "string" ? p.snippet : "",
    tags: Array.isArray(p.tags) ? p.tags.map(String) : typeof p.tags === "string" ? p.tags.split(",").map((t) => t.trim()) : [],
    folderId: typeof p.folderId === "string" && p.folderId ? p.folderId : null,
    typeKeywords: [...HOSTED_TYPE_KEYWORDS],
    serviceName: target.serviceName,
    url: serviceUrl(urls, target.serviceName),
  };
}

/**
 * Refuse at submit what would fail at publication (a folder not the owner's, a title too
 * long), so a job never runs to the end to fail there.
 * @example
 * await checkOutputItem(db, urls, target, "alice"); // throws InvalidInputError naming outputName
 */
export async function checkOutputItem(
  db: MetadataDb,
  urls: ServerUrls,
  target: Extract<OutputTarget, { kind: "create" }>,
  owner: string,
): Promise<void> {
  try {
    await checkNewItem(db, owner, outputItem(urls, target));
  } catch (e) {
    if (e instanceof InvalidInputError) {
      throw new InvalidInputError(`outputName: itemProperties.${e.parameter ?? "?"}: ${e.message}`, { parameter: "outputName" });
    }
    throw e;
  }
}

/** The dataset a hosted service item serves. */
export function datasetIdOf(item: { properties: Record<string, unknown> }): string | undefined {
  const id = item.properties.datasetId;
  return typeof id === "string" ? id : undefined;
}

/** Whether the viewer may replace this service's data. */
export function canUpdateService(viewer: Viewer, item: { owner: string; serviceName: string | null }): boolean {
  return item.serviceName !== null && canWrite(viewer, item);
}

/**
 * Where an item's raster is: its dataset's location (a Zarr store: a directory, or an S3
 * prefix), or the single file an upload put in it (`properties.file`).
 * @example
 * const path = datasetFile(await store.resolve(datasetIdOf(item)!), item);
 */
export function datasetFile(dir: string, item: { properties: Record<string, unknown> }): string {
  const file = item.properties.file;
  return typeof file === "string" && /^[A-Za-z0-9_-]+\.[a-z0-9]+$/.test(file) ? joinLocation(dir, file) : dir;
}
