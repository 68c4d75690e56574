/**
 * context.extent across the seam: the same ground on three grids that store it in different
 * longitude conventions (columns centred on 20..370 as the navy winds sample is, 0..350 and
 * -180..170, 10° apart) gives the same columns, numbered in the extent's convention, with the
 * same values, whether or not the extent crosses where the grid's columns wrap. Each grid is a
 * NetCDF-3 file read by the real reader; the expected ground is worked out here from the
 * extent alone, never from Strata's output.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { seamCube, seamFor } from "../../src/analysis/seam.js";
import { openCube } from "../../src/io/open.js";
import { applyContext, parseContext } from "../../src/tasks/context.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";

const LATS = [40, 0, -40];
const DAYS = 2;
/** The value on the ground at a longitude (any convention), a latitude and a day. */
const ground = (lon: number, lat: number, day: number) => (((lon % 360) + 360) % 360) + lat / 1000 + day * 1000;

const GRIDS: Record<string, number[]> = {
  "20..370": Array.from({ length: 36 }, (_, i) => 20 + 10 * i),
  "0..360": Array.from({ length: 36 }, (_, i) => 10 * i),
  "-180..180": Array.from({ length: 36 }, (_, i) => -180 + 10 * i),
};

let dir = "";
const paths: Record<string, string> = {};
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-seam-"));
  for (const [name, lons] of Object.entries(GRIDS)) {
    const path = join(dir, `${name}.nc`);
    const data: number[] = [];
    for (let d = 0; d < DAYS; d++) for (const lat of LATS) for (const lon of lons) data.push(ground(lon, lat, d));
    await writeNetcdf3(path, {
      dims: [
        { name: "time", size: DAYS },
        { name: "lat", size: LATS.length },
        { name: "lon", size: lons.length },
      ],
      vars: [
        { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: [0, 1] },
        { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: LATS },
        { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: lons },
        { name: "v", dims: ["time", "lat", "lon"], type: "double", data },
      ],
    });
    paths[name] = path;
  }
});
after(() => rm(dir, { recursive: true, force: true }));

/** Cell centres whose 10° cells meet [xmin, xmax], in the extent's own numbering, at most one turn. */
function expectedColumns(xmin: number, xmax: number): number[] {
  const out: number[] = [];
  for (let c = Math.ceil((xmin - 5) / 10) * 10 + 0; c - 5 < xmax && out.length < 36; c += 10) if (c + 5 > xmin) out.push(c + 0);
  return out;
}

const EXTENTS: [number, number][] = [
  [-180, 180],
  [-30, 30],
  [0, 360],
  [170, 190],
  [100, 120],
  [-350, -300],
  [355, 365],
];

describe("context.extent selects the same ground whatever the grid's longitude convention", () => {
  for (const [xmin, xmax] of EXTENTS) {
    it(`extent ${xmin}..${xmax}`, async () => {
      const want = expectedColumns(xmin, xmax);
      const extent = JSON.stringify({ extent: { xmin, ymin: -90, xmax, ymax: 90, spatialReference: { wkid: 4326 } } });
      for (const [name, path] of Object.entries(paths)) {
        const opened = await openCube(path);
        const context = parseContext(extent, opened.grid);
        const { cube, window } = applyContext(opened, context.plan);
        try {
          const x = Array.from(context.grid.x);
          assert.deepEqual(x, want, `${name}: the columns, in the extent's numbering`);
          assert.equal(context.grid.transform[0], want[0] - 5, `${name}: the output's west edge`);
          const slab = await cube.variables[0].read({ window });
          assert.deepEqual(slab.shape, [DAYS, LATS.length, want.length]);
          const expected: number[] = [];
          for (let d = 0; d < DAYS; d++) for (const lat of LATS) for (const lon of want) expected.push(ground(lon, lat, d));
          assert.deepEqual(Array.from(slab.data), expected, `${name}: the values`);
        } finally {
          await cube.close();
        }
      }
    });
  }

  it("a regional grid is renumbered by whole turns, never rotated", async () => {
    const opened = await openCube(paths["0..360"]);
    try {
      const seam = seamFor({ ...opened.grid, width: 10, x: opened.grid.x.slice(0, 10) }, { xmin: -350, xmax: -300 });
      assert.deepEqual(seam, { firstColumn: 0, originX: -365 });
      assert.equal(seamFor(opened.grid, { xmin: -5, xmax: 100 }), undefined, "a grid already numbered so");
      assert.deepEqual(seamFor(opened.grid, { xmin: -30, xmax: 30 }), { firstColumn: 33, originX: -35 }, "rotated");
      for (const crs of [{ epsg: 3857 }, {}]) {
        assert.equal(seamFor({ ...opened.grid, crs }, { xmin: -30, xmax: 30 }), undefined, `not geographic: ${JSON.stringify(crs)}`);
      }
    } finally {
      await opened.close();
    }
  });

  it("a window that wraps reads two windows of the source and joins them", async () => {
    const opened = await openCube(paths["0..360"]);
    const view = seamCube(opened, { firstColumn: 33, originX: -35 });
    try {
      assert.deepEqual(Array.from(view.grid.x.slice(0, 5)), [-30, -20, -10, 0, 10]);
      const slab = await view.variables[0].read({ dims: [[1, 2]], window: { x: 1, y: 2, width: 4, height: 1 } });
      assert.deepEqual(
        Array.from(slab.data),
        [-20, -10, 0, 10].map((lon) => ground(lon, -40, 1)),
      );
      await assert.rejects(view.variables[0].read({ window: { x: 30, y: 0, width: 7, height: 1 } }), RangeError);
      // A caller's array for the whole window is not handed to the halves.
      const into = new Float64Array(2 * 3 * 4).fill(-1);
      const whole = await view.variables[0].read({ window: { x: 0, y: 0, width: 4, height: 3 }, into });
      const lons = [-30, -20, -10, 0];
      const want = [0, 1].flatMap((d) => LATS.flatMap((lat) => lons.map((lon) => ground(lon, lat, d))));
      assert.deepEqual(Array.from(whole.data), want);
    } finally {
      await view.close();
    }
  });
});
