/**
 * Issue 12 §5: the ArcGIS Maps SDK's default ImageryLayer over a global grid stored with
 * longitudes 0..360 draws the whole world, in headless Chromium (the SDK bundled from
 * node_modules, the page reaching nothing but 127.0.0.1). The grid is hand-made: 10° cells
 * centred on 5..355 east, each cell's value its own longitude east of Greenwich, published by
 * a Subset job. Strata's default rendering is viridis over the values' min-max, so the colour
 * a longitude should show is known without Strata: dark violet just east of Greenwich (5°,
 * viridis' low end), yellow just west of it (355°, the high end), and drawn everywhere between,
 * on both sides of the antimeridian and of Greenwich (where 0..360 storage has its seam).
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

const PUBLISHER = "ana";
const NAME = "east_world";
const dir = join(tmpdir(), `strata-antimeridian-sdk-${process.pid}`);

let server: TestServer;
let browser: Browser;
let site: SdkSite;
let token: string;

before(async () => {
  await mkdir(dir, { recursive: true });
  const lons = Array.from({ length: 36 }, (_, i) => 5 + 10 * i);
  const lats = Array.from({ length: 18 }, (_, j) => -85 + 10 * j);
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

describe("the Maps SDK's ImageryLayer over a 0..360 global grid", { timeout: 120_000 }, () => {
  it("draws the whole world: both sides of Greenwich and of the antimeridian, each longitude its own colour", async () => {
    const view = await openLoopbackPage(browser, { width: MAP_SIZE + 40, height: MAP_SIZE + 200 });
    try {
      const { page } = view;
      await page.goto(site.url);
      await page.waitForFunction(() => window.arcgisHarness !== undefined);
      await page.evaluate(
        ([portal, services, t, user]) => window.arcgisHarness!.signIn(portal, services, t, user),
        [`${server.url}/sharing/rest`, `${server.url}/rest/services`, token, PUBLISHER],
      );
      const service = `${server.url}/rest/services/Hosted/${NAME}/ImageServer`;
      await page.evaluate((u) => window.arcgisHarness!.showImagery(u), service);
      const png = await page.locator("#map").screenshot();
      await saveArtifact("browser/arcgis-imagery-0to360-world", png);
      const image = decodePng(png);
      const colour = async (lon: number, lat: number): Promise<Rgb> => {
        const [x, y] = await page.evaluate(([a, b]) => window.arcgisHarness!.pixelAt(a, b), [lon, lat] as const);
        const i = (Math.floor(y) * image.width + Math.floor(x)) * 4;
        return [image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]];
      };
      // Every 20° from 170 W to 170 E, at three latitudes: drawn (the page's background is magenta).
      for (const lat of [-50, 0, 50]) {
        for (let lon = -170; lon <= 170; lon += 20) {
          const c = await colour(lon, lat);
          assert.ok(distance(c, BACKGROUND) > 60, `nothing drawn at ${lon},${lat}: rgb(${c.join(", ")})`);
        }
      }
      // Either side of Greenwich, at the cells' centres: 5° east is the lowest value (viridis' dark
      // violet end), 355° east (5° west) the highest (its yellow end). Bilinear resampling and a
      // screen pixel's width move each at most a tenth along the ramp, so the checks are bands.
      const [r0, g0, b0] = await colour(5, 0);
      assert.ok(r0 < 100 && g0 < 60 && b0 > 80, `5 E should be viridis' dark violet end, got rgb(${r0}, ${g0}, ${b0})`);
      const [r1, g1, b1] = await colour(-5, 0);
      assert.ok(r1 > 150 && g1 > 190 && b1 < 90, `5 W should be viridis' yellow end, got rgb(${r1}, ${g1}, ${b1})`);
      assert.deepEqual(view.blocked, [], "requests to other hosts");
      assert.deepEqual(view.errors, [], "page errors");
      // The SDK loaded the layer's statistics and histograms from Strata, and the extent it read is -180..180.
      const asked = view.requests.map((r) => new URL(r).pathname);
      assert.ok(
        asked.some((p) => p.endsWith(`/${NAME}/ImageServer/statistics`)),
        "the SDK asked statistics",
      );
      assert.ok(
        asked.some((p) => p.endsWith(`/${NAME}/ImageServer/histograms`)),
        "the SDK asked histograms",
      );
    } finally {
      await view.close();
    }
  });
});
