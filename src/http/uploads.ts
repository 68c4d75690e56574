/**
 * Adding data through the portal (what the web app's "add data" uses): `addItem` takes a
 * NetCDF, HDF5, GeoTIFF or zipped Zarr file (multipart field `file`, with `title`, `tags`,
 * `description`, `filename`) and makes a raster item of it, usable as a task input by
 * itemId; `publish` (itemId, publishParameters {"name": ...}) makes a hosted image service
 * of a raster item, converted to Strata's Zarr with its statistics. Both need a publisher.
 * Everything about the item is checked before any byte is stored, the file arrives on disk
 * (multipartBody.ts), and unpacking, checking and converting run on a bulk work thread
 * within the owner's storage quota; a refused request leaves nothing behind. With an
 * `uploadId`, each says what it is doing meanwhile (uploadStatus.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { type Viewer, canRead } from "../portal/access.js";
import { AuthError } from "../portal/errors.js";
import { checkServiceName } from "../portal/itemFields.js";
import { type Item, type NewItem, checkNewItem, createItem, getItem } from "../portal/items.js";
import { datasetFile, datasetIdOf, publishOutput } from "../services/publish.js";
import { storageLeft } from "../services/quota.js";
import { parseJsonParam } from "../services/spatial.js";
import { publisherInOwnContent, tokenOf } from "./auth.js";
import { clientGone } from "./clientGone.js";
import type { AppContext } from "./context.js";
import type { UploadedFile } from "./multipartBody.js";
import { requestParams } from "./params.js";
import { type Answer, resource } from "./route.js";
import { holdServiceName } from "./serviceNames.js";
import { type UploadPhases, registerUploadStatus, uploadPhases } from "./uploadStatus.js";

const PREFIXES = ["/sharing/rest/content/users/:username", "/sharing/rest/content/users/:username/:folderId"];

export function registerUploads(app: FastifyInstance, ctx: AppContext): void {
  registerUploadStatus(app, ctx);
  for (const prefix of PREFIXES) {
    resource(app, `${prefix}/addItem`, async (request, reply) => {
      const viewer = await publisherInOwnContent(ctx.db, request, "adding data");
      const p = requestParams(request);
      const file = (request.body as Record<string, unknown> | undefined)?.file as UploadedFile | undefined;
      if (typeof file?.path !== "string")
        throw new InvalidInputError("file is required: send the raster as the multipart field file", { parameter: "file" });
      const name = p.filename?.trim() || file.filename?.trim() || p.title?.trim() || "upload";
      const { folderId } = request.params as { folderId?: string };
      const fields: NewItem = {
        title: p.title?.trim() || name,
        type: "NetCDF",
        description: p.description ?? "",
        // Comma-separated; checkNewItem trims the tags and drops empty ones.
        tags: (p.tags ?? "").split(","),
        folderId: folderId ?? null,
        properties: { fileName: name },
      };
      await checkNewItem(ctx.db, viewer.username, fields);
      const phases = uploadPhases(ctx, request, viewer.username);
      return phases.during(async () => {
        phases.say(`Checking ${name}: reading its variables and dimensions`);
        const maxBytes = Math.min(ctx.limits.uploadBytes, await storageLeft(ctx.db, ctx.store, viewer, ctx.limits.quotaBytes));
        const stored = await ctx.work.run(
          "storeUpload",
          { dataDir: ctx.store.dataDir, upload: file.path, fileName: name, maxBytes },
          { lane: "bulk", signal: clientGone(reply) },
        );
        phases.say(`Adding the item ${fields.title}`);
        try {
          const item = await createItem(ctx.db, viewer.username, {
            ...fields,
            description: withNotes(fields.description ?? "", stored.notes ?? []),
            type: stored.type,
            properties: { datasetId: stored.datasetId, fileName: name, bytes: stored.bytes, ...(stored.file ? { file: stored.file } : {}) },
          });
          return { body: { success: true, id: item.id, folder: item.folderId ?? "" } };
        } catch (e) {
          await ctx.store.remove(stored.datasetId).catch(() => undefined);
          throw e;
        }
      }, `Added ${name}`);
    });

    resource(app, `${prefix}/publish`, async (request, reply) => {
      const viewer = await publisherInOwnContent(ctx.db, request, "adding data");
      const p = requestParams(request);
      const source = await getItem(ctx.db, p.itemId ?? "");
      if (!source) throw new InvalidInputError(`itemId: no item ${p.itemId ?? ""}`, { parameter: "itemId" });
      if (!canRead(viewer, source)) throw new AuthError(403);
      const datasetId = datasetIdOf(source);
      if (!datasetId || source.serviceName)
        throw new InvalidInputError(`itemId: item ${source.id} is not an uploaded raster`, { parameter: "itemId" });
      const parsed = parseJsonParam(p.publishParameters ?? "{}", "publishParameters");
      const parameters = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<string, unknown>;
      const serviceName = String(parameters.name ?? "").trim();
      checkServiceName(serviceName, "publishParameters.name");
      // Held from here until its item exists or it fails: a job submitted meanwhile with this
      // name is refused at submit, as this is when a job not yet finished will create it.
      const release = await holdServiceName(ctx.db, serviceName, "publishParameters", "publishParameters.name");
      const phases = uploadPhases(ctx, request, viewer.username);
      try {
        return await phases.during(
          () => publishItem(ctx, reply, viewer, source, datasetId, serviceName, phases),
          `Published ${serviceName}`,
        );
      } finally {
        release();
      }
    });
  }
}

/** Convert an uploaded raster item into the store and publish it as `serviceName`. */
async function publishItem(
  ctx: AppContext,
  reply: FastifyReply,
  viewer: NonNullable<Viewer>,
  source: Item,
  datasetId: string,
  serviceName: string,
  phases: UploadPhases,
): Promise<Answer> {
  const left = await storageLeft(ctx.db, ctx.store, viewer, ctx.limits.quotaBytes);
  const overQuota = () =>
    new InvalidInputError(
      "publishing it needs more storage than your quota has left: delete items you no longer need, or ask an admin to raise it",
      {
        parameter: "itemId",
      },
    );
  if (left <= 0) throw overQuota();
  const dir = await ctx.store.resolve(datasetId).catch(() => Promise.reject(new NotFoundError(`the data of item ${source.id} is missing`)));
  phases.say(`Converting ${source.title} to Zarr and computing its statistics`);
  const converted = await ctx.work.run(
    "copyIntoStore",
    { dataDir: ctx.store.dataDir, source: datasetFile(dir, source), label: `item ${source.id}` },
    { lane: "bulk", signal: clientGone(reply) },
  );
  const target = {
    kind: "create" as const,
    serviceName,
    itemProperties: { title: source.title, description: source.description, tags: source.tags },
  };
  try {
    // Its size is known only once converted.
    if (converted.bytes > left) throw overQuota();
    phases.say(`Publishing the image service ${serviceName}`);
    const published = await publishOutput(ctx.db, ctx.store, ctx.urls, target, viewer.username, converted.datasetId);
    return {
      body: {
        services: [
          {
            type: "Image Service",
            serviceurl: published.url,
            serviceItemId: published.itemId,
            size: converted.bytes,
            encodedServiceURL: published.url,
          },
        ],
      },
    };
  } catch (e) {
    await ctx.store.remove(converted.datasetId).catch(() => undefined);
    throw e instanceof InvalidInputError && e.parameter !== "itemId"
      ? new InvalidInputError(`publishParameters.name: ${e.message}`, { parameter: "publishParameters" })
      : e;
  }
}

/**
 * Most bytes a multipart file may have on this request: an upload's limit for a publisher
 * adding to their own content (within their quota left), none elsewhere. Authenticates first
 * when the token came before the file (query, header, or an earlier field), so an anonymous
 * or unauthorised caller is refused before a byte is stored; a token sent after the file is
 * checked by the route, the file bounded by the upload limit meanwhile.
 */
export async function uploadLimit(ctx: AppContext, request: FastifyRequest): Promise<number> {
  if (!/\/addItem$/.test(request.routeOptions.url ?? "")) return 0;
  if (!tokenOf(request)) return ctx.limits.uploadBytes;
  const viewer = await publisherInOwnContent(ctx.db, request, "adding data");
  return Math.min(ctx.limits.uploadBytes, await storageLeft(ctx.db, ctx.store, viewer, ctx.limits.quotaBytes));
}

/** The item's description, followed by what of the file Strata does not read (one line each). */
export function withNotes(description: string, notes: readonly string[]): string {
  if (notes.length === 0) return description;
  const lines = ["Not read by Strata:", ...notes.map((n) => `- ${n}`)].join("\n");
  return description.trim() === "" ? lines : `${description}\n\n${lines}`;
}
