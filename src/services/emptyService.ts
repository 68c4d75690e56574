/**
 * Empty hosted image services (SPEC §12): what `createService` makes before a job fills it,
 * as the ArcGIS API for Python does around every raster analysis job. The service is a
 * portal item with a service name and URL and no dataset yet; a job naming it as its output
 * (`outputName` with `itemProperties.itemId` or `serviceProperties.serviceUrl`) gives it its
 * data (publish.ts, as any update), and deleting the item removes the service.
 */
import { InvalidInputError } from "../cube/errors.js";
import { checkServiceName } from "../portal/itemFields.js";
import { type Item, createItem } from "../portal/items.js";
import type { MetadataDb } from "../store/metadataDb.js";
import { HOSTED_TYPE_KEYWORDS } from "./publish.js";
import { type ServerUrls, serviceUrl } from "./urls.js";

/** What `createParameters` asks of an image service. */
export interface ServiceRequest {
  readonly name: string;
  /** The service's description; it becomes the item's. */
  readonly description: string;
}

/** The item fields createService takes beside createParameters. */
export interface ServiceItemFields {
  readonly folderId: string | null;
  readonly tags: readonly string[];
  readonly snippet: string;
}

const MAX_DESCRIPTION = 65_536;
const MAX_CAPABILITIES = 1024;

/**
 * `createParameters` as ArcGIS clients send it for an image service: `{name, description?,
 * capabilities?, properties?}`. Keys that only a feature service has are ignored; so are
 * the capabilities, which are Strata's own for every hosted service.
 * @example
 * readCreateParameters({ name: "sst_anomaly", capabilities: "Image, Metadata" }); // { name: "sst_anomaly", description: "" }
 */
export function readCreateParameters(value: unknown): ServiceRequest {
  const fail = (why: string) => new InvalidInputError(`createParameters: ${why}`, { parameter: "createParameters" });
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw fail('must be a JSON object such as {"name":"sst_anomaly"}');
  const p = value as Record<string, unknown>;
  if (p.name === undefined || p.name === null) throw fail("name is missing: the new service's name");
  let name: string;
  try {
    name = checkServiceName(p.name, "name")!;
  } catch (e) {
    throw e instanceof InvalidInputError ? fail(e.message) : e;
  }
  if (
    p.description !== undefined &&
    p.description !== null &&
    (typeof p.description !== "string" || p.description.length > MAX_DESCRIPTION)
  )
    throw fail(`description must be text of at most ${MAX_DESCRIPTION} characters`);
  if (
    p.capabilities !== undefined &&
    p.capabilities !== null &&
    (typeof p.capabilities !== "string" || p.capabilities.length > MAX_CAPABILITIES)
  )
    throw fail(`capabilities must be a comma-separated text such as "Image, Metadata"`);
  return { name, description: typeof p.description === "string" ? p.description : "" };
}

/**
 * Create the item of an empty hosted image service owned by `owner`. The caller has checked
 * that the name is free (the unique index still refuses a name taken in between).
 * @example
 * const item = await createEmptyService(db, urls, "ana", { name: "sst_anomaly", description: "" }, { folderId: null, tags: [], snippet: "" });
 */
export async function createEmptyService(
  db: MetadataDb,
  urls: ServerUrls,
  owner: string,
  service: ServiceRequest,
  fields: ServiceItemFields,
): Promise<Item> {
  try {
    return await createItem(db, owner, {
      title: service.name,
      description: service.description,
      snippet: fields.snippet,
      tags: [...fields.tags],
      folderId: fields.folderId,
      typeKeywords: [...HOSTED_TYPE_KEYWORDS],
      serviceName: service.name,
      url: serviceUrl(urls, service.name),
    });
  } catch (e) {
    if (e instanceof InvalidInputError && e.parameter === "serviceName")
      throw new InvalidInputError(`createParameters.name: ${e.message}`, { parameter: "createParameters" });
    throw e;
  }
}
