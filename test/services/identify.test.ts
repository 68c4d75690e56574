/**
 * identify (src/services/identify.ts) on a hand-made cube whose values say where they come
 * from. Grid: lon centres -20, -10, 0, 10, 20 (edges -25 .. 25), lat centres -15, -5, 5, 15
 * stored south-up (edges -20 .. 20), 10° cells, EPSG:4326. Variables:
 *   a(time, lat, lon)        = 100·t + 10·latIndex + lonIndex      (float; -999 = nodata)
 *   b(time, depth, lat, lon) = 1000·z + 100·t + 10·latIndex + lonIndex + 0.5
 * with latIndex in storage order (0 = -15°), three times (2000-01-01, 2000-02-01,
 * 2000-03-01) and two depths (0, 50 m; StdZ 0, -50). a is nodata at t = 1, lat 5, lon 0.
 * Slices: a's 0..2, then b's 3..8 (depth fastest).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import type { Cube, Selection, Variable } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { identify, pixelText } from "../../src/services/identify.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";

const T = [946684800000, 949363200000, 951868800000];
const R = 6378137;

/** EPSG:3857 coordinates of a lon/lat, by the spherical Mercator formulas. */
function mercator(lon: number, lat: number): { x: number; y: number } {
  const rad = Math.PI / 180;
  return { x: R * lon * rad, y: R * Math.log(Math.tan(Math.PI / 4 + (lat * rad) / 2)) };
}

let dir: string;
let cube: Cube;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-identify-"));
  const path = join(dir, "cube.nc");
  const cell = (base: number, t: number) =>
    Array.from({ length: 20 }, (_, k) =>
      t === 1 && k === 2 * 5 + 2 && base === 0 ? -999 : base + 100 * t + 10 * Math.floor(k / 5) + (k % 5),
    );
  await writeNetcdf3(path, {
    dims: [
      { name: "time", size: 3, record: true },
      { name: "depth", size: 2 },
      { name: "lat", size: 4 },
      { name: "lon", size: 5 },
    ],
    vars: [
      { name: "depth", dims: ["depth"], type: "double", attrs: { units: "m", positive: "down" }, data: [0, 50] },
      { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [-15, -5, 5, 15] },
      { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [-20, -10, 0, 10, 20] },
      { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: (r) => [[0, 31, 60][r]] },
      { name: "a", dims: ["time", "lat", "lon"], type: "float", attrs: { _FillValue: -999 }, data: (t) => cell(0, t) },
      {
        name: "b",
        dims: ["time", "depth", "lat", "lon"],
        type: "float",
        data: (t) => [...cell(0.5, t), ...cell(1000.5, t)],
      },
    ],
  });
  cube = await openCube(path);
});
after(async () => {
  await cube.close();
  await rm(dir, { recursive: true, force: true });
});

/** The cube with every read counted. */
function counted(c: Cube): { cube: Cube; reads: Selection[] } {
  const reads: Selection[] = [];
  const variables = c.variables.map((v): Variable => {
    const w = Object.create(v) as Variable & { read: Variable["read"] };
    w.read = (selection) => (reads.push(selection ?? {}), v.read(selection));
    return w;
  });
  return { cube: { ...c, variables, close: () => c.close() }, reads };
}

describe("identify", () => {
  it("finds the cell containing a 4326 point given as x,y (lon 1, lat 6: column 2, lat index 2)", async () => {
    const r = await identify(cube, { geometry: "1,6" });
    assert.equal(r.value, "22");
    assert.deepEqual(r.location, { x: 1, y: 6, spatialReference: { wkid: 4326, latestWkid: 4326 } });
    assert.equal(r.objectId, 0);
    assert.equal(r.name, "Pixel");
    assert.equal(r.properties, null);
    assert.equal(r.catalogItems, null);
    assert.deepEqual(r.catalogItemVisibilities, []);
    assert.equal(r.dataSeries, undefined);
  });

  it("takes a point in 3857 from the geometry's spatialReference (lon 12, lat -7: lon index 3, lat index 1)", async () => {
    const { x, y } = mercator(12, -7);
    const r = await identify(cube, { geometry: JSON.stringify({ x, y, spatialReference: { wkid: 102100 } }) });
    assert.equal(r.value, "13");
    assert.deepEqual(r.location, { x, y, spatialReference: { wkid: 102100, latestWkid: 3857 } });
  });

  it("takes the point's spatial reference from sr when the geometry has none", async () => {
    const { x, y } = mercator(-18, 14);
    const r = await identify(cube, { geometry: `${x},${y}`, sr: "3857" });
    assert.equal(r.value, "30");
    assert.deepEqual(r.location.spatialReference, { wkid: 102100, latestWkid: 3857 });
    // The geometry's own spatial reference wins over sr.
    const own = await identify(cube, { geometry: JSON.stringify({ x: -18, y: 14, spatialReference: { wkid: 4326 } }), sr: "3857" });
    assert.equal(own.value, "30");
  });

  it("wraps longitudes a turn away onto the geographic grid (372 = 12)", async () => {
    assert.equal((await identify(cube, { geometry: "372,6" })).value, "23");
    assert.equal((await identify(cube, { geometry: "-348,6" })).value, "23");
  });

  it("puts a point on a cell edge in the cell east and south of it", async () => {
    // lon -5 is the edge between lon -10 and lon 0; lat 10 between lat 15 and lat 5.
    assert.equal((await identify(cube, { geometry: "-5,10" })).value, "22");
  });

  it("answers NoData outside the grid and at nodata", async () => {
    for (const geometry of ["30,0", "0,25", "-26,0", "0,-20.5"])
      assert.equal((await identify(cube, { geometry })).value, "NoData", geometry);
    // a is nodata at t = 1, lat 5, lon 0.
    assert.equal((await identify(cube, { geometry: "1,6", time: String(T[1]) })).value, "NoData");
    // A 3857 y beyond the poles has no image in 4326.
    assert.equal((await identify(cube, { geometry: "0,1e300", sr: "3857" })).value, "NoData");
  });

  it("chooses the slice by time, sliceId and mosaicRule", async () => {
    assert.equal((await identify(cube, { geometry: "1,6", time: String(T[2]) })).value, "222");
    assert.equal((await identify(cube, { geometry: "1,6", sliceId: "2" })).value, "222");
    assert.equal((await identify(cube, { geometry: "1,6", sliceId: "4" })).value, "1022.5");
    const rule = {
      multidimensionalDefinition: [
        { variableName: "b", dimensionName: "StdTime", values: [T[1]] },
        { variableName: "b", dimensionName: "StdZ", values: [-50] },
      ],
    };
    assert.equal((await identify(cube, { geometry: "1,6", mosaicRule: JSON.stringify(rule) })).value, "1122.5");
    // No slice at a time before the first: NoData, not an error.
    const before = { multidimensionalDefinition: [{ variableName: "a", dimensionName: "StdTime", values: [0] }] };
    assert.equal((await identify(cube, { geometry: "1,6", mosaicRule: JSON.stringify(before) })).value, "NoData");
  });

  it("with processAsMultidimensional gives every slice of a, in slice order, from one read", async () => {
    const { cube: c, reads } = counted(cube);
    const r = await identify(c, { geometry: "1,6", processAsMultidimensional: "true" });
    assert.equal(r.value, "22");
    assert.deepEqual(r.properties, { Values: ["22", "NoData", "222"] });
    assert.deepEqual(
      r.dataSeries,
      T.map((t, i) => ({
        value: [[22, null, 222][i]],
        multidimensionalDefinition: [{ variableName: "a", dimensionName: "StdTime", values: [t], isSlice: true }],
      })),
    );
    assert.equal(reads.length, 1);
    assert.deepEqual(reads[0].dims, [[0, 3]]);
    assert.deepEqual(reads[0].window, { x: 2, y: 1, width: 1, height: 1 });
  });

  it("with processAsMultidimensional gives b's time × depth slices (depth fastest), one read per depth", async () => {
    const { cube: c, reads } = counted(cube);
    const rule = { multidimensionalDefinition: [{ variableName: "b", dimensionName: "StdZ", values: [-50] }] };
    const r = await identify(c, { geometry: "1,6", processAsMultidimensional: "true", mosaicRule: JSON.stringify(rule) });
    // The selected slice (first time, depth 50) is the top-level value.
    assert.equal(r.value, "1022.5");
    assert.deepEqual(r.properties?.Values, ["22.5", "1022.5", "122.5", "1122.5", "222.5", "1222.5"]);
    assert.deepEqual(
      r.dataSeries?.map((d) => d.value[0]),
      [22.5, 1022.5, 122.5, 1122.5, 222.5, 1222.5],
    );
    assert.deepEqual(r.dataSeries?.[3].multidimensionalDefinition, [
      { variableName: "b", dimensionName: "StdTime", values: [T[1]], isSlice: true },
      { variableName: "b", dimensionName: "StdZ", values: [-50], isSlice: true },
    ]);
    assert.equal(reads.length, 2);
    assert.deepEqual(
      reads.map((s) => s.dims),
      [
        [
          [0, 3],
          [0, 1],
        ],
        [
          [0, 3],
          [1, 2],
        ],
      ],
    );
  });

  it("with processAsMultidimensional keeps the variable even when the rule's values match no slice", async () => {
    const rule = { multidimensionalDefinition: [{ variableName: "b", dimensionName: "StdTime", values: [0] }] };
    const r = await identify(cube, { geometry: "1,6", processAsMultidimensional: "true", mosaicRule: JSON.stringify(rule) });
    assert.equal(r.value, "NoData");
    assert.equal(r.dataSeries?.length, 6);
    assert.equal(r.dataSeries?.[0].multidimensionalDefinition[0].variableName, "b");
  });

  it("outside the grid, processAsMultidimensional gives a NoData series without reading", async () => {
    const { cube: c, reads } = counted(cube);
    const r = await identify(c, { geometry: "40,0", processAsMultidimensional: "true" });
    assert.deepEqual(r.properties, { Values: ["NoData", "NoData", "NoData"] });
    assert.deepEqual(
      r.dataSeries?.map((d) => d.value),
      [[null], [null], [null]],
    );
    assert.equal(reads.length, 0);
  });

  it("writes float32 values in the fewest digits that read back the same", () => {
    const a = cube.variables[0];
    assert.equal(pixelText(Math.fround(0.1), a), "0.1");
    assert.equal(pixelText(Math.fround(-3.7), a), "-3.7");
    assert.equal(pixelText(Math.fround(1 / 3), a), "0.33333334");
    assert.equal(pixelText(-999, a), "NoData");
    assert.equal(pixelText(NaN, a), "NoData");
    assert.equal(pixelText(null, a), "NoData");
  });

  const refused: [string, Record<string, string>, string][] = [
    ["missing geometry", {}, "geometry"],
    ["empty geometry", { geometry: " " }, "geometry"],
    ["bad JSON", { geometry: '{"x": 1, "y":' }, "geometry"],
    ["x,y with one number", { geometry: "1" }, "geometry"],
    ["a non-numeric x", { geometry: '{"x": "east", "y": 1}' }, "geometry"],
    ["a polygon", { geometry: '{"rings": [[[0,0],[1,0],[1,1],[0,0]]]}' }, "geometry"],
    ["geometryType polygon", { geometry: "1,6", geometryType: "esriGeometryPolygon" }, "geometry"],
    ["an unknown geometryType", { geometry: "1,6", geometryType: "esriGeometryCircle" }, "geometryType"],
    ["an unknown spatial reference", { geometry: '{"x":1,"y":6,"spatialReference":{"wkid":999999}}' }, "geometry"],
    ["an unknown sr", { geometry: "1,6", sr: "999999" }, "sr"],
    ["a sliceId past the end", { geometry: "1,6", sliceId: "9" }, "sliceId"],
    ["a fractional sliceId", { geometry: "1,6", sliceId: "1.5" }, "sliceId"],
    [
      "an unknown variable in mosaicRule",
      { geometry: "1,6", mosaicRule: '{"multidimensionalDefinition":[{"variableName":"c"}]}' },
      "mosaicRule",
    ],
    ["mosaicRule that is not JSON", { geometry: "1,6", mosaicRule: "{nope" }, "mosaicRule"],
    ["a bad time", { geometry: "1,6", time: "yesterday" }, "time"],
    ["processAsMultidimensional=yes", { geometry: "1,6", processAsMultidimensional: "yes" }, "processAsMultidimensional"],
  ];
  for (const [what, params, parameter] of refused) {
    it(`refuses ${what}, naming ${parameter}`, async () => {
      await assert.rejects(identify(cube, params), (e: unknown) => e instanceof InvalidInputError && e.parameter === parameter);
    });
  }
});
