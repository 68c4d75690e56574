/**
 * Input raster descriptors (SPEC §4) and output descriptors (SPEC §5), resolved for one
 * caller at submit time: every failure is a 400 naming the parameter (403 when the caller
 * may not read or change what it names), before any job exists.
 */
import { InvalidInputError, NotFoundError, StrataError } from "../cube/errors.js";
import { openLocation } from "../io/open.js";
import { type Viewer, canRead } from "../portal/access.js";
import { AuthError } from "../portal/errors.js";
import { getFolder } from "../portal/folders.js";
import { getItem, getItemByServiceName, listItems } from "../portal/items.js";
import { sameUsername } from "../portal/users.js";
import type { DataStoreRegistry } from "../store/dataStores.js";
import type { MetadataDb } from "../store/metadataDb.js";
import type { RasterStore } from "../store/rasterStore.js";
import { INPUT_DESCRIPTOR_KEYS, type InputLocation, type OutputTarget, type ParseEnv } from "../tasks/types.js";
import { canUpdateService, checkOutputItem, datasetFile, datasetIdOf } from "./publish.js";
import { type ServerUrls, hostedServiceName } from "./urls.js";

export interface ResolveDeps {
  readonly db: MetadataDb;
  readonly store: RasterStore;
  readonly dataStores: DataStoreRegistry;
  readonly urls: ServerUrls;
  /** Hosts whose Zarr stores may be read by URL (SPEC §4 allow-list). */
  readonly allowedHosts: readonly string[];
}

const SERVICE_NAME = /^[A-Za-z0-9_]{1,120}$/;

/**
 * @example
 * const env = parseEnvFor(deps, viewer);
 * const { location } = await env.resolveInput({ itemId }, "inputMultidimensionalRaster");
 */
export function parseEnvFor(deps: ResolveDeps, viewer: Viewer): ParseEnv {
  return {
    resolveInput: (descriptor, parameter) => resolveInput(deps, viewer, descriptor, parameter),
    resolveOutput: (descriptor, parameter) => resolveOutput(deps, viewer, descriptor, parameter),
    async openCube(location: InputLocation, parameter: string) {
      try {
        return await openLocation(location, parameter);
      } catch (e) {
        if (e instanceof StrataError) throw new InvalidInputError(`${parameter}: ${e.message}`, { parameter, cause: e });
        throw e;
      }
    },
  };
}

async function resolveInput(
  deps: ResolveDeps,
  viewer: Viewer,
  descriptor: unknown,
  parameter: string,
): Promise<{ location: InputLocation; warnings: string[] }> {
  if (typeof descriptor !== "object" || descriptor === null || Array.isArray(descriptor)) {
    throw new InvalidInputError(`${parameter} must be a JSON object with itemId, url, uri or folderId`, { parameter });
  }
  const d = descriptor as Record<string, unknown>;
  const present = INPUT_DESCRIPTOR_KEYS.filter((k) => d[k] !== undefined && d[k] !== null && d[k] !== "");
  if (present.length === 0) throw new InvalidInputError(`${parameter} names no raster: give itemId, url, uri or folderId`, { parameter });
  const [key, ...ignored] = present;
  const warnings = ignored.length
    ? [`${parameter}: ${key} was used; ${ignored.join(", ")} ignored (itemId wins, then url, uri, folderId)`]
    : [];
  const value = d[key];
  if (typeof value !== "string") throw new InvalidInputError(`${parameter}.${key} must be a string`, { parameter });
  const fail = (why: string) => new InvalidInputError(`${parameter}: ${why}`, { parameter });

  if (key === "itemId") {
    const item = await getItem(deps.db, value);
    if (!item) throw fail(`no item with id ${value}`);
    if (!canRead(viewer, item))
      throw new AuthError(403, undefined, { details: [`${parameter}: you may not read item ${value}`], parameter });
    return { location: await itemLocation(deps, item, parameter), warnings };
  }
  if (key === "url") {
    const name = hostedServiceName(deps.urls, value);
    if (name) {
      const item = await getItemByServiceName(deps.db, name);
      if (!item) throw fail(`there is no hosted image service named ${name}`);
      if (!canRead(viewer, item))
        throw new AuthError(403, undefined, { details: [`${parameter}: you may not read service ${name}`], parameter });
      return { location: await itemLocation(deps, item, parameter), warnings };
    }
    let host: string;
    try {
      const u = new URL(value);
      if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error("not http");
      host = u.host.toLowerCase();
    } catch {
      throw fail(`"${value}" is not an http(s) URL`);
    }
    if (!deps.allowedHosts.map((h) => h.toLowerCase()).includes(host)) {
      throw fail(`${value} is not a hosted image service of this server, and ${host} is not on the allow-list of remote Zarr stores`);
    }
    return { location: { url: value }, warnings };
  }
  if (key === "uri") {
    try {
      const found = await deps.dataStores.resolve(value);
      return { location: found.kind === "file" ? { path: found.path, label: value } : { url: found.url, label: value }, warnings };
    } catch (e) {
      if (e instanceof StrataError) throw fail(e.message);
      throw e;
    }
  }
  return { location: await folderLocation(deps, viewer, value, parameter), warnings };
}

/** A folder's raster items the caller can read, to be stacked along their shared dimension. */
async function folderLocation(deps: ResolveDeps, viewer: Viewer, folderId: string, parameter: string): Promise<InputLocation> {
  const folder = await getFolder(deps.db, folderId);
  if (!folder) throw new InvalidInputError(`${parameter}: no folder with id ${folderId}`, { parameter });
  const items = (await listItems(deps.db, { owner: folder.owner, folderId, viewer })).filter((i) => datasetIdOf(i));
  // Another user's folder is named by its id only: its title is theirs.
  const named = viewer && sameUsername(viewer.username, folder.owner) ? `folder ${folder.title}` : `folder ${folderId}`;
  if (items.length === 0) throw new InvalidInputError(`${parameter}: ${named} holds no raster you can read`, { parameter });
  const stack = [];
  for (const item of items) stack.push({ name: item.serviceName ?? item.title, ...(await itemLocation(deps, item, parameter)) });
  return { stack };
}

async function itemLocation(
  deps: ResolveDeps,
  item: { id: string; properties: Record<string, unknown> },
  parameter: string,
): Promise<InputLocation> {
  const datasetId = datasetIdOf(item);
  if (!datasetId) throw new InvalidInputError(`${parameter}: item ${item.id} has no raster data`, { parameter });
  try {
    return { path: datasetFile(await deps.store.resolve(datasetId), item), label: `item ${item.id}` };
  } catch (e) {
    if (e instanceof NotFoundError)
      throw new InvalidInputError(`${parameter}: the data of item ${item.id} is missing from the raster store`, { parameter });
    throw e;
  }
}

async function resolveOutput(deps: ResolveDeps, viewer: Viewer, descriptor: unknown, parameter: string): Promise<OutputTarget> {
  const fail = (why: string) => new InvalidInputError(`${parameter}: ${why}`, { parameter });
  // A bare string is a service name, as some clients send it.
  const d = (typeof descriptor === "string" ? { serviceProperties: { name: descriptor } } : descriptor) as Record<string, unknown> | null;
  if (typeof d !== "object" || d === null || Array.isArray(d))
    throw fail('must be a JSON object such as {"serviceProperties":{"name":"my_output"}}');
  const service = (d.serviceProperties ?? {}) as Record<string, unknown>;
  const item = (d.itemProperties ?? {}) as Record<string, unknown>;
  const existingId = (d.itemId ?? item.itemId) as unknown;
  const existingUrl = (d.url ?? service.serviceUrl) as unknown;

  if (existingId !== undefined || existingUrl !== undefined) {
    const urlNamed = typeof existingUrl === "string" ? hostedServiceName(deps.urls, existingUrl) : undefined;
    const found =
      typeof existingId === "string"
        ? await getItem(deps.db, existingId)
        : urlNamed
          ? await getItemByServiceName(deps.db, urlNamed)
          : undefined;
    if (!found || !found.serviceName)
      throw fail(`the image service to update (${String(existingId ?? existingUrl)}) does not exist on this server`);
    if (!canUpdateService(viewer, found))
      throw new AuthError(403, undefined, { details: [`${parameter}: you do not own service ${found.serviceName}`], parameter });
    // The ArcGIS API for Python names its pre-created service three ways at once: they must agree.
    const urlName = typeof existingUrl === "string" ? hostedServiceName(deps.urls, existingUrl) : undefined;
    for (const [key, named] of [
      [d.url !== undefined ? "url" : "serviceProperties.serviceUrl", urlName],
      ["serviceProperties.name", typeof service.name === "string" ? service.name : undefined],
    ] as const) {
      if (named !== undefined && named.toLowerCase() !== found.serviceName.toLowerCase())
        throw fail(`${key} names the service ${named.slice(0, 130)}, but the item to update is the service ${found.serviceName}`);
    }
    return { kind: "update", serviceName: found.serviceName, itemId: found.id };
  }
  const name = service.name;
  if (typeof name !== "string" || name === "")
    throw fail("give serviceProperties.name for a new service, or itemId/url of a service to update");
  if (!SERVICE_NAME.test(name))
    throw fail(`"${name.slice(0, 130)}" is not a valid service name (letters, digits and underscores, at most 120 characters)`);
  if (await getItemByServiceName(deps.db, name)) throw fail(`the service name ${name} is already taken`);
  const capabilities = typeof service.capabilities === "string" ? service.capabilities : undefined;
  const target = { kind: "create", serviceName: name, itemProperties: item, ...(capabilities ? { capabilities } : {}) } as const;
  await checkOutputItem(deps.db, deps.urls, target, viewer!.username);
  return target;
}
