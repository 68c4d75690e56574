/**
 * The ImageServer queries that read values (SPEC §11): `identify`, `getSamples` and
 * `computeStatisticsHistograms`. Thin: decode the parameters, run the query on a quick work
 * thread (a query may read many pixels or a long time series), answer JSON.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "./context.js";
import { requestParams } from "./params.js";
import { resource } from "./route.js";

/** How a route finds the service a request names (imageServer.ts's openService, with its access checks). */
export type OpenService = (ctx: AppContext, request: FastifyRequest) => Promise<{ readonly name: string; readonly path: string }>;

const QUERIES = ["identify", "getSamples", "computeStatisticsHistograms"] as const;

/**
 * Add the value queries under an ImageServer route.
 * @example
 * registerImageQueries(app, ctx, `/rest/services/Hosted/:name/ImageServer`, openService);
 */
export function registerImageQueries(app: FastifyInstance, ctx: AppContext, base: string, openService: OpenService): void {
  for (const operation of QUERIES) {
    resource(app, `${base}/${operation}`, async (request) => {
      const { name, path } = await openService(ctx, request);
      const body = await ctx.work.run(operation, { path, params: { ...requestParams(request) } }, { lane: "quick" });
      return { body, page: () => ({ title: `${name}: ${operation}`, json: body }) };
    });
  }
}
