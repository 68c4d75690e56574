/**
 * GenerateMultidimensionalAnomaly as a task: the parser (every bad input a 400 naming its
 * parameter), writeAnomaly end to end on real files (values checked against a per-pixel
 * oracle written here, layout, metadata, statistics), external references, and
 * cancellation (writeAnomaly stops after the first tile; run leaves nothing in the store).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { after, before, describe, it } from "node:test";

import type { Statistics } from "../../src/analysis/statistics.js";
import { InvalidInputError } from "../../src/cube/errors.js";
import type { Cube, Variable } from "../../src/cube/types.js";
import { openCube, openLocation } from "../../src/io/open.js";
import { type AnomalyOptions, anomalyTask, writeAnomaly } from "../../src/tasks/anomaly.js";
import { TASKS } from "../../src/tasks/registry.js";
import { writeSubset } from "../../src/tasks/subset.js";
import type { ParseEnv } from "../../src/tasks/types.js";
import { writeBigCube } from "../helpers/bigCube.js";
import { REAL } from "../helpers/subsetCases.js";
import { assertCancelThenCommit, assertStopsAfterFirstTile } from "../helpers/runContext.js";

const SMALL = new URL("../fixtures/small/", import.meta.url).pathname;
const NAVY = "monthly_navy_winds.cdf";
const OCEAN = "ocean_atlas_subset.nc";
const COADS = "coads_climatology.cdf";
const OUT = '{"serviceProperties":{"name":"anomaly_out"}}';

/** `{"uri": name}`: an absolute path as is, else a file of test/fixtures/real. */
const env: ParseEnv = {
  resolveInput: async (descriptor) => {
    const uri = (descriptor as { uri?: string }).uri;
    if (typeof uri !== "string") throw new InvalidInputError("no uri", { parameter: "x" });
    return { location: { path: isAbsolute(uri) ? uri : REAL + uri }, warnings: [] };
  },
  resolveOutput: async () => ({ kind: "create", serviceName: "anomaly_out", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};

const parse = (params: Record<string, string>, file = NAVY) =>
  anomalyTask.parse({ inputMultidimensionalRaster: JSON.stringify({ uri: file }), outputName: OUT, ...params }, env);

async function rejects400(params: Record<string, string>, parameter: string, pattern: RegExp, file = NAVY): Promise<void> {
  await assert.rejects(parse(params, file), (e: unknown) => {
    assert.ok(e instanceof InvalidInputError, `an InvalidInputError, got ${String(e)}`);
    assert.equal(e.parameter, parameter);
    assert.match(e.message, pattern);
    return true;
  });
}

/** Per-pixel oracle straight from docs/tasks.md (months of the UTC calendar as groups). */
function oracle(series: number[], keys: number[], method: string, ignore: boolean): number[] {
  const out = series.map(() => NaN);
  for (const g of new Set(keys)) {
    const idx = keys.flatMap((k, i) => (k === g ? [i] : []));
    const vals = idx.map((i) => series[i]).filter((x) => !Number.isNaN(x));
    if (vals.length === 0 || (!ignore && vals.length < idx.length)) continue;
    const mu = vals.reduce((a, b) => a + b, 0) / vals.length;
    const s = Math.sqrt(vals.reduce((a, b) => a + (b - mu) ** 2, 0) / vals.length);
    const sorted = [...vals].sort((a, b) => a - b);
    const n = sorted.length;
    const m = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    const R = method.endsWith("MEDIAN") ? m : mu;
    for (const i of idx) {
      const x = series[i];
      if (Number.isNaN(x)) continue;
      if (method.startsWith("DIFFERENCE")) out[i] = x - R;
      else if (method.startsWith("PERCENT_DIFFERENCE")) out[i] = x + R === 0 ? NaN : Math.abs(x - R) / ((x + R) / 2);
      else if (method.startsWith("PERCENT_OF")) out[i] = R === 0 ? NaN : x / R;
      else out[i] = s === 0 ? NaN : (x - mu) / s;
    }
  }
  return out;
}

/** One pixel's series through time (nodata as NaN), at fixed indices of the other dimensions. */
async function series(v: Variable, row: number, col: number, at: Record<string, number> = {}): Promise<number[]> {
  const dims = v.dimensions.map((d) => (d.name === "StdTime" ? ([0, d.values.length] as const) : ([at[d.name], at[d.name] + 1] as const)));
  const slab = await v.read({ dims, window: { x: col, y: row, width: 1, height: 1 } });
  return Array.from(slab.data, (x) => (x === v.nodata ? NaN : x));
}

function assertClose(got: number[], want: number[], where: string): void {
  assert.equal(got.length, want.length, `${where} length`);
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(want[i])) assert.ok(Number.isNaN(got[i]), `${where}[${i}]: expected nodata, got ${got[i]}`);
    else assert.ok(Math.abs(got[i] - want[i]) <= 1e-5 * Math.max(1, Math.abs(want[i])), `${where}[${i}]: ${got[i]} vs ${want[i]}`);
  }
}

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-anomaly-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("GenerateMultidimensionalAnomaly parse", () => {
  it("is registered and describes its choices", () => {
    assert.equal(TASKS.get("GenerateMultidimensionalAnomaly"), anomalyTask);
    const p = (name: string) => anomalyTask.info.parameters.find((x) => x.name === name)!;
    assert.equal(p("method").choiceList!.length, 7);
    assert.equal(p("method").defaultValue, "DIFFERENCE_FROM_MEAN");
    assert.deepEqual(p("calculationInterval").choiceList, [
      "ALL",
      "YEARLY",
      "RECURRING_MONTHLY",
      "RECURRING_WEEKLY",
      "RECURRING_DAILY",
      "HOURLY",
      "EXTERNAL_RASTER",
    ]);
    // Spelled so that the ArcGIS API for Python's keyword is ignore_nodata (SPEC).
    assert.equal(p("ignoreNodata").defaultValue, true);
  });

  it("defaults: every variable with StdTime, DIFFERENCE_FROM_MEAN, ALL, ignoreNoData, the whole grid", async () => {
    const { options, output, warnings } = await parse({ foo: "1" });
    assert.deepEqual(options.variables, ["UWND", "VWND"]);
    assert.equal(options.method, "DIFFERENCE_FROM_MEAN");
    assert.equal(options.calculationInterval, "ALL");
    assert.equal(options.ignoreNoData, true);
    assert.deepEqual(options.window, { x: 0, y: 0, width: 144, height: 73 });
    assert.equal(options.reference, undefined);
    assert.equal(output.kind, "create");
    assert.deepEqual(warnings, ["foo is not a parameter of GenerateMultidimensionalAnomaly; it was ignored"]);
    // The options travel to the worker as JSON.
    assert.deepEqual(JSON.parse(JSON.stringify(options)), options);
  });

  it("keywords in any case, answered canonical; variables as a list or comma string", async () => {
    const { options } = await parse({ method: "z_score", calculationInterval: "recurring_monthly", variables: "vwnd" });
    assert.equal(options.method, "Z_SCORE");
    assert.equal(options.calculationInterval, "RECURRING_MONTHLY");
    assert.deepEqual(options.variables, ["VWND"]);
    assert.deepEqual((await parse({ variables: '["VWND","UWND"]' })).options.variables, ["VWND", "UWND"]);
  });

  it("ignoreNoData: true/false in any case, DATA (= true) and NODATA (= false)", async () => {
    for (const [text, want] of [
      ["true", true],
      ["FALSE", false],
      ["DATA", true],
      ["nodata", false],
    ] as const) {
      assert.equal((await parse({ ignoreNoData: text })).options.ignoreNoData, want, text);
    }
    await rejects400({ ignoreNoData: "maybe" }, "ignoreNodata", /true, false, DATA or NODATA/);
  });

  it("unknown keywords, variables and missing parameters are 400s naming the parameter", async () => {
    await rejects400({ method: "DIFFERENCE" }, "method", /DIFFERENCE_FROM_MEAN, PERCENT_DIFFERENCE_FROM_MEAN/);
    await rejects400({ calculationInterval: "MONTHLY" }, "calculationInterval", /RECURRING_MONTHLY/);
    await rejects400({ variables: "SST" }, "variables", /"SST" is not in the input.*UWND, VWND/);
    await rejects400({ variables: "UWND,uwnd" }, "variables", /twice/);
    await rejects400({ variables: '{"a":1}' }, "variables", /list/);
    await rejects400({ context: '{"extent":{"xmin":0,"ymin":95,"xmax":10,"ymax":99}}' }, "context", /overlap/);
    await assert.rejects(
      anomalyTask.parse({ outputName: OUT }, env),
      (e: InvalidInputError) => e.parameter === "inputMultidimensionalRaster",
    );
    await assert.rejects(
      anomalyTask.parse({ inputMultidimensionalRaster: `{"uri":"${NAVY}"}` }, env),
      (e: InvalidInputError) => e.parameter === "outputName",
    );
    await assert.rejects(
      anomalyTask.parse({ inputMultidimensionalRaster: "{uri", outputName: OUT }, env),
      (e: InvalidInputError) => e.parameter === "inputMultidimensionalRaster" && /JSON/.test(e.message),
    );
  });

  it("variables without StdTime are named in a 400; absent variables skip them", async () => {
    const zarr = SMALL + "v2_xarray_style.zarr";
    await rejects400({ variables: "tas,mask" }, "variables", /no StdTime dimension: mask \(no dimensions\)/, zarr);
    assert.deepEqual((await parse({}, zarr)).options.variables, ["tas"]);
  });

  it("context.extent clips the window", async () => {
    const { options } = await parse({ context: '{"extent":{"xmin":0,"ymin":0,"xmax":50,"ymax":40,"spatialReference":{"wkid":4326}}}' });
    assert.ok(options.window.width < 144 && options.window.height < 73, JSON.stringify(options.window));
  });

  describe("referenceMeanRaster", () => {
    let first = "";
    let two = "";
    let sstOnly = "";
    before(async () => {
      // References written from the inputs: one slice, two slices, and a coads raster without AIRT.
      first = join(dir, "navy_first.zarr");
      two = join(dir, "navy_two.zarr");
      sstOnly = join(dir, "coads_sst.zarr");
      const navy = await openCube(REAL + NAVY);
      const coads = await openCube(REAL + COADS);
      try {
        const whole = { x: 0, y: 0, width: 144, height: 73 };
        const vars = (idx: number[]) => ["UWND", "VWND"].map((name) => ({ name, indices: [idx] }));
        await writeSubset(navy, { variables: vars([0]), window: whole, tile: 512 }, first);
        await writeSubset(navy, { variables: vars([0, 1]), window: whole, tile: 512 }, two);
        await writeSubset(
          coads,
          { variables: [{ name: "SST", indices: [[0]] }], window: { x: 0, y: 0, width: 180, height: 90 }, tile: 512 },
          sstOnly,
        );
      } finally {
        await navy.close();
        await coads.close();
      }
    });

    it("is required with EXTERNAL_RASTER and refused otherwise; Z_SCORE cannot use it", async () => {
      await rejects400({ calculationInterval: "EXTERNAL_RASTER" }, "referenceMeanRaster", /required/);
      await rejects400(
        { referenceMeanRaster: JSON.stringify({ uri: first }) },
        "referenceMeanRaster",
        /only with calculationInterval=EXTERNAL_RASTER/,
      );
      await rejects400(
        { calculationInterval: "EXTERNAL_RASTER", method: "Z_SCORE", referenceMeanRaster: JSON.stringify({ uri: first }) },
        "method",
        /Z_SCORE/,
      );
      await rejects400({ calculationInterval: "EXTERNAL_RASTER", referenceMeanRaster: "{" }, "referenceMeanRaster", /JSON/);
      // JSON null is no reference.
      assert.equal((await parse({ referenceMeanRaster: "null" })).options.reference, undefined);
    });

    it("one slice or the input's slices are accepted", async () => {
      const one = await parse({ calculationInterval: "EXTERNAL_RASTER", referenceMeanRaster: JSON.stringify({ uri: first }) });
      assert.deepEqual(one.options.reference, { path: first });
      const all = await parse({ calculationInterval: "EXTERNAL_RASTER", referenceMeanRaster: JSON.stringify({ uri: NAVY }) });
      assert.deepEqual(all.options.reference, { path: REAL + NAVY });
    });

    it("another grid, a missing variable or other times are 400s at submit", async () => {
      const external = (uri: string, more: Record<string, string> = {}) => ({
        calculationInterval: "EXTERNAL_RASTER",
        referenceMeanRaster: JSON.stringify({ uri }),
        ...more,
      });
      await rejects400(external(COADS), "referenceMeanRaster", /another grid/);
      await rejects400(external(sstOnly, { variables: "AIRT" }), "referenceMeanRaster", /no variable AIRT \(it has: SST\)/, COADS);
      await rejects400(external(two), "referenceMeanRaster", /StdTime has 2 values/);
      await rejects400(external(REAL + OCEAN), "referenceMeanRaster", /another grid/);
    });
  });
});

describe("writeAnomaly", () => {
  it("navy winds, RECURRING_MONTHLY DIFFERENCE_FROM_MEAN: layout, metadata, statistics and values", async () => {
    const { options } = await parse({ calculationInterval: "RECURRING_MONTHLY" });
    const path = join(dir, "navy_monthly.zarr");
    const input = await openCube(REAL + NAVY);
    let stats: Map<string, Statistics | undefined>;
    try {
      stats = await writeAnomaly(input, JSON.parse(JSON.stringify(options)) as AnomalyOptions, path);
    } finally {
      await input.close();
    }
    const out = await openCube(path);
    const src = await openCube(REAL + NAVY);
    try {
      assert.deepEqual(
        out.variables.map((v) => v.name),
        ["UWND", "VWND"],
      );
      for (const v of out.variables) {
        const s = src.variables.find((x) => x.name === v.name)!;
        assert.equal(v.pixelType, "F32");
        assert.ok(v.nodata === undefined || Number.isNaN(v.nodata), `nodata ${v.nodata}`);
        assert.deepEqual(v.dimensions[0].values, s.dimensions[0].values);
        // Runs of time steps of about 1 MiB by a tile (the whole grid here): 2^20 / (73 × 144 × 4 bytes) = 24.9.
        assert.deepEqual(v.chunkShape, [24, 73, 144]);
        assert.equal(v.unit, s.unit);
        assert.deepEqual(v.attributes["strata:anomaly"], {
          method: "DIFFERENCE_FROM_MEAN",
          calculationInterval: "RECURRING_MONTHLY",
          ignoreNoData: true,
        });
      }
      assert.deepEqual(out.grid.transform, src.grid.transform);
      const months = src.variables[0].dimensions[0].values.map((t) => new Date(t).getUTCMonth());
      for (const [row, col] of [
        [0, 0],
        [36, 71],
        [72, 143],
        [10, 100],
      ]) {
        for (const name of ["UWND", "VWND"]) {
          const want = oracle(
            await series(
              src.variables.find((x) => x.name === name)!,
              row,
              col,
            ),
            months,
            "DIFFERENCE_FROM_MEAN",
            true,
          );
          assertClose(
            await series(
              out.variables.find((x) => x.name === name)!,
              row,
              col,
            ),
            want,
            `${name} ${row},${col}`,
          );
        }
      }
      const saved = out.attributes["strata:statistics"] as Record<string, Statistics>;
      for (const name of ["UWND", "VWND"]) {
        assert.equal(saved[name].count, 132 * 73 * 144);
        assert.equal(saved[name].count, stats.get(name)!.count);
        // Monthly anomalies average to zero.
        assert.ok(Math.abs(saved[name].mean) < 1e-4, `${name} mean ${saved[name].mean}`);
      }
    } finally {
      await out.close();
      await src.close();
    }
  });

  it("ocean atlas (StdTime × StdZ, nodata), Z_SCORE, ALL and medians, small tiles and a window", async () => {
    const src = await openCube(REAL + OCEAN);
    try {
      for (const [method, ignore] of [
        ["Z_SCORE", "true"],
        ["PERCENT_DIFFERENCE_FROM_MEDIAN", "false"],
      ] as const) {
        const { options } = await parse(
          {
            method,
            ignoreNoData: ignore,
            context: '{"extent":{"xmin":-100,"ymin":-30,"xmax":-20,"ymax":40,"spatialReference":{"wkid":4326}}}',
          },
          OCEAN,
        );
        const path = join(dir, `ocean_${method}.zarr`);
        await writeAnomaly(src, { ...options, tile: 16 }, path);
        const out = await openCube(path);
        try {
          const v = out.variables[0];
          const s = src.variables[0];
          assert.deepEqual(
            v.dimensions.map((d) => d.name),
            ["StdTime", "StdZ"],
          );
          // One record per time step: the z-score streams and writes a slice per chunk; the
          // median walks 16-pixel tiles through time and writes them whole.
          const { height, width } = options.window;
          assert.deepEqual(v.chunkShape, method === "Z_SCORE" ? [1, 1, Math.min(512, height), Math.min(512, width)] : [12, 1, 16, 16]);
          assert.equal(out.grid.width, options.window.width);
          assert.equal(out.grid.height, options.window.height);
          const times = s.dimensions[0].values.map(() => 0);
          let valid = 0;
          for (const z of [0, 5, 18]) {
            for (let row = 0; row < options.window.height; row += 7) {
              for (let col = 0; col < options.window.width; col += 5) {
                const want = oracle(
                  await series(s, options.window.y + row, options.window.x + col, { StdZ: z }),
                  times,
                  method,
                  ignore === "true",
                );
                valid += want.filter((x) => !Number.isNaN(x)).length;
                assertClose(await series(v, row, col, { StdZ: z }), want, `${method} z${z} ${row},${col}`);
              }
            }
          }
          assert.ok(valid > 100, `${valid} valid values checked`);
        } finally {
          await out.close();
        }
      }
    } finally {
      await src.close();
    }
  });

  it("EXTERNAL_RASTER: one reference slice for all, or the input itself slice by slice", async () => {
    const firstPath = join(dir, "navy_first_ref.zarr");
    const src = await openCube(REAL + NAVY);
    try {
      await writeSubset(
        src,
        { variables: [{ name: "UWND", indices: [[0]] }], window: { x: 0, y: 0, width: 144, height: 73 }, tile: 512 },
        firstPath,
      );
      for (const [uri, method] of [
        [firstPath, "DIFFERENCE_FROM_MEAN"],
        [NAVY, "PERCENT_OF_MEDIAN"],
      ] as const) {
        const { options } = await parse({
          variables: "UWND",
          method,
          calculationInterval: "EXTERNAL_RASTER",
          referenceMeanRaster: JSON.stringify({ uri }),
        });
        const reference = await openLocation(options.reference!);
        const path = join(dir, `navy_external_${method}.zarr`);
        try {
          await writeAnomaly(src, options, path, { reference });
        } finally {
          await reference.close();
        }
        const out = await openCube(path);
        try {
          for (const [row, col] of [
            [3, 4],
            [40, 120],
          ]) {
            const x = await series(src.variables[0], row, col);
            const want = method === "DIFFERENCE_FROM_MEAN" ? x.map((v) => v - x[0]) : x.map((v) => (v === 0 ? NaN : 1));
            assertClose(await series(out.variables[0], row, col), want, `${method} ${row},${col}`);
          }
        } finally {
          await out.close();
        }
      }
    } finally {
      await src.close();
    }
  });
});

describe("cancellation", () => {
  let big = "";
  before(async () => {
    big = join(dir, "big.nc");
    // 40 daily slices of 64 × 96: with 16-pixel tiles, 24 tiles.
    await writeBigCube(big, { times: 40, height: 64, width: 96 });
  });

  it("writeAnomaly stops promptly after the first tile when the signal is aborted", async () => {
    const cube: Cube = await openCube(big);
    try {
      // One record per day: the median transposes first, and stops within its first run.
      const { options } = await parse({ method: "DIFFERENCE_FROM_MEDIAN", calculationInterval: "RECURRING_WEEKLY" }, big);
      await assertStopsAfterFirstTile((o) => writeAnomaly(cube, { ...options, tile: 16 }, join(dir, "cancelled.zarr"), o));
    } finally {
      await cube.close();
    }
  });

  it("run: a cancelled job leaves nothing in the raster store; a finished one commits its dataset", async () => {
    const dataDir = join(dir, "data");
    const { options } = await parse({ method: "Z_SCORE", calculationInterval: "YEARLY" }, big);
    const path = await assertCancelThenCommit(anomalyTask, { ...options, tile: 16 }, { ...options, tile: 16 }, dataDir);
    const out = await openCube(path);
    try {
      // One record per day: the z-score streams (cancelled within its first run) in 8 runs of
      // 5 days, and a grid this small (no overview levels) gets a run's 5 days a chunk.
      assert.deepEqual(out.variables[0].chunkShape, [5, 64, 96]);
    } finally {
      await out.close();
    }
  });
});
