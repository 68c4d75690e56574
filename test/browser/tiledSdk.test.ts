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
import { saveArtifact } from "../helpers/browser.js";
import { publishEastGrid, writeEastGrid } from "../helpers/eastGrid.js";
import { BACKGROUND } from "./bundle.js";
import { type SdkFixture, colourAt, openSignedInSdkPage, startSdkFixture } from "./sdkFixture.js";
import { distance } from "./sstPicture.js";

const NAME = "eighth_degree_east";
const dir = join(tmpdir(), `strata-tiled-sdk-${process.pid}`);

let sdk: SdkFixture;

before(async () => {
  await mkdir(dir, { recursive: true });
  await writeEastGrid(dir, 0.125);
  sdk = await startSdkFixture("tia", { store: [`fileShare:work=${dir}`] });
  await publishEastGrid(sdk.server, sdk.token, "work", NAME);
});

after(async () => {
  await sdk?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the Maps SDK's ImageryTileLayer over a scheme of several levels", { timeout: 180_000 }, () => {
  it("asks only tiles the scheme has and draws each longitude where it lies", async (t) => {
    const service = `${sdk.server.url}/rest/services/Hosted/${NAME}/ImageServer`;
    const root = await sdk.server.call(service, {}, { token: sdk.token, method: "GET" });
    assert.deepEqual(
      root.tileInfo.lods.map((l: { resolution: number }) => l.resolution),
      [2, 1, 0.5, 0.25, 0.125],
    );
    const tiles: { level: number; status: number }[] = [];
    const view = await openSignedInSdkPage(sdk, (page) =>
      page.on("response", (r) => {
        const m = /\/ImageServer\/tile\/(\d+)\/\d+\/\d+/.exec(new URL(r.url()).pathname);
        if (m) tiles.push({ level: Number(m[1]), status: r.status() });
      }),
    );
    try {
      const { page } = view;
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

      const colour = colourAt(page, png);
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
