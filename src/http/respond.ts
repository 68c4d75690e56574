/**
 * One way to answer every resource: f=json (compact), f=pjson (indented), f=html (a page as
 * the ArcGIS services directory draws it; the default when f is absent). Errors go through
 * the same path, so no route writes an error its own way.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { errorBody } from "./errors.js";
import { type HtmlPage, errorPage, renderPage } from "./html.js";
import { requestParams } from "./params.js";
import { BusyError } from "../services/work/pool.js";
import { redactValue } from "./logRedaction.js";

export type Format = "json" | "pjson" | "html";

/** The requested format; `fallback` when f is absent (html, SPEC §1). */
export function formatOf(request: FastifyRequest, fallback: Format = "html"): Format {
  const f = (requestParams(request).f ?? "").toLowerCase();
  return f === "json" || f === "pjson" || f === "html" ? f : f === "" ? fallback : "json";
}

/**
 * Answer `body` in the requested format; `page` draws it as HTML (default: the JSON shown).
 * @example
 * return send(request, reply, info, () => ({ title: "Server info", sections: [...] }));
 */
export function send(request: FastifyRequest, reply: FastifyReply, body: unknown, page?: () => HtmlPage): FastifyReply {
  const f = formatOf(request);
  if (f === "html") {
    return reply.type("text/html; charset=utf-8").send(renderPage(page ? page() : { title: "JSON", json: body }, request));
  }
  reply.type("application/json; charset=utf-8");
  return reply.send(f === "pjson" ? JSON.stringify(body, null, 2) : JSON.stringify(body));
}

/** The ArcGIS error envelope: HTTP 200 for JSON (clients read the body), the real status for HTML. */
export function sendError(request: FastifyRequest, reply: FastifyReply, e: unknown, fallback: Format = "html"): FastifyReply {
  const error = errorBody(e);
  if (error.code === 500) request.log.error({ err: redactValue(e) }, "internal error");
  else request.log.info(redactValue({ code: error.code, message: error.message, details: error.details }) as object, "request refused");
  const f = formatOf(request, fallback);
  // Busy is the one error every client must see in the status line: proxies and retrying
  // clients act on 503 + Retry-After whatever the body says.
  if (e instanceof BusyError) reply.header("Retry-After", String(e.retryAfterSeconds));
  if (f === "html") {
    const status = [400, 403, 404, 500, 503].includes(error.code) ? error.code : error.code === 498 || error.code === 499 ? 401 : 400;
    return reply.code(status).type("text/html; charset=utf-8").send(errorPage(error, request));
  }
  reply.type("application/json; charset=utf-8");
  const body = { error };
  return reply.code(error.code === 503 ? 503 : 200).send(f === "pjson" ? JSON.stringify(body, null, 2) : JSON.stringify(body));
}
