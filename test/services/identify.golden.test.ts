/**
 * identify with processAsMultidimensional=true at a point returns the same time series as
 * xarray's `sel(..., method="nearest")` at that point (SPEC §11; issue must-show 3). The
 * golden is made by scripts/goldens/make_identify_goldens.py from the real navy winds file:
 * points in EPSG:4326 (one east of 180° given as a negative longitude, one west of the
 * grid's first column) and one in EPSG:3857, every one well inside its cell.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import type { Cube, Selection, Variable } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { identify } from "../../src/services/identify.js";
import { REAL } from "../helpers/golden.js";

interface GoldenPoint {
  name: string;
  variable: string;
  geometry: { x: number; y: number; spatialReference: { wkid: number } };
  lon: number;
  lat: number;
  values: (number | null)[];
}

const GOLDEN = JSON.parse(readFileSync(fileURLToPath(new URL("../golden/identify/navy_winds_points.json", import.meta.url)), "utf8")) as {
  times: number[];
  points: GoldenPoint[];
};

let cube: Cube;
const reads: Selection[] = [];
before(async () => {
  const opened = await openCube(`${REAL}monthly_navy_winds.cdf`);
  // Count reads: the series must come from one 1×1 read through time, not one per slice.
  const variables = opened.variables.map((v): Variable => {
    const w = Object.create(v) as Variable & { read: Variable["read"] };
    w.read = (selection) => (reads.push(selection ?? {}), v.read(selection));
    return w;
  });
  cube = { ...opened, variables, close: () => opened.close() };
});
after(() => cube.close());

/** Equal as float32 values (xarray's float32 as float64), or within 1e-6 relative. */
function same(actual: number | null, expected: number | null): boolean {
  if (actual === null || expected === null) return actual === expected;
  return actual === expected || Math.abs(actual - expected) <= 1e-6 * Math.max(Math.abs(expected), 1e-30);
}

describe("identify processAsMultidimensional against xarray (navy winds)", () => {
  it("has a golden with several points and the whole time axis", () => {
    assert.ok(GOLDEN.points.length >= 4);
    assert.equal(GOLDEN.times.length, 132);
  });

  for (const point of GOLDEN.points) {
    it(`${point.name}: ${point.variable} at (${point.lon}, ${point.lat}) equals xarray's nearest-cell series`, async () => {
      reads.length = 0;
      const mosaicRule = JSON.stringify({ multidimensionalDefinition: [{ variableName: point.variable }] });
      const r = await identify(cube, { geometry: JSON.stringify(point.geometry), processAsMultidimensional: "true", mosaicRule });
      const series = r.dataSeries ?? [];
      assert.equal(series.length, GOLDEN.times.length);
      series.forEach((s, i) => {
        assert.ok(same(s.value[0], point.values[i]), `slice ${i}: ${s.value[0]} vs xarray ${point.values[i]}`);
        assert.deepEqual(s.multidimensionalDefinition, [
          { variableName: point.variable, dimensionName: "StdTime", values: [GOLDEN.times[i]], isSlice: true },
        ]);
      });
      const texts = r.properties?.Values ?? [];
      assert.equal(texts.length, GOLDEN.times.length);
      texts.forEach((t, i) => assert.equal(Math.fround(Number(t)), point.values[i], `Values[${i}] = "${t}"`));
      // The default slice (the first time) is the top-level value.
      assert.equal(r.value, texts[0]);
      assert.equal(reads.length, 1);
      assert.deepEqual(reads[0].dims, [[0, GOLDEN.times.length]]);
      assert.equal(reads[0].window?.width, 1);
      assert.equal(reads[0].window?.height, 1);
    });
  }
});
