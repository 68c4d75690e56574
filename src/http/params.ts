/**
 * GET query strings and POST bodies (urlencoded or multipart) are equivalent everywhere:
 * one merged, string-valued view of a request's parameters. Body wins over query. Names
 * match whatever their case (services/requestValues.ts's caseInsensitive).
 */
import type { FastifyRequest } from "fastify";
import { caseInsensitive } from "../services/requestValues.js";

/** Per request, the view and the body it was made from (a multipart body is replaced once complete). */
const CACHE = new WeakMap<FastifyRequest, { body: unknown; view: Record<string, string> }>();

export function requestParams(request: FastifyRequest): Record<string, string> {
  const cached = CACHE.get(request);
  if (cached && cached.body === request.body) return cached.view;
  const out: Record<string, string> = {};
  for (const source of [request.query, request.body]) {
    if (!source || typeof source !== "object" || Buffer.isBuffer(source)) continue;
    for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
      const value = Array.isArray(v) ? v[v.length - 1] : v;
      if (value === undefined || value === null) continue;
      // Files (multipartBody.ts) are not parameters.
      if (typeof value !== "object") out[k] = String(value);
    }
  }
  const view = caseInsensitive(out);
  CACHE.set(request, { body: request.body, view });
  return view;
}
