/**
 * getSamples (src/services/samples.ts) on a hand-made cube whose values say where they come
 * from. Grid: lon centres -20, -10, 0, 10, 20 (edges -25 .. 25), lat centres -15, -5, 5, 15
 * stored south-up (edges -20 .. 20), 10° cells, EPSG:4326.
 *   a(time, lat, lon) = 100·t + 10·latIndex + lonIndex   (latIndex in storage order: 0 = -15°)
 * three times (2000-01-01, 2000-02-01, 2000-03-01); -999 (nodata) at t = 1, lat 5, lon 0.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { MAX_SAMPLES, getSamples } from "../../src/services/samples.js";
import { writeSmallCube } from "../helpers/smallCube.js";

const T = [946684800000, 949363200000, 951868800000];
const R = 6378137;
const WGS84 = { wkid: 4326, latestWkid: 4326 };

function mercator(lon: number, lat: number): [number, number] {
  const rad = Math.PI / 180;
  return [R * lon * rad, R * Math.log(Math.tan(Math.PI / 4 + (lat * rad) / 2))];
}

let dir: string;
let cube: Cube;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-samples-"));
  const path = join(dir, "cube.nc");
  await writeSmallCube(path);
  cube = await openCube(path);
});
after(async () => {
  await cube.close();
  await rm(dir, { recursive: true, force: true });
});

const polyline = (...path: [number, number][]) => JSON.stringify({ paths: [path], spatialReference: { wkid: 4326 } });
const values = async (params: Record<string, string>) => (await getSamples(cube, params)).samples.map((s) => s.value);
const xs = async (params: Record<string, string>) => (await getSamples(cube, params)).samples.map((s) => [s.location.x, s.location.y]);

describe("getSamples", () => {
  it("samples a point where it is, with ArcGIS's fields", async () => {
    const { samples } = await getSamples(cube, { geometry: "1,6" });
    assert.deepEqual(samples, [
      { location: { x: 1, y: 6, spatialReference: WGS84 }, locationId: 0, value: "22", rasterId: 0, resolution: 10 },
    ]);
  });

  it("samples each point of a multipoint in order, NoData outside the grid", async () => {
    const geometry = JSON.stringify({
      points: [
        [1, 6],
        [12, -7],
        [30, 0],
        [-20, -15],
      ],
      spatialReference: { wkid: 4326 },
    });
    const { samples } = await getSamples(cube, { geometry });
    assert.deepEqual(
      samples.map((s) => [s.locationId, s.value]),
      [
        [0, "22"],
        [1, "13"],
        [2, "NoData"],
        [3, "0"],
      ],
    );
  });

  it("takes a multipoint in 3857 and reports locations in it", async () => {
    const points = [mercator(1, 6), mercator(12, -7)];
    const { samples } = await getSamples(cube, { geometry: JSON.stringify({ points, spatialReference: { wkid: 102100 } }) });
    assert.deepEqual(
      samples.map((s) => s.value),
      ["22", "13"],
    );
    assert.deepEqual(samples[1].location, { x: points[1][0], y: points[1][1], spatialReference: { wkid: 102100, latestWkid: 3857 } });
  });

  it("spaces sampleCount points evenly along a line, both ends included", async () => {
    const params = { geometry: polyline([-20, 15], [20, 15]), sampleCount: "5" };
    assert.deepEqual(await xs(params), [
      [-20, 15],
      [-10, 15],
      [0, 15],
      [10, 15],
      [20, 15],
    ]);
    assert.deepEqual(await values(params), ["30", "31", "32", "33", "34"]);
    const { samples } = await getSamples(cube, params);
    assert.deepEqual(
      samples.map((s) => s.locationId),
      [0, 1, 2, 3, 4],
    );
  });

  it("measures sampleCount spacing along the whole line, round its corners (length 30 + 40, every 10)", async () => {
    const params = { geometry: polyline([-20, -15], [-20, 15], [20, 15]), sampleCount: "8" };
    assert.deepEqual(await xs(params), [
      [-20, -15],
      [-20, -5],
      [-20, 5],
      [-20, 15],
      [-10, 15],
      [0, 15],
      [10, 15],
      [20, 15],
    ]);
    assert.deepEqual(await values(params), ["0", "10", "20", "30", "31", "32", "33", "34"]);
  });

  it("takes sampleCount=1 as the line's start", async () => {
    assert.deepEqual(await xs({ geometry: polyline([-20, 15], [20, 15]), sampleCount: "1" }), [[-20, 15]]);
  });

  it("steps sampleDistance along the line in its own units and ends at its end", async () => {
    const params = { geometry: polyline([-20, 15], [20, 15]), sampleDistance: "12" };
    assert.deepEqual(
      (await xs(params)).map(([x]) => x),
      [-20, -8, 4, 16, 20],
    );
    assert.deepEqual(await values(params), ["30", "31", "32", "34", "34"]);
    // A distance that divides the length exactly does not repeat the end.
    assert.deepEqual(
      (await xs({ geometry: polyline([-20, 15], [20, 15]), sampleDistance: "20" })).map(([x]) => x),
      [-20, 0, 20],
    );
  });

  it("samples a line's vertices when neither sampleCount nor sampleDistance is given", async () => {
    assert.deepEqual(await values({ geometry: polyline([-20, -15], [-20, 15], [20, 15]) }), ["0", "30", "34"]);
  });

  it("chooses the slice by time, sliceId and mosaicRule, NoData at nodata", async () => {
    assert.deepEqual(await values({ geometry: "1,6", time: String(T[2]) }), ["222"]);
    assert.deepEqual(await values({ geometry: "1,6", sliceId: "1" }), ["NoData"]);
    const rule = { multidimensionalDefinition: [{ variableName: "a", dimensionName: "StdTime", values: [T[2]] }] };
    assert.deepEqual(await values({ geometry: "1,6", mosaicRule: JSON.stringify(rule) }), ["222"]);
    assert.deepEqual(await values({ geometry: "1,6", returnFirstValueOnly: "false" }), ["22"]);
  });

  it("samples MAX_SAMPLES points", async () => {
    const { samples } = await getSamples(cube, { geometry: polyline([-20, 15], [20, 15]), sampleCount: String(MAX_SAMPLES) });
    assert.equal(samples.length, MAX_SAMPLES);
    assert.deepEqual([samples[0].value, samples[MAX_SAMPLES - 1].value], ["30", "34"]);
  });

  const tooMany = JSON.stringify({ points: Array.from({ length: MAX_SAMPLES + 1 }, () => [0, 0]) });
  const refused: [string, Record<string, string>, string][] = [
    ["missing geometry", {}, "geometry"],
    ["bad JSON", { geometry: '{"paths": [[' }, "geometry"],
    ["a polygon", { geometry: '{"rings": [[[0,0],[1,0],[1,1],[0,0]]]}' }, "geometry"],
    ["an envelope", { geometry: '{"xmin":0,"ymin":0,"xmax":1,"ymax":1}' }, "geometry"],
    ["geometryType envelope", { geometry: "1,6", geometryType: "esriGeometryEnvelope" }, "geometry"],
    ["an unknown geometryType", { geometry: "1,6", geometryType: "line" }, "geometryType"],
    ["a path of non-pairs", { geometry: '{"paths": [[1, 2]]}' }, "geometry"],
    ["more than MAX_SAMPLES points", { geometry: tooMany }, "geometry"],
    ["sampleCount too large", { geometry: polyline([0, 0], [1, 1]), sampleCount: String(MAX_SAMPLES + 1) }, "sampleCount"],
    ["sampleCount 0", { geometry: polyline([0, 0], [1, 1]), sampleCount: "0" }, "sampleCount"],
    ["sampleCount not a number", { geometry: polyline([0, 0], [1, 1]), sampleCount: "many" }, "sampleCount"],
    ["a bad sampleCount even on a point", { geometry: "1,6", sampleCount: "x" }, "sampleCount"],
    ["sampleDistance negative", { geometry: polyline([0, 0], [1, 1]), sampleDistance: "-1" }, "sampleDistance"],
    ["sampleDistance giving too many", { geometry: polyline([0, 0], [40, 0]), sampleDistance: "0.001" }, "sampleDistance"],
    ["a sliceId past the end", { geometry: "1,6", sliceId: "3" }, "sliceId"],
    [
      "an unknown variable in mosaicRule",
      { geometry: "1,6", mosaicRule: '{"multidimensionalDefinition":[{"variableName":"b"}]}' },
      "mosaicRule",
    ],
    ["returnFirstValueOnly=maybe", { geometry: "1,6", returnFirstValueOnly: "maybe" }, "returnFirstValueOnly"],
  ];
  for (const [what, params, parameter] of refused) {
    it(`refuses ${what}, naming ${parameter}`, async () => {
      await assert.rejects(getSamples(cube, params), (e: unknown) => e instanceof InvalidInputError && e.parameter === parameter);
    });
  }
});
