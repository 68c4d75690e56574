/**
 * The ImageServer queries that read values (SPEC §11): `identify`, `getSamples` and
 * `computeStatisticsHistograms`. Thin: decode the parameters, call services/, answer JSON.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { OpenDataset } from "../services/datasets.js";
import { identify } from "../services/identify.js";
import { getSamples } from "../services/samples.js";
import { computeStatisticsHistograms } from "../services/statisticsHistograms.js";
import type { AppContext } from "./context.js";
import { requestParams } from "./params.js";
import { resource } from "./route.js";

/** How a route finds the service a request names (imageServer.ts's openService, with its access checks). */
export type OpenService = (ctx: AppContext, request: FastifyRequest) => Promise<{ readonly name: string; readonly dataset: OpenDataset }>;

/**
 * Add the value queries under an ImageServer route.
 * @example
 * registerImageQueries(app, ctx, `/rest/services/Hosted/:name/ImageServer`, openService);
 */
export function registerImageQueries(app: FastifyInstance, ctx: AppContext, base: string, openService: OpenService): void {
  const queries = [
    ["identify", identify],
    ["getSamples", getSamples],
    ["computeStatisticsHistograms", computeStatisticsHistograms],
  ] as const;
  for (const [operation, run] of queries) {
    resource(app, `${base}/${operation}`, async (request) => {
      const { name, dataset } = await openService(ctx, request);
      const body = await run(dataset.cube, requestParams(request));
      return { body, page: () => ({ title: `${name}: ${operation}`, json: body }) };
    });
  }
}
