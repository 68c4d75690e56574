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
import { saveArtifact } from "../helpers/browser.js";
import { publishEastGrid, writeEastGrid } from "../helpers/eastGrid.js";
import { BACKGROUND } from "./bundle.js";
import { type SdkFixture, colourAt, openSignedInSdkPage, startSdkFixture } from "./sdkFixture.js";
import { distance } from "./sstPicture.js";

const NAME = "east_world";
const dir = join(tmpdir(), `strata-antimeridian-sdk-${process.pid}`);

let sdk: SdkFixture;

before(async () => {
  await mkdir(dir, { recursive: true });
  await writeEastGrid(dir, 10);
  sdk = await startSdkFixture("ana", { store: [`fileShare:work=${dir}`] });
  await publishEastGrid(sdk.server, sdk.token, "work", NAME);
});

after(async () => {
  await sdk?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the Maps SDK's ImageryLayer over a 0..360 global grid", { timeout: 120_000 }, () => {
  it("draws the whole world: both sides of Greenwich and of the antimeridian, each longitude its own colour", async () => {
    const view = await openSignedInSdkPage(sdk);
    try {
      const { page } = view;
      const service = `${sdk.server.url}/rest/services/Hosted/${NAME}/ImageServer`;
      await page.evaluate((u) => window.arcgisHarness!.showImagery(u), service);
      const png = await page.locator("#map").screenshot();
      await saveArtifact("browser/arcgis-imagery-0to360-world", png);
      const colour = colourAt(page, png);
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
      // The SDK loaded the layer's statistics and histograms from Strata.
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
