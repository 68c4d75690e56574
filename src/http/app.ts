/**
 * The web server: fastify with one plugin per URL family, all under the public base path.
 * Thin by design: it decodes HTTP into calls on portal/, jobs/, tasks/ and services/ and
 * turns their answers and typed errors back into ArcGIS responses.
 */
import { join } from "node:path";
import type { Duplex } from "node:stream";
import cors from "@fastify/cors";
import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import Fastify, { type FastifyInstance } from "fastify";
import type { AppContext } from "./context.js";
import { HttpError } from "./errors.js";
import { registerGpServer } from "./gpServer.js";
import { registerHostedServices } from "./hostedServices.js";
import { registerImageServer } from "./imageServer.js";
import { registerMultipartBodies } from "./multipartBody.js";
import { registerUploads, uploadLimit } from "./uploads.js";
import { registerWebApp } from "./webApp.js";
import { sendError } from "./respond.js";
import { registerRest } from "./rest.js";
import { redactSecrets, redactingLogger } from "./logRedaction.js";
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
    // Service names may have 120 characters (SPEC §5): the router must reach them.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 256 },
    // What the router refuses (a malformed percent-escape) is an ArcGIS envelope too, and
    // never repeats the URL (it may hold a token).
    frameworkErrors: (error, request, reply) =>
      sendError(request, reply, new HttpError(400, "Unable to complete operation.", [frameworkReason(error)])),
    // What Node's HTTP parser refuses before any request exists (headers too large).
    clientErrorHandler: answerClientError,
  });
  await server.register(cors, { origin: true, methods: ["GET", "POST", "OPTIONS"], credentials: true });
  await server.register(formbody);
  await server.register(multipart);
  registerMultipartBodies(server, { scratchDir: join(ctx.scratchDir, "uploads"), fileLimit: (r) => uploadLimit(ctx, r) });
  server.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode;
    // Framework errors (bad body, too large) become ArcGIS 400s, never a bare 5xx.
    const message = redactSecrets(error instanceof Error ? error.message : String(error));
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
      registerHostedServices(scoped, ctx);
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

/** Why the router refused a request, in words that repeat nothing of it. */
function frameworkReason(error: Error & { code?: string }): string {
  if (error.code === "FST_ERR_BAD_URL") return "The URL holds a malformed percent-escape.";
  return "The request could not be routed.";
}

/** Refuse what Node's HTTP parser could not read with an ArcGIS envelope, then close. */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request";
  const reason = tooLarge ? "The request's URL or headers are too large." : "The request could not be read.";
  const body = JSON.stringify({ error: { code: 400, message: "Unable to complete operation.", details: [reason] } });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
