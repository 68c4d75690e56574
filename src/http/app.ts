/**
 * The web server: fastify with one plugin per URL family, all under the public base path.
 * Thin by design: it decodes HTTP into calls on portal/, jobs/, tasks/ and services/ and
 * turns their answers and typed errors back into ArcGIS responses.
 */
import { join } from "node:path";
import cors from "@fastify/cors";
import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import Fastify, { type FastifyInstance } from "fastify";
import type { AppContext } from "./context.js";
import { HttpError } from "./errors.js";
import { registerGpServer } from "./gpServer.js";
import { registerImageServer } from "./imageServer.js";
import { registerMultipartBodies } from "./multipartBody.js";
import { registerUploads, uploadLimit } from "./uploads.js";
import { registerWebApp } from "./webApp.js";
import { sendError } from "./respond.js";
import { registerRest } from "./rest.js";
import { redactingLogger } from "./logRedaction.js";
import { registerSharing } from "./sharing.js";

/**
 * @example
 * const server = await buildServer(ctx);
 * await server.listen({ host: "127.0.0.1", port: 8080 });
 */
export async function buildServer(ctx: AppContext, options: { logger?: boolean | object } = {}): Promise<FastifyInstance> {
  const server = Fastify({
    logger: options.logger ? redactingLogger(options.logger === true ? {} : options.logger) : false,
    genReqId: () => crypto.randomUUID(),
    // Large task parameters (JSON descriptors, value lists) arrive as form bodies.
    bodyLimit: 8 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  });
  await server.register(cors, { origin: true, methods: ["GET", "POST", "OPTIONS"], credentials: true });
  await server.register(formbody);
  await server.register(multipart);
  registerMultipartBodies(server, { scratchDir: join(ctx.store.dataDir, "tmp", "uploads"), fileLimit: (r) => uploadLimit(ctx, r) });
  server.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode;
    // Framework errors (bad body, too large) become ArcGIS 400s, never a bare 5xx.
    const message = error instanceof Error ? error.message : String(error);
    // A body that could not be read hides its f; a client that POSTs reads JSON.
    if (status && status >= 400 && status < 500) {
      return sendError(
        request,
        reply,
        new HttpError(400, "Unable to complete operation.", [message]),
        request.method === "POST" ? "json" : "html",
      );
    }
    return sendError(request, reply, error);
  });
  server.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new HttpError(404, "Resource not found.", [request.url.split("?")[0]])),
  );
  await server.register(
    async (scoped) => {
      registerSharing(scoped, ctx);
      registerRest(scoped, ctx);
      registerGpServer(scoped, ctx);
      registerImageServer(scoped, ctx);
      registerUploads(scoped, ctx);
      registerWebApp(scoped);
    },
    { prefix: ctx.basePath },
  );
  return server;
}
