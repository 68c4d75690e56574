/**
 * GET query strings and POST bodies (urlencoded or multipart) are equivalent everywhere:
 * one merged, string-valued view of a request's parameters. Body wins over query. Names
 * match whatever their case, as ArcGIS Server's do (`BBOX`, `imageSR` and `IMAGESR` alike:
 * some map clients send upper case).
 */
import type { FastifyRequest } from "fastify";

const CACHE = new WeakMap<FastifyRequest, Record<string, string>>();

export function requestParams(request: FastifyRequest): Record<string, string> {
  const cached = CACHE.get(request);
  if (cached) return cached;
  const out: Record<string, string> = {};
  for (const source of [request.query, request.body]) {
    if (!source || typeof source !== "object" || Buffer.isBuffer(source)) continue;
    for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
      const value = Array.isArray(v) ? v[v.length - 1] : v;
      if (value === undefined || value === null) continue;
      // multipart fields may arrive as { value } objects; files are not parameters here.
      if (typeof value === "object" && "value" in (value as object)) out[k] = String((value as { value: unknown }).value);
      else if (typeof value !== "object") out[k] = String(value);
    }
  }
  const view = caseInsensitive(out);
  CACHE.set(request, view);
  return view;
}

/** A view of `params` where `view.bboxSR` also finds `BBOXSR` or `bboxsr`; keys and entries stay as sent. */
function caseInsensitive(params: Record<string, string>): Record<string, string> {
  const byLower = new Map(Object.keys(params).map((k) => [k.toLowerCase(), k]));
  return new Proxy(params, {
    get(target, name) {
      if (typeof name !== "string" || name in target) return Reflect.get(target, name);
      const key = byLower.get(name.toLowerCase());
      return key === undefined ? undefined : target[key];
    },
  });
}
