/**
 * exportImage format=lerc on small hand-made cubes, read back with Esri's decoder (the `lerc`
 * package): the values are the cells' own (nearest, the grid's own cells), nodata is masked,
 * a trend raster's bands come as one blob each (all by default, or bandIds), pixelType and
 * noData are honoured, compressionTolerance bounds the error, and bad values are 400s.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as Lerc from "lerc";
import { BAND_DIMENSION, TREND_ATTRIBUTE } from "../../src/analysis/trendModel.js";
import { InvalidInputError } from "../../src/cube/errors.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { planExport, renderExport } from "../../src/services/exportImage.js";
import { type NcVariable, writeNetcdf3 } from "../helpers/netcdf3Writer.js";

let dir: string;
let cube: Cube;
let trend: Cube;
const FILL = -999;
/** Cell k of the 5×4 grid (row-major, north row first) holds k / 4 - 1, cell 7 none. */
const cell = (k: number) => (k === 7 ? null : k / 4 - 1);
/** The file stores rows south to north; Strata serves them north-up. */
const stored = (band: number) =>
  Array.from({ length: 20 }, (_, k) => cell((3 - Math.floor(k / 5)) * 5 + (k % 5)) ?? FILL).map((v) => (v === FILL ? v : v + band * 10));

before(async () => {
  await Lerc.load();
  dir = await mkdtemp(join(tmpdir(), "strata-lerc-"));
  const grid: NcVariable[] = [
    { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [-15, -5, 5, 15] },
    { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [-20, -10, 0, 10, 20] },
  ];
  await writeNetcdf3(join(dir, "cube.nc"), {
    dims: [
      { name: "lat", size: 4 },
      { name: "lon", size: 5 },
    ],
    vars: [...grid, { name: "a", dims: ["lat", "lon"], type: "float", attrs: { _FillValue: FILL }, data: stored(0) }],
  });
  cube = await openCube(join(dir, "cube.nc"));
  await writeNetcdf3(join(dir, "trend.nc"), {
    dims: [
      { name: BAND_DIMENSION, size: 3 },
      { name: "lat", size: 4 },
      { name: "lon", size: 5 },
    ],
    vars: [
      { name: BAND_DIMENSION, dims: [BAND_DIMENSION], type: "double", data: [0, 1, 2] },
      ...grid,
      { name: "t", dims: [BAND_DIMENSION, "lat", "lon"], type: "float", attrs: { _FillValue: FILL }, data: [0, 1, 2].flatMap(stored) },
    ],
  });
  const opened = await openCube(join(dir, "trend.nc"));
  // As a trend raster records its bands (analysis/trendModel.ts).
  trend = {
    ...opened,
    variables: opened.variables.map((v) => ({
      ...v,
      attributes: { ...v.attributes, [TREND_ATTRIBUTE]: { bands: ["Slope", "Intercept", "RMSE"] } },
    })),
  };
});
after(async () => {
  await cube.close();
  await trend.close();
  await rm(dir, { recursive: true, force: true });
});

/** The grid's own cells, so nearest gives each cell's value. */
const own = { bbox: "-25,-20,25,20", bboxSR: "4326", size: "5,4", interpolation: "RSP_NearestNeighbor", format: "lerc" };

async function exportLerc(c: Cube, params: Record<string, string>) {
  const image = await renderExport(c, {}, planExport(c, {}, params));
  assert.equal(image.contentType, "application/octet-stream");
  assert.equal(image.extension, "lerc");
  return Lerc.decode(image.bytes);
}

describe("exportImage format=lerc", () => {
  it("answers the cells' values in the variable's pixel type, nodata masked", async () => {
    const d = await exportLerc(cube, own);
    assert.equal(d.pixelType, "F32");
    assert.equal([d.width, d.height].join(), "5,4");
    const mask = d.mask ?? d.bandMasks![0];
    for (let k = 0; k < 20; k++) {
      const want = cell(k);
      assert.equal(mask[k], want === null ? 0 : 1, `mask at ${k}`);
      if (want !== null) assert.equal(d.pixels[0][k], want, `cell ${k}`);
    }
  });

  it("holds every band of a trend raster by default, or the bandIds asked for, one blob each", async () => {
    const all = await exportLerc(trend, own);
    assert.equal(all.pixels.length, 3);
    for (let b = 0; b < 3; b++) for (const k of [0, 6, 19]) assert.equal(all.pixels[b][k], cell(k)! + b * 10);
    const two = await exportLerc(trend, { ...own, bandIds: "2,0" });
    assert.equal(two.pixels.length, 2);
    assert.equal(two.pixels[0][6], cell(6)! + 20);
    assert.equal(two.pixels[1][6], cell(6));
  });

  it("writes the pixelType asked for (rounded), masks noData, and keeps within compressionTolerance", async () => {
    const ints = await exportLerc(cube, { ...own, pixelType: "S16" });
    assert.equal(ints.pixelType, "S16");
    for (let k = 0; k < 20; k++) if (k !== 7) assert.equal(ints.pixels[0][k], Math.round(cell(k)!) || 0);
    const masked = await exportLerc(cube, { ...own, noData: "0" });
    assert.equal((masked.mask ?? masked.bandMasks![0])[4], 0, "cell 4 holds 0, the noData asked for");
    const bilinear = { ...own, size: "100,80", interpolation: "RSP_BilinearInterpolation" };
    const exact = await exportLerc(cube, bilinear);
    const coarse = await exportLerc(cube, { ...bilinear, compressionTolerance: "0.1", lercVersion: "2" });
    let worst = 0;
    for (let i = 0; i < exact.pixels[0].length; i++) {
      if (exact.mask?.[i] ?? 1) worst = Math.max(worst, Math.abs(exact.pixels[0][i] - coarse.pixels[0][i]));
    }
    assert.ok(worst > 0 && worst <= 0.1 + 1e-6, `largest error ${worst}`);
  });

  it("refuses a negative compressionTolerance and a lercVersion other than 2", () => {
    for (const [name, value] of [
      ["compressionTolerance", "-1"],
      ["compressionTolerance", "fine"],
      ["lercVersion", "1"],
    ]) {
      assert.throws(
        () => planExport(cube, {}, { ...own, [name]: value }),
        (e: unknown) => e instanceof InvalidInputError && e.parameter === name,
        `${name}=${value}`,
      );
    }
  });
});
