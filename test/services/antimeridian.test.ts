/**
 * A global grid stored with longitudes 0..360 is served as map clients expect longitudes,
 * -180..180 (issue 12 §5). Two hand-made 10° global cubes hold the same ground: one stored
 * 0..360 (centres 5..355), one -180..180 (centres -175..175); each cell's value is its
 * longitude east of Greenwich in 0..360 (the centre) plus 1000 × its stored row, so the value
 * a map pixel should show is known from the pixel's own longitude. Checked: the root's
 * extent (-180..180 for both, an offset global grid from its cell edge just west of -180, a
 * regional grid east of 180 moved by a turn), exportImage over the whole Web Mercator world
 * as the Maps SDK asks it (both halves drawn, the same pixels from either storage, each the
 * cell under the pixel), a bbox beyond ±180 as a map panned round the world asks it (drawn
 * wrapped, as ArcGIS Server normalises it), also when bboxSR is not imageSR, the default
 * bbox, and identify, getSamples and computeStatisticsHistograms on either side of the seam.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { planExport, renderExport } from "../../src/services/exportImage.js";
import { identify } from "../../src/services/identify.js";
import { getSamples } from "../../src/services/samples.js";
import { computeStatisticsHistograms } from "../../src/services/statisticsHistograms.js";
import { imageServiceInfo } from "../../src/services/info.js";
import { latLonDims, latLonVars } from "../helpers/latLonAxes.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";
import { tiffBands } from "../helpers/tiffBands.js";

/** Half the Web Mercator world's width, metres (π × 6378137). */
const HALF_WORLD = Math.PI * 6378137;
const LATS = Array.from({ length: 18 }, (_, j) => -85 + 10 * j);

let dir: string;
const cubes: Cube[] = [];

/** A cube on LATS whose columns are centred on `lons`, each value its column's 0..360 longitude + 1000 × stored row. */
async function globalCube(name: string, lons: number[]): Promise<Cube> {
  const path = join(dir, `${name}.nc`);
  await writeNetcdf3(path, {
    dims: latLonDims(LATS, lons),
    vars: [
      ...latLonVars(LATS, lons),
      {
        name: "v",
        dims: ["lat", "lon"],
        type: "double",
        data: LATS.flatMap((_, j) => lons.map((lon) => east(lon) + 1000 * j)),
      },
    ],
  });
  const cube = await openCube(path);
  cubes.push(cube);
  return cube;
}

/** A longitude as degrees east of Greenwich in [0, 360). */
const east = (lon: number) => ((lon % 360) + 360) % 360;
/** The 0..360 centre of the 10° cell (edges at multiples of 10) that holds longitude `lon`. */
const cellCentre = (lon: number) => Math.floor(east(lon) / 10) * 10 + 5;

let stored0to360: Cube;
let stored180: Cube;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-antimeridian-"));
  stored0to360 = await globalCube(
    "east",
    Array.from({ length: 36 }, (_, i) => 5 + 10 * i),
  );
  stored180 = await globalCube(
    "west",
    Array.from({ length: 36 }, (_, i) => -175 + 10 * i),
  );
});
after(async () => {
  await Promise.all(cubes.map((c) => c.close()));
  await rm(dir, { recursive: true, force: true });
});

/** exportImage as a float tiff (nearest cells): its values, width and height. */
async function exported(cube: Cube, params: Record<string, string>): Promise<{ values: Float32Array; width: number; height: number }> {
  const all = { format: "tiff", interpolation: "RSP_NearestNeighbor", ...params };
  const image = await renderExport(cube, {}, planExport(cube, {}, all));
  const {
    bands: [values],
    width,
    height,
  } = await tiffBands(image.bytes);
  return { values, width, height };
}

/** Each column's value on the middle row (the longitude part: value mod 1000). */
function middleRow(image: { values: Float32Array; width: number; height: number }): number[] {
  const row = Math.floor(image.height / 2);
  return Array.from(image.values.subarray(row * image.width, (row + 1) * image.width), (v) => (Number.isNaN(v) ? NaN : v % 1000));
}

describe("the extent a service reports", () => {
  const extentOf = (cube: Cube) => {
    const e = imageServiceInfo("s", cube, {}).extent as Record<string, number>;
    return [e.xmin, e.ymin, e.xmax, e.ymax];
  };

  it("a global grid stored 0..360 reports -180..180, as one stored -180..180 does", () => {
    assert.deepEqual(extentOf(stored0to360), [-180, -90, 180, 90]);
    assert.deepEqual(extentOf(stored180), [-180, -90, 180, 90]);
  });

  it("a global grid whose cell edges miss -180 reports from the edge just west of it; a regional grid east of 180 moves a turn west", async () => {
    // 4° cells centred 21..377 (COADS's): edges at 19 + 4k, the one at or west of -180 is -181.
    const offset = await globalCube(
      "offset",
      Array.from({ length: 90 }, (_, i) => 21 + 4 * i),
    );
    assert.deepEqual(extentOf(offset), [-181, -90, 179, 90]);
    const pacific = await globalCube("pacific", [205, 215, 225, 235, 245]);
    assert.deepEqual(extentOf(pacific), [-160, -90, -110, 90]);
  });
});

describe("exportImage across the antimeridian", () => {
  const world3857 = { bbox: `${-HALF_WORLD},-8000000,${HALF_WORLD},8000000`, bboxSR: "102100", imageSR: "102100", size: "360,144" };

  it("the whole Web Mercator world: both halves drawn, each pixel the cell under it, the same from either storage", async () => {
    const a = await exported(stored0to360, world3857);
    const b = await exported(stored180, world3857);
    assert.deepEqual([a.width, a.height], [360, 144]);
    assert.ok(!a.values.some(Number.isNaN), "every pixel of the world has data");
    assert.deepEqual(a.values, b.values);
    // Column i's centre is at longitude -179.5 + i (1° wide columns, never on a 10° edge).
    assert.deepEqual(
      middleRow(a),
      Array.from({ length: 360 }, (_, i) => cellCentre(-179.5 + i)),
    );
  });

  it("a bbox beyond 180 (a map panned east round the world) draws the ground it wraps onto", async () => {
    // x from 0 to a whole world: longitudes 0..360, i.e. the eastern half then the western.
    const panned = { ...world3857, bbox: `0,-8000000,${2 * HALF_WORLD},8000000` };
    const a = await exported(stored0to360, panned);
    assert.deepEqual(
      middleRow(a),
      Array.from({ length: 360 }, (_, i) => cellCentre(0.5 + i)),
    );
    assert.deepEqual(a.values, (await exported(stored180, panned)).values);
    // One more world east draws the same pixels again.
    const further = { ...world3857, bbox: `${2 * HALF_WORLD},-8000000,${4 * HALF_WORLD},8000000` };
    assert.deepEqual((await exported(stored0to360, further)).values, a.values);
  });

  it("in geographic coordinates too: 90..270 east and -270..-90 are the same ground", async () => {
    const params = (xmin: number) => ({ bbox: `${xmin},-60,${xmin + 180},60`, bboxSR: "4326", size: "180,120" });
    const want = Array.from({ length: 180 }, (_, i) => cellCentre(90.5 + i));
    for (const cube of [stored0to360, stored180]) {
      assert.deepEqual(middleRow(await exported(cube, params(90))), want);
      assert.deepEqual(middleRow(await exported(cube, params(-270))), want);
    }
  });

  it("a bbox beyond 180 in one spatial reference drawn in another: 90 E to 90 W either way", async () => {
    // Web Mercator x from 90 E to 270 E, drawn in degrees: 180 columns of 1° (the bbox as given, not squared).
    const inDegrees = {
      bbox: `${HALF_WORLD / 2},-1000000,${(3 * HALF_WORLD) / 2},1000000`,
      bboxSR: "3857",
      imageSR: "4326",
      size: "180,16",
      adjustAspectRatio: "false",
    };
    // Degrees 90..270 drawn in Web Mercator (and the same a turn east), 180 columns of 1°.
    const inMetres = (xmin: number) => ({
      bbox: `${xmin},-8,${xmin + 180},8`,
      bboxSR: "4326",
      imageSR: "3857",
      size: "180,16",
      adjustAspectRatio: "false",
    });
    const want = Array.from({ length: 180 }, (_, i) => cellCentre(90.5 + i));
    for (const cube of [stored0to360, stored180]) {
      assert.deepEqual(middleRow(await exported(cube, inDegrees)), want);
      assert.deepEqual(middleRow(await exported(cube, inMetres(90))), want);
      assert.deepEqual(middleRow(await exported(cube, inMetres(450))), want);
    }
    // A whole turn and a half from 90 E: 540 columns of 1°, the ground going round once more.
    const wide = {
      bbox: `${HALF_WORLD / 2},-3000000,${(7 * HALF_WORLD) / 2},3000000`,
      bboxSR: "3857",
      imageSR: "4326",
      size: "540,54",
      adjustAspectRatio: "false",
    };
    assert.deepEqual(
      middleRow(await exported(stored0to360, wide)),
      Array.from({ length: 540 }, (_, i) => cellCentre(90.5 + i)),
    );
  });

  it("with no bbox, the image covers the extent the service reports, west at -180", async () => {
    const a = await exported(stored0to360, { bboxSR: "4326", size: "36,18" });
    assert.deepEqual(
      middleRow(a),
      Array.from({ length: 36 }, (_, i) => cellCentre(-175 + 10 * i)),
    );
  });
});

describe("queries west of Greenwich and across the seam on a 0..360 grid", () => {
  it("-163 is in the cell centred on 195 east", async () => {
    const at = (cube: Cube, x: number) =>
      identify(cube, { geometry: JSON.stringify({ x, y: 2, spatialReference: { wkid: 4326 } }), geometryType: "esriGeometryPoint" });
    // Latitude 2 is in the cell centred on 5: stored row 9.
    assert.equal(Number((await at(stored0to360, -163)).value), 195 + 9000);
    assert.equal(Number((await at(stored180, -163)).value), 195 + 9000);
    assert.equal(Number((await at(stored0to360, 197)).value), 195 + 9000);
  });

  it("getSamples at both ends of a line across the seam: 172 and -172 are the cells centred on 175 and 185 east", async () => {
    const line = {
      paths: [
        [
          [172, 2],
          [-172, 2],
        ],
      ],
      spatialReference: { wkid: 4326 },
    };
    const { samples } = await getSamples(stored0to360, {
      geometry: JSON.stringify(line),
      geometryType: "esriGeometryPolyline",
      sampleCount: "2",
    });
    assert.deepEqual(
      samples.map((x) => Number(x.value)),
      [175 + 9000, 185 + 9000],
    );
  });

  it("computeStatisticsHistograms over 170..-170 (across the seam) counts the two cells either side, in each of the 18 rows", async () => {
    const area = { xmin: 170, ymin: -90, xmax: 190, ymax: 90, spatialReference: { wkid: 4326 } };
    for (const cube of [stored0to360, stored180]) {
      const { statistics } = await computeStatisticsHistograms(cube, {
        geometry: JSON.stringify(area),
        geometryType: "esriGeometryEnvelope",
      });
      // Columns centred on 175 and 185 east in rows 0..17: mean 180 + 1000 × 8.5.
      assert.deepEqual([statistics[0].count, statistics[0].min, statistics[0].max, statistics[0].mean], [36, 175, 17185, 8680]);
    }
  });
});
