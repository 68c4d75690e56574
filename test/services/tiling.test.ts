/**
 * The tiling scheme of tiled image services (src/services/tiling.ts), worked by hand on
 * small grids: levels doubling the grid's cell up to one tile, scales as ArcGIS publishes
 * them for its own WGS84 and Web Mercator schemes, each tile's bbox and the pixels of it
 * inside the extent, a Web Mercator tile drawn end to end (read back with Esri's LERC
 * decoder), and 404s / 400s for tiles the scheme has not.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as Lerc from "lerc";
import { InvalidInputError, NotFoundError } from "../../src/cube/errors.js";
import { gridFromTransform } from "../../src/cube/grid.js";
import type { Cube, Selection } from "../../src/cube/types.js";
import { planExport, renderExport } from "../../src/services/exportImage.js";
import { tileRequest, tilingInfo, tilingScheme } from "../../src/services/tiling.js";

/** 1000 × 600 cells of 1 km in Web Mercator from (0, 0) down. */
const mercator = gridFromTransform(1000, 600, [0, 1000, 0, 0, 0, -1000], { epsg: 3857 });
/** The globe in 512 × 256 cells of 0.703125°. */
const globe = gridFromTransform(512, 256, [-180, 0.703125, 0, 90, 0, -0.703125], { epsg: 4326 });

interface Lod {
  level: number;
  resolution: number;
  scale: number;
}

describe("tiling scheme", () => {
  it("doubles the grid's cell from the finest level up to one tile for the whole extent", () => {
    // 1000 cells wide: 1000 / 256 needs two doublings (1024 ≥ 1000 > 512).
    assert.deepEqual(tilingScheme(mercator)?.resolutions, [4000, 2000, 1000]);
    assert.deepEqual(tilingScheme(globe)?.resolutions, [1.40625, 0.703125]);
    // A non-square cell: the finest level keeps the smaller side.
    const oblong = gridFromTransform(100, 100, [0, 2.5, 0, 50, 0, -2], { epsg: 4326 });
    assert.deepEqual(tilingScheme(oblong)?.resolutions, [2]);
  });

  it("gives the scales ArcGIS publishes for its own schemes at the same cell sizes", () => {
    const lods = (grid: typeof globe) => (tilingInfo(grid).tileInfo as { lods: Lod[] }).lods;
    // ArcGIS's WGS84 scheme: 0.703125° at 1:295828763.7957775; its Web Mercator one: level 7's
    // 1222.992452562495 m at 1:4622324.434309.
    assert.ok(Math.abs(lods(globe)[1].scale - 295828763.7957775) < 1e-3);
    const level15 = gridFromTransform(100, 100, [0, 1222.992452562495, 0, 0, 0, -1222.992452562495], { epsg: 3857 });
    assert.ok(Math.abs(lods(level15)[0].scale - 4622324.434309) < 1e-3);
    assert.deepEqual(
      lods(mercator).map((l) => [l.level, l.resolution]),
      [
        [0, 4000],
        [1, 2000],
        [2, 1000],
      ],
    );
    const info = tilingInfo(mercator);
    assert.deepEqual((info.tileInfo as { origin: unknown }).origin, { x: 0, y: 0 });
    assert.deepEqual((info.tileInfo as { spatialReference: unknown }).spatialReference, { wkid: 102100, latestWkid: 3857 });
    assert.deepEqual([info.minLOD, info.maxLOD], [0, 2]);
  });

  it("draws a tile from its bbox at its level's cells, the pixels beyond the extent masked", () => {
    // Level 2 (1 km): 4 × 3 tiles of 256 km; the last column keeps 1000 - 768 = 232 pixels, the last row 600 - 512 = 88.
    const corner = tileRequest(mercator, "2", "2", "3", { sliceId: "4", renderingRule: "{}" });
    assert.equal(corner.params.bbox, "768000,-768000,1024000,-512000");
    assert.equal(corner.params.size, "256,256");
    assert.equal(corner.params.format, "lerc");
    assert.equal(corner.params.sliceId, "4");
    assert.equal(corner.params.renderingRule, undefined, "tiles hold raw values");
    assert.deepEqual(corner.validWindow, { x: 0, y: 0, width: 232, height: 88 });
    assert.deepEqual(tileRequest(mercator, "2", "0", "0", {}).validWindow, { x: 0, y: 0, width: 256, height: 256 });
    // Level 0 (4 km): one tile, 250 × 150 of it inside.
    assert.deepEqual(tileRequest(mercator, "0", "0", "0", {}).validWindow, { x: 0, y: 0, width: 250, height: 150 });
  });

  it("a Web Mercator tile at the finest level is the grid's own cells; beyond the extent, masked", async () => {
    await Lerc.load();
    // Cell (row, col) holds row * 1000 + col.
    const cube: Cube = {
      grid: mercator,
      variables: [
        {
          name: "v",
          description: "",
          unit: "",
          pixelType: "F32",
          dimensions: [],
          chunkShape: [600, 1000],
          attributes: {},
          read: async ({ window: w = { x: 0, y: 0, width: 1000, height: 600 } }: Selection = {}) => ({
            data: Float32Array.from({ length: w.width * w.height }, (_, k) => (w.y + Math.floor(k / w.width)) * 1000 + w.x + (k % w.width)),
            shape: [w.height, w.width],
          }),
        },
      ],
      attributes: {},
      skipped: [],
      close: async () => undefined,
    };
    const tile = tileRequest(mercator, "2", "2", "3", {});
    const plan = { ...planExport(cube, {}, tile.params), validWindow: tile.validWindow };
    const d = Lerc.decode((await renderExport(cube, {}, plan)).bytes);
    assert.deepEqual([d.width, d.height], [256, 256]);
    const mask = d.mask ?? d.bandMasks![0];
    for (let r = 0; r < 256; r++) {
      for (let c = 0; c < 256; c++) {
        const i = r * 256 + c;
        // The tile's pixel (r, c) is the grid's cell (512 + r, 768 + c), which exists for r < 88, c < 232.
        if (r < 88 && c < 232) assert.equal(d.pixels[0][i], (512 + r) * 1000 + 768 + c, `pixel ${r},${c}`);
        else assert.equal(mask[i], 0, `pixel ${r},${c} lies beyond the extent`);
      }
    }
  });

  it("answers 404 beyond the scheme and 400 for a malformed index", () => {
    for (const [level, row, col] of [
      ["3", "0", "0"],
      ["2", "3", "0"],
      ["2", "0", "4"],
      ["0", "0", "1"],
    ]) {
      assert.throws(() => tileRequest(mercator, level, row, col, {}), NotFoundError, `${level}/${row}/${col}`);
    }
    assert.throws(
      () => tileRequest(mercator, "1", "-1", "0", {}),
      (e: unknown) => e instanceof InvalidInputError && e.parameter === "row",
    );
    assert.throws(
      () => tileRequest(mercator, "1.5", "0", "0", {}),
      (e: unknown) => e instanceof InvalidInputError && e.parameter === "level",
    );
  });
});
