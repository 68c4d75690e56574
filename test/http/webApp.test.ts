/**
 * The web app's static files: the page at the base URL (no-cache), hashed assets cached for
 * a year, nothing outside web/dist/assets reachable, and a clear 503 when it is not built.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Fastify, { type FastifyInstance } from "fastify";
import { registerWebApp } from "../../src/http/webApp.js";

let dir = "";
let app: FastifyInstance;
let unbuilt: FastifyInstance;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-webapp-"));
  await mkdir(join(dir, "dist", "assets"), { recursive: true });
  await writeFile(join(dir, "dist", "index.html"), "<!doctype html><title>Strata</title>");
  await writeFile(join(dir, "dist", "assets", "index-abc123.js"), "console.log(1)");
  await writeFile(join(dir, "secret.txt"), "not for the web");
  app = Fastify();
  await app.register(async (scoped) => registerWebApp(scoped, join(dir, "dist")), { prefix: "/arcgis" });
  unbuilt = Fastify();
  await unbuilt.register(async (scoped) => registerWebApp(scoped, join(dir, "missing")), { prefix: "/arcgis" });
});
after(async () => {
  await app.close();
  await unbuilt.close();
  await rm(dir, { recursive: true, force: true });
});

describe("web app files", () => {
  it("serves the page at the base URL and hashed assets with long caching", async () => {
    for (const url of ["/arcgis", "/arcgis/"]) {
      const page = await app.inject({ url });
      assert.equal(page.statusCode, 200, url);
      assert.match(page.headers["content-type"] as string, /text\/html/);
      assert.equal(page.headers["cache-control"], "no-cache");
    }
    const asset = await app.inject({ url: "/arcgis/assets/index-abc123.js" });
    assert.equal(asset.statusCode, 200);
    assert.match(asset.headers["content-type"] as string, /javascript/);
    assert.match(asset.headers["cache-control"] as string, /immutable/);
  });

  it("reaches nothing outside the assets folder", async () => {
    for (const url of [
      "/arcgis/assets/..%2F..%2Fsecret.txt",
      "/arcgis/assets/%2e%2e%2findex.html",
      "/arcgis/assets/.hidden",
      "/arcgis/assets/nope.js",
    ]) {
      const r = await app.inject({ url });
      assert.equal(r.statusCode, 404, url);
      assert.doesNotMatch(r.body, /not for the web/);
    }
  });

  it("says how to build the app when it is not built", async () => {
    const r = await unbuilt.inject({ url: "/arcgis/" });
    assert.equal(r.statusCode, 503);
    assert.match(r.body, /npm run build:web/);
  });
});
