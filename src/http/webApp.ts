/**
 * The web app (web/, built by Vite into web/dist) served at the base URL: `<base>/` is its
 * page, `<base>/assets/...` its scripts, styles and data (hashed names, cached for a year).
 * When the app is not built the page says how to build it.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";

/** web/dist from the sources (src/http) or from the compiled server (dist/src/http). */
const DIST =
  ["../../web/dist/", "../../../web/dist/"]
    .map((p) => fileURLToPath(new URL(p, import.meta.url)))
    .find((d) => existsSync(join(d, "index.html"))) ?? fileURLToPath(new URL("../../web/dist/", import.meta.url));

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".map": "application/json; charset=utf-8",
};

/** Asset names Vite writes: no path separators, no dot-dot. */
const ASSET = /^[A-Za-z0-9._-]+$/;

export function registerWebApp(app: FastifyInstance, dist = DIST): void {
  app.get("/", async (_request, reply) => {
    const page = await readFile(join(dist, "index.html")).catch(() => undefined);
    if (!page) {
      return reply
        .code(503)
        .type("text/plain; charset=utf-8")
        .send("The Strata web app is not built: run `npm run build:web` (npm ci and npm start do).");
    }
    return reply.type(TYPES[".html"]).header("Cache-Control", "no-cache").send(page);
  });
  app.get("/assets/:file", async (request, reply) => {
    const { file } = request.params as { file: string };
    if (!ASSET.test(file) || file.startsWith(".")) return reply.code(404).send();
    const body = await readFile(join(dist, "assets", file)).catch(() => undefined);
    if (!body) return reply.code(404).type("text/plain").send("Not found.");
    return reply
      .type(TYPES[extname(file)] ?? "application/octet-stream")
      .header("Cache-Control", "public, max-age=31536000, immutable")
      .send(body);
  });
}
