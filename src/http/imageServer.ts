/**
 * Hosted image services (SPEC §11): the root resource, `multidimensionalInfo` and
 * `keyProperties`. Rendering and query endpoints arrive with a later issue.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { NotFoundError } from "../cube/errors.js";
import { canRead } from "../portal/access.js";
import { AuthError } from "../portal/errors.js";
import { getItemByServiceName } from "../portal/items.js";
import { imageServiceInfo, multidimensionalInfo } from "../services/info.js";
import { datasetIdOf } from "../services/publish.js";
import { HOSTED_FOLDER } from "../services/urls.js";
import { viewerOf } from "./auth.js";
import type { AppContext } from "./context.js";
import { requestParams } from "./params.js";
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
    const body = imageServiceInfo(name, dataset.cube, dataset.statistics, { description: item.description });
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
        ],
        json: body,
      }),
    };
  });

  resource(app, `${base}/multidimensionalInfo`, async (request) => {
    const { name, dataset } = await openService(ctx, request);
    const values = (requestParams(request).returnDimensionValues ?? "true").toLowerCase() !== "false";
    const body = multidimensionalInfo(dataset.cube, dataset.statistics, values);
    return { body, page: () => ({ title: `${name}: multidimensional info`, breadcrumbs: crumbs(name), json: body }) };
  });

  resource(app, `${base}/keyProperties`, async (request) => {
    const { dataset } = await openService(ctx, request);
    const c = dataset.cube;
    return { body: { DataType: "Scientific", Variables: c.variables.map((v) => v.name) } };
  });
}

async function openService(ctx: AppContext, request: FastifyRequest) {
  const { name } = request.params as { name: string };
  const viewer = viewerOf(ctx.db, request, ctx.allowAnonymous);
  const item = getItemByServiceName(ctx.db, name);
  if (!item) throw new NotFoundError(`Service ${HOSTED_FOLDER}/${name}/ImageServer not found.`);
  if (!canRead(viewer, item)) throw viewer ? new AuthError(403) : new AuthError(499);
  const datasetId = datasetIdOf(item);
  if (!datasetId) throw new NotFoundError(`Service ${name} has no data.`);
  return { name: item.serviceName!, item, dataset: await ctx.datasets.open(datasetId) };
}
