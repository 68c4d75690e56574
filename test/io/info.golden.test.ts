/**
 * `strata info --json` on the real files reports what xarray reports (golden JSON from
 * scripts/goldens/make_io_goldens.py), under Strata's documented naming rules.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import type { CubeInfo } from "../../src/cli/describe.js";
import { strata } from "../helpers/cli.js";
import { GOLDEN_FILES, PIXEL_TYPES, REAL, coordOf, expectedDimName, expectedDimValues, loadInfo } from "../helpers/golden.js";

const run = promisify(execFile);
const CLI = new URL("../../bin/strata.js", import.meta.url).pathname;

async function strataInfo(path: string): Promise<CubeInfo> {
  const { code, stdout, stderr } = await strata("info", "--json", path);
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout) as CubeInfo;
}

describe("strata info against xarray", () => {
  for (const [stem, path] of GOLDEN_FILES) {
    it(`${stem}: variables, dimensions, time values, grid`, async () => {
      const golden = loadInfo(stem);
      const info = await strataInfo(path);
      assert.deepEqual(info.variables.map((v) => v.name).sort(), golden.variables.map((v) => v.name).sort());
      for (const gv of golden.variables) {
        const v = info.variables.find((x) => x.name === gv.name)!;
        const nonSpatial = gv.dims.slice(0, -2);
        assert.deepEqual(
          v.dimensions,
          nonSpatial.map((d) => expectedDimName(golden, gv.name, d)),
          `${gv.name} dimensions`,
        );
        assert.deepEqual(v.shape, gv.shape, `${gv.name} shape`);
        assert.equal(v.pixelType, PIXEL_TYPES[gv.dtype], `${gv.name} pixel type`);
        assert.equal(v.unit, gv.units ?? "", `${gv.name} unit`);
        assert.equal(v.description, gv.long_name ?? gv.name, `${gv.name} description`);
        // Packed values decode to floats whose nodata is NaN; otherwise the fill value stays.
        const nodata =
          gv.scale_factor !== null ? "NaN" : (gv.fill_value ?? gv.missing_value ?? (gv.dtype.startsWith("float") ? "NaN" : null));
        assert.equal(v.nodata, nodata, `${gv.name} nodata`);
        for (const d of nonSpatial) {
          const dim = info.dimensions.find((x) => x.name === expectedDimName(golden, gv.name, d))!;
          assert.equal(dim.sourceName, d);
          const expected = expectedDimValues(golden, gv.name, d);
          assert.equal(dim.values.length, expected.length, `${d} size`);
          // cftime works in microseconds; Strata rounds to the millisecond.
          dim.values.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) <= 1, `${d}[${i}]: ${x} vs ${expected[i]}`));
        }
        // North-up rows: latitudes descending, whatever the storage order.
        const [yDim, xDim] = gv.dims.slice(-2);
        const lat = [...coordOf(golden, gv.name, yDim).values].sort((a, b) => b - a);
        const lon = coordOf(golden, gv.name, xDim).values;
        const g = info.grid;
        assert.equal(g.width, lon.length);
        assert.equal(g.height, lat.length);
        const step = (lon[lon.length - 1] - lon[0]) / (lon.length - 1);
        assert.ok(Math.abs(g.transform[1] - step) < 1e-9 * Math.abs(step) + 1e-12, "x pixel size");
        assert.ok(g.transform[5] < 0, "north-up");
        // Centre of the top-left cell is within a tenth of a cell of the northernmost latitude.
        assert.ok(Math.abs(g.transform[3] + g.transform[5] / 2 - lat[0]) < 0.1 * Math.abs(g.transform[5]));
        assert.ok(Math.abs(g.transform[0] + g.transform[1] / 2 - lon[0]) < 1e-9 * Math.max(1, Math.abs(lon[0])));
        assert.equal(g.crs.epsg, 4326);
      }
    });
  }

  // The one test that runs the real executable: exit code and a single line on stderr.
  it("refuses an unstructured grid with the reason and a non-zero exit", async () => {
    await assert.rejects(run(process.execPath, [CLI, "info", `${REAL}atm_phy_mag0004_1985.nc`]), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 1);
      assert.match(e.stderr, /no variable on a regular 2-D grid: variable \w+ is on an unstructured grid/);
      assert.equal(e.stderr.trim().split("\n").length, 1, `one line, not:\n${e.stderr}`);
      return true;
    });
  });
});
