/**
 * Hosted image services (SPEC §11): the root resource, `multidimensionalInfo`,
 * `keyProperties`, `statistics`, `histograms`, `slices`, `exportImage` (images served with an ETag from a bounded
 * cache; f=json answers an href under `output/`), `tile/{level}/{row}/{col}` (LERC, tiling.ts), `download` (NetCDF-4); identify,
 * getSamples and computeStatisticsHistograms are in imageQueries.ts.
 */
import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { canRead } from "../portal/access.js";
import { AuthError } from "../portal/errors.js";
import { getItemByServiceName } from "../portal/items.js";
import { bandNamesOf } from "../services/bands.js";
import { planDownload } from "../services/download.js";
import { type ExportedImage, planExport } from "../services/exportImage.js";
import { imageKey } from "../services/imageCache.js";
import { type DimensionValues, gridExtent, imageServiceInfo, multidimensionalInfo } from "../services/info.js";
import { listSlices, sliceDefinition } from "../services/slices.js";
import { tileRequest, tilingInfo } from "../services/tiling.js";
import { histogramsResource, statisticsResource } from "../services/storedStatistics.js";
import { datasetFile, datasetIdOf } from "../services/publish.js";
import { HOSTED_FOLDER } from "../services/urls.js";
import { viewerOf } from "./auth.js";
import { clientGone } from "./clientGone.js";
import { registerImageQueries } from "./imageQueries.js";
import type { AppContext } from "./context.js";
import { requestParams } from "./params.js";
import { sendError } from "./respond.js";
import { resource } from "./route.js";

export function registerImageServer(app: FastifyInstance, ctx: AppContext): void {
  const base = `/rest/services/${HOSTED_FOLDER}/:name/ImageServer`;
  const crumbs = (name: string) => [
    { text: "Home", href: `${ctx.basePath}/rest/services` },
    { text: HOSTED_FOLDER, href: `${ctx.basePath}/rest/services/${HOSTED_FOLDER}` },
    { text: name, href: `${ctx.basePath}/rest/services/${HOSTED_FOLDER}/${name}/ImageServer` },
  ];

  resource(app, base, async (request) => {
    const { name, item, dataset } = await openService(ctx, request);
    const body = {
      ...imageServiceInfo(name, dataset.cube, dataset.statistics, { description: item.description }),
      ...tilingInfo(dataset.cube.grid),
    };
    return {
      body,
      page: () => ({
        title: `${name} (ImageServer)`,
        breadcrumbs: crumbs(name),
        rows: [
          { label: "Description", value: item.description },
          { label: "Variables", value: dataset.cube.variables.map((v) => v.name).join(", ") },
          { label: "Pixel type", value: String(body.pixelType) },
          {
            label: "Multidimensional info",
            href: `${ctx.basePath}/rest/services/${HOSTED_FOLDER}/${name}/ImageServer/multidimensionalInfo`,
          },
          { label: "Statistics", href: `${ctx.basePath}/rest/services/${HOSTED_FOLDER}/${name}/ImageServer/statistics` },
          { label: "Histograms", href: `${ctx.basePath}/rest/services/${HOSTED_FOLDER}/${name}/ImageServer/histograms` },
        ],
        json: body,
      }),
    };
  });

  resource(app, `${base}/multidimensionalInfo`, async (request) => {
    const { name, dataset } = await openService(ctx, request);
    const body = multidimensionalInfo(dataset.cube, dataset.statistics, dimensionValues(requestParams(request).returnDimensionValues));
    return { body, page: () => ({ title: `${name}: multidimensional info`, breadcrumbs: crumbs(name), json: body }) };
  });

  resource(app, `${base}/keyProperties`, async (request) => {
    const { dataset } = await openService(ctx, request);
    const c = dataset.cube;
    const bands = c.variables[0] ? bandNamesOf(c.variables[0]) : [];
    return {
      body: { DataType: "Scientific", BandProperties: bands.map((BandName) => ({ BandName })), Variables: c.variables.map((v) => v.name) },
    };
  });

  // Kept when the dataset was written: answered here, no thread, no pixel read.
  resource(app, `${base}/statistics`, async (request) => {
    const { name, dataset } = await openService(ctx, request);
    const body = statisticsResource(dataset.cube, dataset.statistics, requestParams(request));
    return { body, page: () => ({ title: `${name}: statistics`, breadcrumbs: crumbs(name), json: body }) };
  });

  resource(app, `${base}/histograms`, async (request) => {
    const { name, dataset } = await openService(ctx, request);
    const body = histogramsResource(dataset.cube, dataset.statistics, requestParams(request));
    return { body, page: () => ({ title: `${name}: histograms`, breadcrumbs: crumbs(name), json: body }) };
  });

  resource(app, `${base}/slices`, async (request) => {
    const { name, dataset } = await openService(ctx, request);
    const slices = listSlices(dataset.cube).map((s, sliceId) => ({ sliceId, multidimensionalDefinition: sliceDefinition(s) }));
    return { body: { slices }, page: () => ({ title: `${name}: slices`, breadcrumbs: crumbs(name), json: { slices } }) };
  });

  resource(app, `${base}/exportImage`, async (request, reply) => {
    const { name, item, datasetId, dataset, path } = await openService(ctx, request);
    const params = requestParams(request);
    // Checked here, so a bad request is a 400 at once and never waits for a thread.
    const plan = planExport(dataset.cube, dataset.statistics, params);
    const key = imageKey(datasetId, params);
    const pixels = plan.target.width * plan.target.height;
    const lane = pixels > ctx.limits.bulkExportPixels ? "bulk" : "quick";
    const image = await ctx.images.draw(key, datasetId, () => ctx.work.run("export", { path, params: { ...params } }, { lane }));
    const f = (params.f ?? "image").toLowerCase();
    if (f === "image") return sendImage(request, reply, image, key, item.access === "public");
    const body = {
      href: `${ctx.urls.base}/rest/services/${HOSTED_FOLDER}/${name}/ImageServer/output/${key}.${image.extension}`,
      width: plan.target.width,
      height: plan.target.height,
      extent: gridExtent(plan.target),
      scale: 0,
    };
    return {
      body,
      page: () => ({ title: `${name}: exportImage`, breadcrumbs: crumbs(name), rows: [{ label: "Image", href: body.href }], json: body }),
    };
  });

  // ImageryTileLayer's tiles: LERC2 of the tile's extent in the scheme the root announces
  // (tiling.ts), drawn and cached as an export is; sliceId, time or mosaicRule choose the slice.
  resource(app, `${base}/tile/:level/:row/:col`, async (request, reply) => {
    const { item, datasetId, dataset, path } = await openService(ctx, request);
    const { level, row, col } = request.params as { level: string; row: string; col: string };
    const tile = tileRequest(dataset.cube.grid, level, row, col, requestParams(request));
    // Checked here, so a bad slice is a 400 at once and never waits for a thread.
    planExport(dataset.cube, dataset.statistics, tile.params);
    const key = imageKey(datasetId, { ...tile.params, tile: `${level}/${row}/${col}` });
    const image = await ctx.images.draw(key, datasetId, () =>
      ctx.work.run("export", { path, params: tile.params, validWindow: tile.validWindow }, { lane: "quick" }),
    );
    return sendImage(request, reply, image, key, item.access === "public");
  });

  registerImageQueries(app, ctx, base, openService);

  resource(app, `${base}/download`, async (request, reply) => {
    const { name, dataset, path: source } = await openService(ctx, request);
    const selection = planDownload(dataset.cube, requestParams(request));
    const scratch = ctx.scratchDir;
    await mkdir(scratch, { recursive: true });
    const target = join(scratch, `download-${randomUUID()}.nc`);
    let size: number;
    try {
      ({ bytes: size } = await ctx.work.run("download", { source, target, ...selection }, { lane: "writer", signal: clientGone(reply) }));
    } catch (e) {
      // A thread stopped mid-write (the client left) leaves the writer's partial file.
      await Promise.all([rm(target, { force: true }), rm(`${target}.partial`, { force: true })]);
      throw e;
    }
    const stream = createReadStream(target);
    stream.on("close", () => void rm(target, { force: true }));
    return reply
      .type("application/x-netcdf")
      .header("Content-Length", String(size))
      .header("Content-Disposition", `attachment; filename="${name}.nc"`)
      .send(stream);
  });

  // Images an f=json exportImage answered with, while the cache holds them; only through
  // the service that drew them, and so only to who may read it.
  app.get(`${base}/output/:file`, async (request, reply) => {
    const { file } = request.params as { name: string; file: string };
    try {
      const { item, datasetId } = await openService(ctx, request);
      const key = file.replace(/\.[a-z]+$/, "");
      const image = ctx.images.get(key, datasetId);
      if (!image) throw new NotFoundError("This image is no longer held; export it again.");
      return sendImage(request, reply, image, key, item.access === "public");
    } catch (e) {
      return sendError(request, reply, e);
    }
  });
}

/** returnDimensionValues: always (default; also "true"), never ("false") or ifIrregular. */
function dimensionValues(text: string | undefined): DimensionValues {
  const t = (text ?? "").trim().toLowerCase();
  if (t === "" || t === "always" || t === "true") return "always";
  if (t === "never" || t === "false") return "never";
  if (t === "ifirregular") return "ifIrregular";
  throw new InvalidInputError(`returnDimensionValues must be always, never or ifIrregular; got "${text}"`, {
    parameter: "returnDimensionValues",
  });
}

/** An image with its ETag (the cache key: same key, same bytes) and a short shared lifetime. */
function sendImage(request: FastifyRequest, reply: FastifyReply, image: ExportedImage, key: string, isPublic: boolean): FastifyReply {
  const etag = `"${key}"`;
  reply.header("ETag", etag).header("Cache-Control", `${isPublic ? "public" : "private"}, max-age=60`);
  if (request.headers["if-none-match"] === etag) return reply.code(304).send();
  return reply.type(image.contentType).send(Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength));
}

async function openService(ctx: AppContext, request: FastifyRequest) {
  const { name } = request.params as { name: string };
  const viewer = await viewerOf(ctx.db, request, ctx.allowAnonymous);
  const item = await getItemByServiceName(ctx.db, name);
  if (!item) throw new NotFoundError(`Service ${HOSTED_FOLDER}/${name}/ImageServer not found.`);
  if (!canRead(viewer, item)) throw viewer ? new AuthError(403) : new AuthError(499);
  const datasetId = datasetIdOf(item);
  // An empty service (createService) until a job that names it as its output succeeds.
  if (!datasetId)
    throw new NotFoundError(
      `Service ${item.serviceName ?? name} has no data yet: it was created empty, and a job that names it as its outputName fills it.`,
    );
  const path = datasetFile(await ctx.store.resolve(datasetId), item);
  return { name: item.serviceName!, item, datasetId, path, dataset: await ctx.datasets.open(datasetId) };
}
