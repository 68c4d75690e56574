/**
 * exportImage's plan on a small hand-made cube: the default rendering (a diverging ramp over
 * a range centred on zero for anomaly outputs, viridis over the statistics otherwise), the
 * target grid (square cells about the bbox's centre unless adjustAspectRatio=false, imageSR
 * defaulting to bboxSR), and a blank image when the request names no slice.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { type ExportPlan, planExport, renderExport } from "../../src/services/exportImage.js";
import { decodePng } from "../helpers/pngDecode.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";

let dir: string;
let cube: Cube;
const stats = { a: { min: -2, max: 5, mean: 1, stddev: 1, count: 20 } };

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-export-"));
  const path = join(dir, "cube.nc");
  await writeNetcdf3(path, {
    dims: [
      { name: "time", size: 2, record: true },
      { name: "lat", size: 4 },
      { name: "lon", size: 5 },
    ],
    vars: [
      { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [-15, -5, 5, 15] },
      { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [-20, -10, 0, 10, 20] },
      { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: (r) => [[0, 31][r]] },
      { name: "a", dims: ["time", "lat", "lon"], type: "float", data: (t) => Array.from({ length: 20 }, (_, k) => (t === 0 ? k - 2 : 0)) },
    ],
  });
  cube = await openCube(path);
});
after(async () => {
  await cube.close();
  await rm(dir, { recursive: true, force: true });
});

/** The ramp and min-max range of a plan's default stretch. */
function rampAndRange(plan: ExportPlan): [string | undefined, number | undefined, number | undefined] {
  const r = plan.render;
  assert.ok(r.kind === "stretch" && r.stretch.type === "minMax", JSON.stringify(r));
  return [r.ramp, r.stretch.min, r.stretch.max];
}

describe("exportImage plan", () => {
  it("renders viridis over the statistics by default, and RdBu_r centred on zero for anomalies", () => {
    const plain = planExport(cube, stats, {});
    assert.deepEqual(rampAndRange(plain), ["viridis", -2, 5]);
    const anomaly: Cube = {
      ...cube,
      variables: cube.variables.map((v) => ({
        ...v,
        attributes: { ...v.attributes, "strata:anomaly": { method: "DIFFERENCE_FROM_MEAN" } },
      })),
    };
    const diverging = planExport(anomaly, stats, {});
    assert.deepEqual(rampAndRange(diverging), ["RdBu_r", -5, 5]);
  });

  it("keeps cells square about the bbox's centre unless adjustAspectRatio=false; imageSR defaults to bboxSR", () => {
    const square = planExport(cube, stats, { bbox: "0,0,10,20", bboxSR: "4326", size: "100,100" });
    // 10 × 20 degrees into 100 × 100 pixels: cells of 0.2°, the box widened to 20° about x = 5.
    assert.deepEqual(square.target.transform, [-5, 0.2, 0, 20, 0, -0.2]);
    const stretched = planExport(cube, stats, { bbox: "0,0,10,20", bboxSR: "4326", size: "100,100", adjustAspectRatio: "false" });
    assert.deepEqual(stretched.target.transform, [0, 0.1, 0, 20, 0, -0.2]);
    const mercator = planExport(cube, stats, { bbox: "0,0,1000000,1000000", bboxSR: "102100", size: "10,10" });
    assert.equal(mercator.target.crs.epsg, 3857);
  });

  it("draws a transparent image when the request names values no slice has", async () => {
    const plan = planExport(cube, stats, { time: "0,1", size: "5,4", format: "png32" });
    assert.equal(plan.slice, undefined);
    const png = decodePng((await renderExport(cube, stats, plan)).bytes);
    for (let i = 3; i < png.rgba.length; i += 4) assert.equal(png.rgba[i], 0);
  });
});
