/**
 * computeStatisticsHistograms (src/services/statisticsHistograms.ts) on a hand-made cube
 * whose values say where they come from, and on the real navy winds for longitude wrapping.
 * Small grid: lon centres -20, -10, 0, 10, 20 (edges -25 .. 25), lat centres -15, -5, 5, 15
 * stored south-up (edges -20 .. 20), 10° cells, EPSG:4326.
 *   a(time, lat, lon) = 100·t + 10·latIndex + lonIndex   (latIndex in storage order: 0 = -15°)
 * three times; -999 (nodata) at t = 1, lat 5, lon 0. Histogram bin of v: floor((v - min) /
 * ((max - min) / 256)), the maximum in bin 255.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import type { Cube, Selection, Variable } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { computeStatisticsHistograms } from "../../src/services/statisticsHistograms.js";
import { REAL } from "../helpers/golden.js";
import { writeSmallCube } from "../helpers/smallCube.js";

const T = [946684800000, 949363200000, 951868800000];
const R = 6378137;

function mercator([lon, lat]: [number, number]): [number, number] {
  const rad = Math.PI / 180;
  return [R * lon * rad, R * Math.log(Math.tan(Math.PI / 4 + (lat * rad) / 2))];
}

/** What the statistics and histogram of these values must be (population std, 256 bins). */
function expected(values: number[]) {
  const min = Math.min(...values);
  const max = Math.max(...values);
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const standardDeviation = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
  const counts = new Array<number>(256).fill(0);
  for (const v of values) counts[Math.min(255, Math.floor((v - min) / ((max - min) / 256)))]++;
  return { statistics: [{ min, max, mean, standardDeviation, count: values.length }], histograms: [{ size: 256, min, max, counts }] };
}

function assertClose(actual: Awaited<ReturnType<typeof computeStatisticsHistograms>>, values: number[]) {
  const want = expected(values);
  const [s] = actual.statistics;
  const [w] = want.statistics;
  assert.equal(s.count, w.count);
  assert.equal(s.min, w.min);
  assert.equal(s.max, w.max);
  assert.ok(Math.abs(s.mean! - w.mean) < 1e-9, `mean ${s.mean} vs ${w.mean}`);
  assert.ok(Math.abs(s.standardDeviation! - w.standardDeviation) < 1e-9, `std ${s.standardDeviation} vs ${w.standardDeviation}`);
  assert.deepEqual(actual.histograms, want.histograms);
}

let dir: string;
let cube: Cube;
const reads: Selection[] = [];
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-stats-"));
  const path = join(dir, "cube.nc");
  await writeSmallCube(path);
  const opened = await openCube(path);
  // Record reads: only the window under the geometry may be read.
  const variables = opened.variables.map((v): Variable => {
    const w = Object.create(v) as Variable & { read: Variable["read"] };
    w.read = (selection) => (reads.push(selection ?? {}), v.read(selection));
    return w;
  });
  cube = { ...opened, variables, close: () => opened.close() };
});
after(async () => {
  await cube.close();
  await rm(dir, { recursive: true, force: true });
});

const ALL = Array.from({ length: 20 }, (_, k) => 10 * Math.floor(k / 5) + (k % 5));
const envelope = (xmin: number, ymin: number, xmax: number, ymax: number, wkid = 4326) =>
  JSON.stringify({ xmin, ymin, xmax, ymax, spatialReference: { wkid } });
/** A polygon whose centres inside are lon -20..10 × lat -5..15 but for (lon 0, lat 5), in a hole. */
const OUTER: [number, number][] = [
  [-21, -11],
  [-21, 19],
  [19, 19],
  [19, -11],
  [-21, -11],
];
const HOLE: [number, number][] = [
  [-6, -1],
  [6, -1],
  [6, 11],
  [-6, 11],
  [-6, -1],
];
const IN_POLYGON = [10, 11, 12, 13, 20, 21, 23, 30, 31, 32, 33];

describe("computeStatisticsHistograms", () => {
  it("summarises the whole grid under an envelope (values 10i + j: mean 17, variance 100·1.25 + 2)", async () => {
    const r = await computeStatisticsHistograms(cube, { geometry: envelope(-25, -20, 25, 20) });
    assertClose(r, ALL);
    assert.equal(r.statistics[0].mean, 17);
    assert.ok(Math.abs(r.statistics[0].standardDeviation! - Math.sqrt(127)) < 1e-12);
    assert.equal(r.histograms[0].counts[255], 1);
    assert.equal(r.histograms[0].counts[0], 1);
  });

  it("leaves nodata out", async () => {
    const r = await computeStatisticsHistograms(cube, { geometry: envelope(-25, -20, 25, 20), time: String(T[1]) });
    assertClose(
      r,
      ALL.filter((v) => v !== 22).map((v) => v + 100),
    );
  });

  it("counts the cells whose centres are inside a polygon, not those in its hole, reading only the box", async () => {
    reads.length = 0;
    const geometry = JSON.stringify({ rings: [OUTER, HOLE], spatialReference: { wkid: 4326 } });
    assertClose(await computeStatisticsHistograms(cube, { geometry }), IN_POLYGON);
    // Centres inside the box: columns 0..3 (lon -20..10), north-up rows 0..2 (lat 15..-5).
    assert.deepEqual(
      reads.map((s) => s.window),
      [{ x: 0, y: 0, width: 4, height: 3 }],
    );
  });

  it("takes the rings in any order and direction (even-odd)", async () => {
    const geometry = JSON.stringify({ rings: [[...HOLE].reverse(), OUTER], spatialReference: { wkid: 4326 } });
    assertClose(await computeStatisticsHistograms(cube, { geometry }), IN_POLYGON);
  });

  it("takes the same polygon in 3857", async () => {
    const geometry = JSON.stringify({ rings: [OUTER.map(mercator), HOLE.map(mercator)], spatialReference: { wkid: 102100 } });
    assertClose(await computeStatisticsHistograms(cube, { geometry }), IN_POLYGON);
  });

  it("takes an envelope in 3857 (lon -12..12, lat -8..8: centres lon -10, 0, 10 × lat -5, 5)", async () => {
    const [xmin, ymin] = mercator([-12, -8]);
    const [xmax, ymax] = mercator([12, 8]);
    const r = await computeStatisticsHistograms(cube, {
      geometry: JSON.stringify({ xmin, ymin, xmax, ymax, spatialReference: { wkid: 3857 } }),
    });
    assertClose(r, [11, 12, 13, 21, 22, 23]);
  });

  it("chooses the slice by time, sliceId and mosaicRule", async () => {
    const geometry = envelope(-25, -20, 25, 20);
    assertClose(
      await computeStatisticsHistograms(cube, { geometry, sliceId: "2" }),
      ALL.map((v) => v + 200),
    );
    const rule = { multidimensionalDefinition: [{ variableName: "a", dimensionName: "StdTime", values: [T[2]] }] };
    assertClose(
      await computeStatisticsHistograms(cube, { geometry, mosaicRule: JSON.stringify(rule) }),
      ALL.map((v) => v + 200),
    );
  });

  it("answers count 0 and no histogram for an area with no cell centre, outside the grid or with no slice", async () => {
    const none = { statistics: [{ min: null, max: null, mean: null, standardDeviation: null, count: 0 }], histograms: [] };
    reads.length = 0;
    assert.deepEqual(await computeStatisticsHistograms(cube, { geometry: envelope(1, 1, 4, 4) }), none);
    assert.deepEqual(await computeStatisticsHistograms(cube, { geometry: envelope(30, 0, 40, 10) }), none);
    assert.equal(reads.length, 0);
    const before = { multidimensionalDefinition: [{ variableName: "a", dimensionName: "StdTime", values: [0] }] };
    assert.deepEqual(
      await computeStatisticsHistograms(cube, { geometry: envelope(-25, -20, 25, 20), mosaicRule: JSON.stringify(before) }),
      none,
    );
  });

  it("puts a constant area in bin 0", async () => {
    const one = await computeStatisticsHistograms(cube, { geometry: envelope(-4, 1, 4, 9) });
    assert.deepEqual(one.statistics, [{ min: 22, max: 22, mean: 22, standardDeviation: 0, count: 1 }]);
    assert.equal(one.histograms[0].counts[0], 1);
  });

  const refused: [string, Record<string, string>, string][] = [
    ["missing geometry", {}, "geometry"],
    ["bad JSON", { geometry: '{"rings": [[' }, "geometry"],
    ["a point", { geometry: "1,6" }, "geometry"],
    ["a polyline", { geometry: '{"paths": [[[0,0],[1,1]]]}' }, "geometry"],
    ["geometryType point", { geometry: envelope(-25, -20, 25, 20), geometryType: "esriGeometryPoint" }, "geometry"],
    ["an unknown geometryType", { geometry: envelope(-25, -20, 25, 20), geometryType: "box" }, "geometryType"],
    ["an envelope with no width", { geometry: envelope(5, 0, 5, 1) }, "geometry"],
    ["a ring of non-pairs", { geometry: '{"rings": [[1, 2, 3]]}' }, "geometry"],
    ["a sliceId past the end", { geometry: envelope(-25, -20, 25, 20), sliceId: "3" }, "sliceId"],
    [
      "an unknown variable in mosaicRule",
      { geometry: envelope(-25, -20, 25, 20), mosaicRule: '{"multidimensionalDefinition":[{"variableName":"b"}]}' },
      "mosaicRule",
    ],
    // UTM 33N has no inverse this far out.
    ["a vertex with no image in the grid", { geometry: envelope(500000, 0, 5e7, 1000, 32633) }, "geometry"],
  ];
  for (const [what, params, parameter] of refused) {
    it(`refuses ${what}, naming ${parameter}`, async () => {
      await assert.rejects(
        computeStatisticsHistograms(cube, params),
        (e: unknown) => e instanceof InvalidInputError && e.parameter === parameter,
      );
    });
  }
});

describe("computeStatisticsHistograms on a global grid (navy winds: columns from 18.75°E)", () => {
  let winds: Cube;
  before(async () => {
    winds = await openCube(`${REAL}monthly_navy_winds.cdf`);
  });
  after(() => winds.close());

  /** UWND of the first time at the equator row (lat 0 = north-up row 36), columns given. */
  async function equator(cols: number[]): Promise<number[]> {
    const { data } = await winds.variables[0].read({ dims: [[0, 1]], window: { x: 0, y: 36, width: 144, height: 1 } });
    return cols.map((c) => data[c]);
  }

  it("wraps an envelope across the grid's west edge (lon 9..29: centres 10..17.5 at the east end, 20..27.5 at the west)", async () => {
    const r = await computeStatisticsHistograms(winds, { geometry: envelope(9, -1, 29, 1) });
    assertClose(r, await equator([140, 141, 142, 143, 0, 1, 2, 3]));
  });

  it("takes the same area as a polygon in 3857", async () => {
    const ring = (
      [
        [9, -1],
        [9, 1],
        [29, 1],
        [29, -1],
        [9, -1],
      ] as [number, number][]
    ).map(mercator);
    const r = await computeStatisticsHistograms(winds, { geometry: JSON.stringify({ rings: [ring], spatialReference: { wkid: 3857 } }) });
    assertClose(r, await equator([140, 141, 142, 143, 0, 1, 2, 3]));
  });

  it("counts every cell once under a whole-turn envelope from -180 to 180", async () => {
    const r = await computeStatisticsHistograms(winds, { geometry: envelope(-180, -89, 180, 89) });
    // Rows whose centres are within ±89: lat -87.5 .. 87.5, 71 of them.
    assert.equal(r.statistics[0].count, 144 * 71);
    const { data } = await winds.variables[0].read({ dims: [[0, 1]], window: { x: 0, y: 1, width: 144, height: 71 } });
    assertClose(r, [...data]);
  });

  it("refuses an area wider than a turn", async () => {
    await assert.rejects(
      computeStatisticsHistograms(winds, { geometry: envelope(-180, -10, 200, 10) }),
      (e: unknown) => e instanceof InvalidInputError && e.parameter === "geometry" && /360/.test(e.message),
    );
  });
});
