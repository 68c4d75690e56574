/**
 * Adding data through the portal (what the web app's "add data" uses): `addItem` takes a
 * NetCDF, HDF5, GeoTIFF or zipped Zarr file (multipart field `file`, with `title`, `tags`,
 * `description`, `filename`) and makes a raster item of it, usable as a task input by
 * itemId; `publish` (itemId, publishParameters {"name": ...}) makes a hosted image service
 * of a raster item, converted to Strata's Zarr with its statistics. Both need a publisher.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { type Viewer, canRead, canRunAnalysis } from "../portal/access.js";
import { AuthError } from "../portal/errors.js";
import { createItem, getItem } from "../portal/items.js";
import { sameUsername } from "../portal/users.js";
import { datasetFile, datasetIdOf, publishOutput } from "../services/publish.js";
import { parseJsonParam } from "../services/spatial.js";
import { storeUpload } from "../services/upload.js";
import { copyIntoStore } from "../tasks/subset.js";
import { openCube } from "../io/open.js";
import { signedIn } from "./auth.js";
import type { AppContext } from "./context.js";
import { requestParams } from "./params.js";
import { resource } from "./route.js";

const SERVICE_NAME = /^[A-Za-z0-9_]{1,120}$/;

export function registerUploads(app: FastifyInstance, ctx: AppContext): void {
  for (const prefix of ["/sharing/rest/content/users/:username", "/sharing/rest/content/users/:username/:folderId"]) {
    resource(app, `${prefix}/addItem`, async (request) => {
      const owner = publisherOf(ctx, request);
      const p = requestParams(request);
      const file = (request.body as Record<string, unknown> | undefined)?.file;
      if (!Buffer.isBuffer(file))
        throw new InvalidInputError("file is required: send the raster as the multipart field file", { parameter: "file" });
      const name = p.filename?.trim() || p.title?.trim() || "upload";
      const {
        datasetId,
        type,
        file: dataFile,
        cube,
      } = await storeUpload(ctx.store, name, new Uint8Array(file.buffer, file.byteOffset, file.byteLength));
      await cube.close();
      const { folderId } = request.params as { folderId?: string };
      const item = createItem(ctx.db, owner, {
        title: p.title?.trim() || name,
        type,
        description: p.description ?? "",
        tags: (p.tags ?? "")
          .split(",")
          .map((t) => t.trim())
          .filter((t) => t !== ""),
        folderId: folderId ?? null,
        properties: { datasetId, fileName: name, ...(dataFile ? { file: dataFile } : {}) },
      });
      return { body: { success: true, id: item.id, folder: item.folderId ?? "" } };
    });

    resource(app, `${prefix}/publish`, async (request) => {
      const owner = publisherOf(ctx, request);
      const p = requestParams(request);
      const source = getItem(ctx.db, p.itemId ?? "");
      if (!source) throw new InvalidInputError(`itemId: no item ${p.itemId ?? ""}`, { parameter: "itemId" });
      if (!canRead(signedIn(ctx.db, request), source)) throw new AuthError(403);
      const datasetId = datasetIdOf(source);
      if (!datasetId || source.serviceName)
        throw new InvalidInputError(`itemId: item ${source.id} is not an uploaded raster`, { parameter: "itemId" });
      const parsed = parseJsonParam(p.publishParameters ?? "{}", "publishParameters");
      const parameters = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<string, unknown>;
      const serviceName = String(parameters.name ?? "").trim();
      if (!SERVICE_NAME.test(serviceName)) {
        throw new InvalidInputError("publishParameters.name must be 1-120 letters, digits or underscores", {
          parameter: "publishParameters",
        });
      }
      const dir = await ctx.store
        .resolve(datasetId)
        .catch(() => Promise.reject(new NotFoundError(`the data of item ${source.id} is missing`)));
      const cube = await openCube(datasetFile(dir, source));
      let serviceDataset: string;
      try {
        serviceDataset = await copyIntoStore(ctx.store, cube);
      } finally {
        await cube.close();
      }
      const target = {
        kind: "create" as const,
        serviceName,
        itemProperties: { title: source.title, description: source.description, tags: source.tags },
      };
      try {
        const published = await publishOutput(ctx.db, ctx.store, ctx.urls, target, owner, serviceDataset);
        return {
          body: {
            services: [
              {
                type: "Image Service",
                serviceurl: published.url,
                serviceItemId: published.itemId,
                size: 0,
                encodedServiceURL: published.url,
              },
            ],
          },
        };
      } catch (e) {
        await ctx.store.remove(serviceDataset).catch(() => undefined);
        throw e instanceof InvalidInputError
          ? new InvalidInputError(`publishParameters.name: ${e.message}`, { parameter: "publishParameters" })
          : e;
      }
    });
  }
}

/** The signed-in user adding to their own content, who must be allowed to publish. */
function publisherOf(ctx: AppContext, request: FastifyRequest): string {
  const viewer: NonNullable<Viewer> = signedIn(ctx.db, request);
  const { username } = request.params as { username: string };
  if (!sameUsername(viewer.username, username)) throw new AuthError(403);
  if (!canRunAnalysis(viewer)) throw new AuthError(403, undefined, { details: ["adding data needs the publisher or admin role"] });
  return viewer.username;
}
