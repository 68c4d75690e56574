/**
 * The `context` parameter (SPEC §10) with the warp: parseContext's plans (outSR forms,
 * cellSize, resamplingMethod, extent in another CRS, warnings, bad values as 400s naming
 * context), applyContext, and end to end: a Subset of samples/sst_climatology_4deg.nc into
 * Web Mercator whose written values equal a bilinear interpolation worked here from the
 * source values; Anomaly, Trend and Predict write on the target grid too.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import type { Cube } from "../../src/cube/types.js";
import { openCube, openLocation } from "../../src/io/open.js";
import { openRasterStore } from "../../src/store/rasterStore.js";
import { anomalyTask } from "../../src/tasks/anomaly.js";
import { applyContext, parseContext } from "../../src/tasks/context.js";
import { predictTask } from "../../src/tasks/predict.js";
import { subsetTask } from "../../src/tasks/subset.js";
import { trendTask } from "../../src/tasks/trend.js";
import type { ParseEnv, TaskDefinition } from "../../src/tasks/types.js";
import { fakeRunContext } from "../helpers/runContext.js";
import { rejectsContext } from "../helpers/contextErrors.js";

const SST = fileURLToPath(new URL("../../samples/sst_climatology_4deg.nc", import.meta.url));
const R = 6378137;
const HALF = Math.PI * R; // Web Mercator half-width, 20037508.34 m
const WARP = JSON.stringify({ outSR: { wkid: 3857 }, cellSize: 200000, resamplingMethod: "BILINEAR" });

const env: ParseEnv = {
  resolveInput: async (descriptor) => ({ location: { path: (descriptor as { uri: string }).uri }, warnings: [] }),
  resolveOutput: async () => ({ kind: "create", serviceName: "context_out", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};

let sst: Cube;
let dir = "";
before(async () => {
  sst = await openCube(SST);
  dir = await mkdtemp(join(tmpdir(), "strata-context-"));
});
after(async () => {
  await sst.close();
  await rm(dir, { recursive: true, force: true });
});

describe("parseContext: plans", () => {
  it("no context, or extent only: a window of the input, no warp", () => {
    const none = parseContext(undefined, sst.grid);
    assert.deepEqual(none.plan, { window: { x: 0, y: 0, width: 90, height: 45 } });
    assert.equal(none.warp, undefined);
    const clipped = parseContext('{"extent":{"xmin":-170,"ymin":-10,"xmax":-150,"ymax":10,"spatialReference":{"wkid":4326}}}', sst.grid);
    // lon -170..-150 = 190..210 on the 19..379 grid: columns 42..47, numbered as the extent
    // numbers them (the grid presented from column 42, west edge -173); lat 10..-10: rows 19..24
    assert.deepEqual(clipped.plan, { seam: { firstColumn: 42, originX: -173 }, window: { x: 0, y: 19, width: 6, height: 6 } });
    assert.deepEqual([clipped.grid.width, clipped.grid.height, clipped.grid.transform[0]], [6, 6, -173]);
    assert.deepEqual(Array.from(clipped.grid.x), [-171, -167, -163, -159, -155, -151]);
  });

  it("outSR in every form: wkid, {wkid, latestWkid}, a bare number, a string", () => {
    for (const outSR of [{ wkid: 3857 }, { wkid: 102100, latestWkid: 3857 }, 102100, "3857", "EPSG:3857"]) {
      const c = parseContext(JSON.stringify({ outSR, cellSize: 200000 }), sst.grid);
      assert.ok(c.warp, JSON.stringify(outSR));
      assert.equal(c.warp.crs.epsg, 3857);
      assert.deepEqual([c.warp.width, c.warp.height], [201, 201]);
      assert.equal(c.warp.method, "NEAREST");
      assert.deepEqual(c.window, { x: 0, y: 0, width: 201, height: 201 });
      assert.deepEqual(c.plan, { window: c.window, warp: c.warp });
      assert.equal(c.grid.crs.epsg, 3857);
    }
  });

  it("the plan is plain JSON (it is stored with the job)", () => {
    const c = parseContext(WARP, sst.grid);
    assert.deepEqual(JSON.parse(JSON.stringify(c.plan)), c.plan);
    assert.equal(c.resamplingMethod, "BILINEAR");
  });

  it("resamplingMethod is case-insensitive", () => {
    for (const m of ["bilinear", "Cubic", "NEAREST"]) {
      assert.equal(parseContext(JSON.stringify({ cellSize: 8, resamplingMethod: m }), sst.grid).warp!.method, m.toUpperCase());
    }
  });

  it("cellSize: MAXOF, MINOF and the input's own size change nothing; another size re-cuts the input's lattice", () => {
    for (const cellSize of ["MAXOF", "minof", 4, "4"]) {
      const c = parseContext(JSON.stringify({ cellSize }), sst.grid);
      assert.equal(c.warp, undefined, String(cellSize));
      assert.deepEqual(c.window, { x: 0, y: 0, width: 90, height: 45 });
    }
    const eight = parseContext('{"cellSize":8}', sst.grid).warp!;
    assert.deepEqual([eight.width, eight.height, ...eight.transform], [45, 23, 19, 8, 0, 89, 0, -8]);
    assert.deepEqual(eight.crs, sst.grid.crs);
  });

  it("outSR equal to the input's CRS is no warp", () => {
    assert.equal(parseContext('{"outSR":{"wkid":4326}}', sst.grid).warp, undefined);
  });

  it("an extent in 4326 with outSR 3857 clips the target grid in metres", () => {
    const c = parseContext(
      JSON.stringify({
        outSR: { wkid: 3857 },
        cellSize: 100000,
        extent: { xmin: -10, ymin: -10, xmax: 10, ymax: 10, spatialReference: { wkid: 4326 } },
      }),
      sst.grid,
    );
    const x10 = (10 * HALF) / 180;
    const y10 = R * Math.log(Math.tan(Math.PI / 4 + (10 * Math.PI) / 360));
    assert.deepEqual([c.warp!.width, c.warp!.height], [Math.ceil((2 * x10) / 100000), Math.ceil((2 * y10) / 100000)]);
    assert.ok(Math.abs(c.warp!.transform[0] + x10) < 1e-6 && Math.abs(c.warp!.transform[3] - y10) < 1e-6);
  });

  it("proj4 strings and WKT are accepted; one with no WKT form is kept as proj4 with a warning", () => {
    const laea = parseContext(JSON.stringify({ outSR: "+proj=laea +lat_0=0 +lon_0=0 +datum=WGS84 +units=m" }), sst.grid);
    assert.match(laea.warp!.crs.wkt!, /Lambert_Azimuthal_Equal_Area/);
    assert.deepEqual(laea.warnings, []);
    const wkt = parseContext(JSON.stringify({ outSR: { wkt: laea.warp!.crs.wkt }, cellSize: 500000 }), sst.grid);
    assert.equal(wkt.warp!.crs.wkt, laea.warp!.crs.wkt);
    const odd = parseContext(JSON.stringify({ outSR: "+proj=eqearth +datum=WGS84", cellSize: 500000 }), sst.grid);
    assert.equal(odd.warp!.crs.wkt, "+proj=eqearth +datum=WGS84");
    assert.ok(
      odd.warnings.some((w) => /proj4 string/.test(w)),
      odd.warnings.join("; "),
    );
  });

  it("resamplingMethod alone is a warning; parallelProcessingFactor and processorType are still parsed", () => {
    const c = parseContext('{"resamplingMethod":"CUBIC","parallelProcessingFactor":"50%","processorType":"GPU"}', sst.grid);
    assert.equal(c.warp, undefined);
    assert.deepEqual(c.parallelism, { percent: 50 });
    assert.ok(c.warnings.some((w) => /resamplingMethod applies only/.test(w)));
    assert.ok(c.warnings.some((w) => /GPU/.test(w)));
  });

  it("compression: ZSTD or NONE in any case, kept in the job's plan (with an extent too); absent, the default", () => {
    assert.equal(parseContext('{"compression":"none"}', sst.grid).plan.compression, "NONE");
    assert.equal(parseContext('{"compression":"ZSTD"}', sst.grid).plan.compression, "ZSTD");
    const clipped = parseContext('{"compression":"None","extent":{"xmin":0,"ymin":-40,"xmax":100,"ymax":40}}', sst.grid);
    assert.equal(clipped.plan.compression, "NONE");
    assert.equal(parseContext("{}", sst.grid).plan.compression, undefined);
    assert.deepEqual(parseContext('{"compression":"NONE"}', sst.grid).warnings, []);
  });

  it("bad values are 400s naming context", () => {
    const bad: [string, RegExp][] = [
      ['{"outSR":{"wkid":99999}}', /wkid 99999/],
      ['{"outSR":"not a crs"}', /WKT Strata can read/],
      ['{"outSR":"+proj=nothing"}', /proj4 string/],
      ['{"cellSize":-5}', /cellSize must be a positive number/],
      ['{"cellSize":0}', /cellSize must be a positive number/],
      ['{"cellSize":"abc"}', /cellSize must be a positive number/],
      ['{"cellSize":{"foo":"x"}}', /cellSize must be a positive number/], // {"url"} is a raster: contextForms.test.ts
      ['{"resamplingMethod":"MAJORITY"}', /resamplingMethod must be one of NEAREST, BILINEAR, CUBIC/],
      ['{"compression":"LZ77"}', /compression must be one of ZSTD, NONE; got "LZ77"/],
      ['{"outSR":3857,"cellSize":1}', /more than/],
      ['{"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":99999}}}', /wkid 99999/],
      ['{"outSR":3857,"extent":{"xmin":3e7,"ymin":0,"xmax":3.1e7,"ymax":1e5}}', /does not overlap/],
    ];
    for (const [text, pattern] of bad) rejectsContext(() => parseContext(text, sst.grid), pattern);
  });
});

describe("applyContext", () => {
  it("without a warp: the same cube and window", () => {
    // 20..60 is a run of the 19..379 grid's columns as they are numbered: no seam.
    const plan = parseContext('{"extent":{"xmin":20,"ymin":0,"xmax":60,"ymax":40}}', sst.grid).plan;
    const applied = applyContext(sst, plan);
    assert.equal(applied.cube, sst);
    assert.deepEqual(applied.window, plan.window);
  });

  it("with a warp: a cube on the target grid, read whole", () => {
    const plan = parseContext(WARP, sst.grid).plan;
    const applied = applyContext(sst, plan);
    assert.deepEqual([applied.cube.grid.width, applied.cube.grid.height, applied.cube.grid.crs.epsg], [201, 201, 3857]);
    assert.deepEqual(applied.window, { x: 0, y: 0, width: 201, height: 201 });
    assert.deepEqual(
      applied.cube.variables.map((v) => [v.name, v.pixelType, v.dimensions.length]),
      [["SST", "F32", 1]],
    );
  });
});

async function runTask<O>(task: TaskDefinition<O>, params: Record<string, string>, name: string): Promise<Cube> {
  const { options } = await task.parse({ outputName: `{"serviceProperties":{"name":"${name}"}}`, ...params }, env);
  const dataDir = join(dir, name);
  const { datasetId } = await task.run(options, fakeRunContext(dataDir).ctx);
  return openCube(await (await openRasterStore(dataDir, { sweep: false })).resolve(datasetId));
}

describe("Subset end to end into Web Mercator (bilinear)", () => {
  let out: Cube;
  let source: Float32Array;
  const nodata = () => sst.variables[0].nodata;
  before(async () => {
    out = await runTask(subsetTask, { inputMultidimensionalRaster: JSON.stringify({ uri: SST }), context: WARP }, "sst_3857");
    source = (await sst.variables[0].read()).data as Float32Array;
  });
  after(() => out.close());

  /** The source cell (row, col) of plane p, or NaN when it is nodata; columns wrap around the globe. */
  const at = (p: number, r: number, c: number) => {
    const v = source[p * 45 * 90 + r * 90 + (((c % 90) + 90) % 90)];
    return v === nodata() || Number.isNaN(v) ? NaN : v;
  };
  /** Where the centre of output cell (row, col) falls in the source, by the spherical Mercator inverse. */
  const sourcePoint = (row: number, col: number) => {
    const x = -HALF + (col + 0.5) * 200000;
    const y = HALF - (row + 0.5) * 200000;
    const lon = (x / R) * (180 / Math.PI);
    const lat = (2 * Math.atan(Math.exp(y / R)) - Math.PI / 2) * (180 / Math.PI);
    // grid: columns centred at 21, 25, ... (west edge 19), rows centred at 87, 83, ... (north edge 89)
    return { px: ((((lon - 19) % 360) + 360) % 360) / 4 - 0.5, py: (89 - lat) / 4 - 0.5 };
  };
  const bilinear = (p: number, row: number, col: number) => {
    const { px, py } = sourcePoint(row, col);
    const c0 = Math.floor(px);
    const r0 = Math.floor(py);
    const [fx, fy] = [px - c0, py - r0];
    const [a, b, c, d] = [at(p, r0, c0), at(p, r0, c0 + 1), at(p, r0 + 1, c0), at(p, r0 + 1, c0 + 1)];
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
  };

  it("the output grid is Web Mercator, 201 x 201 cells of 200 km from the world's corner", () => {
    assert.equal(out.grid.crs.epsg, 3857);
    assert.deepEqual([out.grid.width, out.grid.height], [201, 201]);
    const t = out.grid.transform;
    // (the reader derives the transform from the stored cell-centre coordinates: equal to ~1e-9)
    const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.abs(b);
    assert.ok(near(t[0], -HALF) && near(t[3], HALF) && near(t[1], 200000) && near(t[5], -200000), JSON.stringify(t));
    const v = out.variables[0];
    assert.deepEqual([v.name, v.pixelType, v.dimensions[0].values.length], ["SST", "F32", 12]);
  });

  it("values at chosen cells equal the bilinear interpolation of the source worked by hand", async () => {
    const slab = (await out.variables[0].read()).data;
    // Ocean cells away from nodata: mid-Pacific, South Atlantic, Indian Ocean, and across the
    // grid's seam at lon 19 (columns 110 and 111 sit either side of it) south of Africa and in the Baltic.
    const cells = [
      [100, 30],
      [120, 85],
      [115, 140],
      [124, 110],
      [90, 10],
      [60, 111],
    ];
    let checked = 0;
    for (const [row, col] of cells) {
      for (const p of [0, 6]) {
        const expected = bilinear(p, row, col);
        assert.ok(!Number.isNaN(expected), `cell ${row},${col}: a neighbour is nodata; choose another cell`);
        const got = slab[p * 201 * 201 + row * 201 + col];
        assert.ok(
          Math.abs(got - Math.fround(expected)) <= 1e-5 * Math.max(1, Math.abs(expected)),
          `cell ${row},${col} slice ${p}: ${got} vs ${expected}`,
        );
        checked++;
      }
    }
    const seam = sourcePoint(124, 110).px;
    assert.ok(seam < 0 || seam > 89, `column 110 straddles the seam (px ${seam})`);
    assert.equal(checked, 12);
  });

  it("every cell: bilinear where all four neighbours are valid, NEAREST's value otherwise", async () => {
    const slab = (await out.variables[0].read({ dims: [[3, 4]] })).data;
    let interpolated = 0;
    for (let row = 0; row < 201; row++) {
      for (let col = 0; col < 201; col++) {
        const got = slab[row * 201 + col];
        let expected = bilinear(3, row, col);
        if (Number.isNaN(expected)) {
          const { px, py } = sourcePoint(row, col);
          expected = py < -0.5 || py >= 44.5 ? NaN : at(3, Math.floor(py + 0.5), Math.floor(px + 0.5));
        } else interpolated++;
        if (Number.isNaN(expected)) assert.ok(Number.isNaN(got), `cell ${row},${col}: ${got} vs nodata`);
        else assert.ok(Math.abs(got - expected) <= 1e-4, `cell ${row},${col}: ${got} vs ${expected}`);
      }
    }
    assert.ok(interpolated > 10000, `${interpolated} interpolated cells`);
  });
});

describe("the other tasks write on the target grid", () => {
  const COARSE = JSON.stringify({ outSR: { wkid: 102100 }, cellSize: 1000000, resamplingMethod: "cubic" });
  const input = JSON.stringify({ uri: SST });

  it("GenerateMultidimensionalAnomaly", async () => {
    const out = await runTask(anomalyTask, { inputMultidimensionalRaster: input, context: COARSE }, "anomaly_3857");
    try {
      assert.deepEqual([out.grid.crs.epsg, out.grid.width, out.grid.height], [3857, 41, 41]);
      assert.equal(out.variables[0].dimensions[0].values.length, 12);
    } finally {
      await out.close();
    }
  });

  it("GenerateTrendRaster, then PredictUsingTrendRaster resampling the trend raster", async () => {
    const trend = await runTask(trendTask, { inputMultidimensionalRaster: input, dimension: "StdTime", context: COARSE }, "trend_3857");
    let trendPath: string;
    try {
      assert.deepEqual([trend.grid.crs.epsg, trend.grid.width, trend.grid.height], [3857, 41, 41]);
      trendPath = (await (await openRasterStore(join(dir, "trend_3857"), { sweep: false })).list()).map((id) =>
        join(dir, "trend_3857", "rasters", id),
      )[0];
    } finally {
      await trend.close();
    }
    const predicted = await runTask(
      predictTask,
      {
        inputMultidimensionalRaster: JSON.stringify({ uri: trendPath }),
        dimensionValues: '["2000-01-01"]',
        context: '{"cellSize":2000000,"resamplingMethod":"BILINEAR"}',
      },
      "predict_3857",
    );
    try {
      assert.deepEqual([predicted.grid.crs.epsg, predicted.grid.width, predicted.grid.height], [3857, 21, 21]);
      assert.equal(predicted.grid.transform[1], 2000000);
    } finally {
      await predicted.close();
    }
  });
});
