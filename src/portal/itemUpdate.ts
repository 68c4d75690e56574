/**
 * Item updates as ArcGIS clients send them (`content/users/<owner>/items/<id>/update`): text
 * fields, `tags` and `typeKeywords` as comma-separated text or JSON lists, and `properties`,
 * a JSON object of the client's own (the ArcGIS API for Python writes the job's URL and id
 * there once a job filled the item). An item's `properties` also hold what Strata keeps
 * about its data (datasetId, bytes); the client's are kept apart, under one key, so that an
 * update can neither drop nor forge those.
 *
 * As in ArcGIS, an empty value leaves its field as it is unless `clearEmptyFields=true`.
 * What would break the item (its URL, type or service name, which are Strata's) is refused
 * with a 400 naming the parameter; other parameters ArcGIS knows (accessInformation,
 * licenseInfo, extent ...) have no place in Strata's items and are ignored.
 */
import { InvalidInputError } from "../cube/errors.js";
import { type Item, type ItemPatch, getItem, updateItem } from "./items.js";
import type { MetadataDb } from "../store/metadataDb.js";

/** Where in an item's properties the client's own properties are kept. */
const CLIENT_PROPERTIES = "clientProperties";

export interface ItemUpdate {
  readonly patch: Pick<ItemPatch, "title" | "description" | "snippet" | "tags" | "typeKeywords">;
  /** The client's properties: an object replaces them, null clears them, absent keeps them. */
  readonly properties?: Record<string, unknown> | null;
}

/** Parameters that would change what the item is; refused unless they repeat its value. */
const FIXED: readonly { name: string; of: (item: Item) => string | null }[] = [
  { name: "url", of: (item) => item.url },
  { name: "type", of: (item) => item.type },
  { name: "name", of: (item) => item.serviceName },
];
/** Parameters that would replace the item's data. */
const DATA = ["text", "file", "dataUrl"];

/**
 * The update a request asks of `item` (request parameters, names in any case as
 * requestParams gives them); InvalidInputError naming the parameter for what it cannot be.
 * @example
 * readItemUpdate({ tags: "Analysis Result, GenerateTrendRaster", properties: '{"jobId":"j1"}' }, item);
 */
export function readItemUpdate(params: Record<string, string>, item: Item): ItemUpdate {
  const clear = (params.clearEmptyFields ?? "").trim().toLowerCase() === "true";
  const given = (name: string): string | undefined => {
    const value = params[name];
    return value === undefined || (value.trim() === "" && !clear) ? undefined : value;
  };
  for (const { name, of } of FIXED) {
    const value = given(name);
    if (value !== undefined && value !== (of(item) ?? ""))
      throw new InvalidInputError(`${name}: the ${name} of item ${item.id} is Strata's and cannot be changed`, { parameter: name });
  }
  for (const name of DATA) {
    if (given(name) !== undefined)
      throw new InvalidInputError(`${name}: an item's data cannot be replaced by update; add a new item instead`, { parameter: name });
  }
  const title = given("title");
  if (title !== undefined && title.trim() === "")
    throw new InvalidInputError("title: an item's title cannot be cleared", { parameter: "title" });
  const description = given("description");
  const snippet = given("snippet");
  const tags = given("tags");
  const typeKeywords = given("typeKeywords");
  const properties = given("properties");
  return {
    patch: {
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(snippet !== undefined ? { snippet } : {}),
      ...(tags !== undefined ? { tags: readList(tags, "tags") } : {}),
      ...(typeKeywords !== undefined ? { typeKeywords: readList(typeKeywords, "typeKeywords") } : {}),
    },
    ...(properties !== undefined ? { properties: readProperties(properties) } : {}),
  };
}

/**
 * Apply `update` to item `id` in one transaction, keeping Strata's own properties.
 * @example
 * await applyItemUpdate(db, item.id, readItemUpdate(params, item));
 */
export function applyItemUpdate(db: MetadataDb, id: string, update: ItemUpdate): Promise<Item> {
  return db.transaction(async (tx) => {
    const current = await getItem(tx, id);
    if (!current || update.properties === undefined) return updateItem(tx, id, update.patch);
    const own: Record<string, unknown> = { ...current.properties };
    delete own[CLIENT_PROPERTIES];
    const properties = update.properties === null ? own : { ...own, [CLIENT_PROPERTIES]: update.properties };
    return updateItem(tx, id, { ...update.patch, properties });
  });
}

/**
 * The properties a client gave the item (null when none), as item JSON answers them.
 * @example
 * clientProperties(item); // { jobUrl: ".../jobs/j1", jobType: "GPServer", jobId: "j1", jobStatus: "completed" }
 */
export function clientProperties(item: { readonly properties: Record<string, unknown> }): Record<string, unknown> | null {
  const value = item.properties[CLIENT_PROPERTIES];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A list as comma-separated text or a JSON list ("" with clearEmptyFields: none). */
function readList(text: string, parameter: string): string[] {
  const t = text.trim();
  if (t.startsWith("[")) {
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      throw new InvalidInputError(`${parameter} is not a valid JSON list; send a JSON list or comma-separated text`, { parameter });
    }
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
      throw new InvalidInputError(`${parameter} must be a list of strings`, { parameter });
    return value;
  }
  return t === "" ? [] : t.split(",").map((s) => s.trim());
}

/** The client's properties: a JSON object; "null" or "" (with clearEmptyFields) clears them. */
function readProperties(text: string): Record<string, unknown> | null {
  const t = text.trim();
  if (t === "" || t === "null") return null;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    throw new InvalidInputError('properties is not valid JSON; send a JSON object such as {"jobId":"..."}', { parameter: "properties" });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new InvalidInputError("properties must be a JSON object", { parameter: "properties" });
  return value as Record<string, unknown>;
}

/**
 * Say which job made or last filled an item, in its client properties as the ArcGIS API for
 * Python writes them around a job (kept beside any other properties a client gave it).
 * @example
 * await recordSourceJob(db, itemId, { jobUrl: `${tools}/GenerateTrendRaster/jobs/j1`, jobId: "j1", task: "GenerateTrendRaster" });
 */
export function recordSourceJob(db: MetadataDb, id: string, job: { jobUrl: string; jobId: string; task: string }): Promise<Item> {
  return db.transaction(async (tx) => {
    const current = await getItem(tx, id);
    const properties = { ...clientProperties(current ?? { properties: {} }), ...job, jobType: "GPServer", jobStatus: "completed" };
    return applyItemUpdate(tx, id, { patch: {}, properties });
  });
}
