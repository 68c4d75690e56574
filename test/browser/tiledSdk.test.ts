/**
 * The Maps SDK's ImageryTileLayer over a service whose tiling scheme has several levels
 * (src/services/tiling.ts), in headless Chromium, offline. The grid is hand-made: 0.125° cells
 * round the globe stored 0..360 east, each cell's value its own longitude east of Greenwich,
 * published by a Subset job; its scheme has five levels (2° to 0.125° cells, origin at -180,
 * 90), so at the map's scale (about 0.7° a pixel) the SDK reads a coarser level than the
 * grid's own. It must find that level (every tile it asks is one the scheme has: no 404, and
 * not the finest), and draw each longitude where it lies: the lowest values just east of
 * Greenwich and the highest just west of it (the grid's seam, mid-tile at every level), and
 * like values alike either side of the antimeridian (a tile edge at level 0).
 */
import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, openLoopbackPage, saveArtifact } from "../helpers/browser.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";
import { decodePng } from "../helpers/pngDecode.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";
import { type SdkSite, bundleSdkPage, serveSdkPage } from "./arcgisSite.js";
import { BACKGROUND, MAP_SIZE } from "./bundle.js";

const PUBLISHER = "tia";
const NAME = "eighth_degree_east";
const dir = join(tmpdir(), `strata-tiled-sdk-${process.pid}`);

let server: TestServer;
let browser: Browser;
let site: SdkSite;
let token: string;

before(async () => {
  await mkdir(dir, { recursive: true });
  const lons = Array.from({ length: 2880 }, (_, i) => 0.0625 + 0.125 * i);
  const lats = Array.from({ length: 1440 }, (_, j) => -89.9375 + 0.125 * j);
  await writeNetcdf3(join(dir, "east.nc"), {
    dims: [
      { name: "lat", size: lats.length },
      { name: "lon", size: lons.length },
    ],
    vars: [
      { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: lats },
      { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: lons },
      { name: "east", dims: ["lat", "lon"], type: "float", data: lats.flatMap(() => lons) },
    ],
  });
  let bundleDir: string;
  [bundleDir, server, browser] = await Promise.all([
    bundleSdkPage("arcgisCore"),
    startTestServer({ store: [`fileShare:work=${dir}`] }),
    launchChromium(),
  ]);
  site = await serveSdkPage("arcgisCore", bundleDir);
  token = await server.token(PUBLISHER, await server.addUser(PUBLISHER, "publisher"));
  const submitted = await server.call(
    `${server.tools}/SubsetMultidimensionalRaster/submitJob`,
    { inputMultidimensionalRaster: '{"uri":"/fileShares/work/east.nc"}', outputName: NAME },
    { token },
  );
  const job = await waitForJob(server, "SubsetMultidimensionalRaster", submitted.jobId, token);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
});

after(async () => {
  await site?.close();
  await browser?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

type Rgb = readonly [number, number, number];
const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

describe("the Maps SDK's ImageryTileLayer over a scheme of several levels", { timeout: 180_000 }, () => {
  it("asks only tiles the scheme has and draws each longitude where it lies", async (t) => {
    const service = `${server.url}/rest/services/Hosted/${NAME}/ImageServer`;
    const root = await server.call(service, {}, { token, method: "GET" });
    assert.deepEqual(
      root.tileInfo.lods.map((l: { resolution: number }) => l.resolution),
      [2, 1, 0.5, 0.25, 0.125],
    );
    const view = await openLoopbackPage(browser, { width: MAP_SIZE + 40, height: MAP_SIZE + 200 });
    const tiles: { level: number; status: number }[] = [];
    view.page.on("response", (r) => {
      const m = /\/ImageServer\/tile\/(\d+)\/\d+\/\d+/.exec(new URL(r.url()).pathname);
      if (m) tiles.push({ level: Number(m[1]), status: r.status() });
    });
    try {
      const { page } = view;
      await page.goto(site.url);
      await page.waitForFunction(() => window.arcgisHarness !== undefined);
      await page.evaluate(
        ([portal, services, t, user]) => window.arcgisHarness!.signIn(portal, services, t, user),
        [`${server.url}/sharing/rest`, `${server.url}/rest/services`, token, PUBLISHER],
      );
      await page.evaluate((u) => window.arcgisHarness!.showTiles(u), service);
      const png = await page.locator("#map").screenshot();
      await saveArtifact("browser/arcgis-tiles-levels-world", png);

      t.diagnostic(`tiles asked: ${tiles.map((x) => `${x.level}:${x.status}`).join(" ")}`);
      assert.ok(tiles.length > 0, "tiles were asked for");
      assert.deepEqual(
        tiles.filter((t) => t.status !== 200),
        [],
        "every tile asked is one the scheme has",
      );
      assert.ok(
        tiles.every((x) => x.level >= 0 && x.level < 4),
        "a level coarser than the grid's own serves a world map",
      );
      assert.deepEqual(
        view.requests.filter((u) => u.includes("/exportImage")),
        [],
        "a tile layer reads tiles, not exportImage",
      );

      const image = decodePng(png);
      const colour = async (lon: number, lat: number): Promise<Rgb> => {
        const [x, y] = await page.evaluate(([a, b]) => window.arcgisHarness!.pixelAt(a, b), [lon, lat] as const);
        const i = (Math.floor(y) * image.width + Math.floor(x)) * 4;
        return [image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]];
      };
      for (const lat of [-50, 0, 50]) {
        for (let lon = -170; lon <= 170; lon += 20) {
          const c = await colour(lon, lat);
          assert.ok(distance(c, BACKGROUND) > 60, `nothing drawn at ${lon},${lat}: rgb(${c.join(", ")})`);
        }
      }
      // The ends of the layer's stretch sit either side of Greenwich; 175 E and 175 W (values
      // 175 and 185) are close to each other, mid-ramp, and far from both ends.
      const east5 = await colour(5, 0);
      const west5 = await colour(-5, 0);
      const east175 = await colour(175, 0);
      const west175 = await colour(-175, 0);
      assert.ok(distance(east5, west5) > 100, `5 E rgb(${east5.join(", ")}) and 5 W rgb(${west5.join(", ")}) are the two ends`);
      assert.ok(
        distance(east175, west175) < distance(east5, west5) / 3,
        `175 E rgb(${east175.join(", ")}) ~ 175 W rgb(${west175.join(", ")})`,
      );
      for (const mid of [east175, west175]) {
        assert.ok(Math.min(distance(mid, east5), distance(mid, west5)) > 40, `mid-ramp rgb(${mid.join(", ")}) is neither end`);
      }
      assert.deepEqual(view.blocked, [], "requests to other hosts");
      assert.deepEqual(view.errors, [], "page errors");
    } finally {
      await view.close();
    }
  });
});
