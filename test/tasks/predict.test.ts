/**
 * PredictUsingTrendRaster as a task: the parser (BY_VALUE lists in their forms, BY_INTERVAL
 * calendar stepping anchored at start, numeric stepping along a non-time dimension, every bad
 * input a 400 naming its parameter, non-trend and Mann-Kendall inputs refused), writePredict's
 * layout and values against the trend raster's own coefficients, and cancellation.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { after, before, describe, it } from "node:test";

import { InvalidInputError } from "../../src/cube/errors.js";
import { formatIso } from "../../src/cube/time.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube, openLocation } from "../../src/io/open.js";
import { predictTask, writePredict } from "../../src/tasks/predict.js";
import { TASKS } from "../../src/tasks/registry.js";
import { trendTask, writeTrend } from "../../src/tasks/trend.js";
import type { ParseEnv } from "../../src/tasks/types.js";
import { REAL } from "../helpers/subsetCases.js";
import { assertCancelThenCommit, assertStopsAfterFirstTile } from "../helpers/runContext.js";

const OUT = '{"serviceProperties":{"name":"predict_out"}}';
const env: ParseEnv = {
  resolveInput: async (descriptor) => {
    const uri = (descriptor as { uri: string }).uri;
    return { location: { path: isAbsolute(uri) ? uri : REAL + uri }, warnings: [] };
  },
  resolveOutput: async () => ({ kind: "create", serviceName: "predict_out", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};

let dir = "";
/** Trend rasters written once: navy LINEAR (whole grid), navy MANN-KENDALL and ocean along StdZ (small extents). */
const trends = { navy: "", mk: "", oceanZ: "" };

async function makeTrend(name: string, file: string, params: Record<string, string>): Promise<string> {
  const { options } = await trendTask.parse(
    { inputMultidimensionalRaster: JSON.stringify({ uri: file }), outputName: OUT, ...params },
    env,
  );
  const path = join(dir, `${name}.zarr`);
  const cube = await openCube(REAL + file);
  try {
    await writeTrend(cube, options, path);
  } finally {
    await cube.close();
  }
  return path;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-predict-"));
  trends.navy = await makeTrend("navy", "monthly_navy_winds.cdf", { dimension: "StdTime", r2: "true" });
  const small = '{"extent":{"xmin":100,"ymin":-10,"xmax":130,"ymax":10}}';
  trends.mk = await makeTrend("mk", "monthly_navy_winds.cdf", { dimension: "StdTime", trendLineType: "MANN-KENDALL", context: small });
  trends.oceanZ = await makeTrend("oceanZ", "ocean_atlas_subset.nc", {
    dimension: "StdZ",
    context: '{"extent":{"xmin":0,"ymin":-40,"xmax":60,"ymax":40}}',
  });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const parse = (params: Record<string, string>, trend = trends.navy) =>
  predictTask.parse({ inputMultidimensionalRaster: JSON.stringify({ uri: trend }), outputName: OUT, ...params }, env);
const iso = (values: readonly number[]) => values.map((v) => formatIso(v));

async function rejects400(params: Record<string, string>, parameter: string, pattern: RegExp, trend?: string): Promise<void> {
  await assert.rejects(parse(params, trend), (e: unknown) => {
    assert.ok(e instanceof InvalidInputError, `an InvalidInputError, got ${String(e)}`);
    assert.equal(e.parameter, parameter, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

describe("PredictUsingTrendRaster parameters", () => {
  it("is registered", () => assert.equal(TASKS.get("PredictUsingTrendRaster"), predictTask));

  it("BY_VALUE (the default): a JSON list of ISO times, every variable", async () => {
    const { options } = await parse({ dimensionValues: '["2050-01-01","2050-07-01T12:00:00"]' });
    assert.deepEqual(options.variables, ["UWND", "VWND"]);
    assert.deepEqual(iso(options.values), ["2050-01-01T00:00:00Z", "2050-07-01T12:00:00Z"]);
    assert.deepEqual(options.window, { x: 0, y: 0, width: 144, height: 73 });
  });

  it("BY_VALUE: a comma string mixing ISO and epoch ms, sorted and deduplicated; Subset's object form", async () => {
    const ms = Date.UTC(2030, 0, 1);
    const a = await parse({ dimensionDefinition: "by_value", variables: "vwnd", dimensionValues: `2031-01-01, ${ms}, 2030-01-01` });
    assert.deepEqual(a.options.variables, ["VWND"]);
    assert.deepEqual(a.options.values, [ms, Date.UTC(2031, 0, 1)]);
    const b = await parse({ dimensionValues: `[{"dimension":"StdTime","values":["2040-01-01",${ms}]}]`, start: "2000-01-01" });
    assert.deepEqual(b.options.values, [ms, Date.UTC(2040, 0, 1)]);
    assert.deepEqual(b.warnings, ["start does not apply to BY_VALUE; it was ignored"]);
  });

  it("BY_VALUE: values separated by semicolons, as ArcGIS writes them (issue 12 §6)", async () => {
    const a = await parse({ dimensionValues: "2060-01-01T00:00:00;2050-01-01T00:00:00; 2050-07-01T12:00:00;" });
    assert.deepEqual(iso(a.options.values), ["2050-01-01T00:00:00Z", "2050-07-01T12:00:00Z", "2060-01-01T00:00:00Z"]);
    const b = await parse({ dimensionValues: "-100;0" }, trends.oceanZ);
    assert.deepEqual(b.options.values, [-100, 0]);
    await rejects400({ dimensionValues: "2050-01-01;soon" }, "dimensionValues", /"soon" is not a time/);
  });

  it("BY_INTERVAL months: calendar steps anchored at start (Jan 31, Feb 29, Mar 31 ...)", async () => {
    const { options } = await parse({ dimensionDefinition: "BY_INTERVAL", start: "2000-01-31", end: "2000-05-31", intervalUnit: "MONTHS" });
    assert.deepEqual(iso(options.values), [
      "2000-01-31T00:00:00Z",
      "2000-02-29T00:00:00Z",
      "2000-03-31T00:00:00Z",
      "2000-04-30T00:00:00Z",
      "2000-05-31T00:00:00Z",
    ]);
  });

  it("BY_INTERVAL years from Feb 29, 6 hours, 2 weeks", async () => {
    const y = await parse({ dimensionDefinition: "BY_INTERVAL", start: "2020-02-29", end: "2024-03-01", intervalUnit: "YEARS" });
    assert.deepEqual(
      iso(y.options.values).map((t) => t.slice(0, 10)),
      ["2020-02-29", "2021-02-28", "2022-02-28", "2023-02-28", "2024-02-29"],
    );
    const h = await parse({
      dimensionDefinition: "BY_INTERVAL",
      start: "2022-01-01",
      end: "2022-01-01T18:00:00",
      intervalValue: "6",
      intervalUnit: "hours",
    });
    assert.equal(h.options.values.length, 4);
    const w = await parse({
      dimensionDefinition: "BY_INTERVAL",
      start: "2022-01-01",
      end: "2022-01-29",
      intervalValue: "2",
      intervalUnit: "WEEKS",
    });
    assert.deepEqual(
      iso(w.options.values).map((t) => t.slice(0, 10)),
      ["2022-01-01", "2022-01-15", "2022-01-29"],
    );
  });

  it("along a non-time dimension: numbers, steps in the dimension's own values; a unit is warned about", async () => {
    const a = await parse({ dimensionValues: "-10, -50" }, trends.oceanZ);
    assert.deepEqual(a.options.values, [-50, -10]);
    const b = await parse(
      { dimensionDefinition: "BY_INTERVAL", start: "-100", end: "0", intervalValue: "50", intervalUnit: "DAYS" },
      trends.oceanZ,
    );
    assert.deepEqual(b.options.values, [-100, -50, 0]);
    assert.ok(b.warnings.some((x) => /intervalUnit applies to StdTime only/.test(x)));
    const c = await parse({ dimensionDefinition: "BY_INTERVAL", start: "0", end: "1", intervalValue: "0.1" }, trends.oceanZ);
    assert.equal(c.options.values.length, 11);
    assert.equal(c.options.values.at(-1), 1);
  });

  const bad: [string, Record<string, string>, string, RegExp, (keyof typeof trends | "raw")?][] = [
    [
      "an input that is not a trend raster",
      { dimensionValues: "2050-01-01" },
      "inputMultidimensionalRaster",
      /trend raster made by GenerateTrendRaster.*no strata:trend/,
      "raw",
    ],
    [
      "a Mann-Kendall trend raster",
      { dimensionValues: "2050-01-01" },
      "inputMultidimensionalRaster",
      /MANN-KENDALL trend raster.*cannot predict/,
      "mk",
    ],
    ["an unknown variable", { variables: "SST", dimensionValues: "2050-01-01" }, "variables", /"SST" is not in the input/],
    ["an unknown definition", { dimensionDefinition: "BY_RANGES" }, "dimensionDefinition", /BY_VALUE, BY_INTERVAL/],
    ["BY_VALUE without values", {}, "dimensionValues", /required/],
    ["BY_VALUE with an empty list", { dimensionValues: "[]" }, "dimensionValues", /no value/],
    ["BY_VALUE with a non-time", { dimensionValues: '["2050-13-01"]' }, "dimensionValues", /not a time/],
    ["BY_VALUE with bad JSON", { dimensionValues: '["2050-01-01"' }, "dimensionValues", /not valid JSON/],
    ["BY_VALUE with a non-number along StdZ", { dimensionValues: "deep" }, "dimensionValues", /not a number/, "oceanZ"],
    ["BY_INTERVAL without start", { dimensionDefinition: "BY_INTERVAL", end: "2050-01-01", intervalUnit: "DAYS" }, "start", /required/],
    ["BY_INTERVAL without end", { dimensionDefinition: "BY_INTERVAL", start: "2050-01-01", intervalUnit: "DAYS" }, "end", /required/],
    [
      "BY_INTERVAL end before start",
      { dimensionDefinition: "BY_INTERVAL", start: "2050-01-01", end: "2049-01-01", intervalUnit: "DAYS" },
      "end",
      /before start/,
    ],
    [
      "BY_INTERVAL a zero step",
      { dimensionDefinition: "BY_INTERVAL", start: "2050-01-01", end: "2051-01-01", intervalValue: "0", intervalUnit: "DAYS" },
      "intervalValue",
      /positive/,
    ],
    [
      "BY_INTERVAL a step that is not a number",
      { dimensionDefinition: "BY_INTERVAL", start: "2050-01-01", end: "2051-01-01", intervalValue: "x", intervalUnit: "DAYS" },
      "intervalValue",
      /number/,
    ],
    [
      "BY_INTERVAL along StdTime without a unit",
      { dimensionDefinition: "BY_INTERVAL", start: "2050-01-01", end: "2051-01-01" },
      "intervalUnit",
      /required/,
    ],
    [
      "BY_INTERVAL an unknown unit",
      { dimensionDefinition: "BY_INTERVAL", start: "2050-01-01", end: "2051-01-01", intervalUnit: "DECADES" },
      "intervalUnit",
      /HOURS, DAYS, WEEKS, MONTHS, YEARS/,
    ],
    [
      "BY_INTERVAL 1.5 months",
      { dimensionDefinition: "BY_INTERVAL", start: "2050-01-01", end: "2051-01-01", intervalValue: "1.5", intervalUnit: "MONTHS" },
      "intervalValue",
      /whole number of months/,
    ],
    [
      "BY_INTERVAL too many values",
      { dimensionDefinition: "BY_INTERVAL", start: "2000-01-01", end: "2100-01-01", intervalUnit: "HOURS" },
      "intervalValue",
      /more than 100000/,
    ],
    ["a bad context", { dimensionValues: "2050-01-01", context: '{"extent":{"xmin":"a"}}' }, "context", /xmin must be a number/],
  ];
  for (const [what, params, parameter, pattern, which] of bad) {
    it(`400: ${what}`, () =>
      rejects400(params, parameter, pattern, which === "raw" ? "monthly_navy_winds.cdf" : which ? trends[which] : undefined));
  }
});

describe("writePredict", () => {
  it("navy: one float32 slice per value along StdTime, slope·x + intercept of the trend raster", async () => {
    const { options } = await parse({ dimensionValues: '["1990-01-01","2050-01-01"]' });
    const path = join(dir, "navy_predict.zarr");
    const trend = await openCube(trends.navy);
    let coef: Float64Array | undefined;
    try {
      await writePredict(trend, options, path);
      coef = (await trend.variables[0].read({ dims: [[0, 2]], window: { x: 5, y: 7, width: 1, height: 1 } })).data as Float64Array;
    } finally {
      await trend.close();
    }
    const out: Cube = await openCube(path);
    try {
      assert.deepEqual(
        out.variables.map((v) => v.name),
        ["UWND", "VWND"],
      );
      const v = out.variables[0];
      assert.equal(v.pixelType, "F32");
      assert.equal(v.unit, "M/S");
      assert.deepEqual(
        v.dimensions.map((d) => d.name),
        ["StdTime"],
      );
      assert.deepEqual(v.dimensions[0].values, options.values);
      const slab = await v.read({ window: { x: 5, y: 7, width: 1, height: 1 } });
      options.values.forEach((t, k) => {
        const want = Math.fround(coef![0] * (t / 86_400_000) + coef![1]);
        assert.equal(slab.data[k], want, formatIso(t));
      });
      const stats = out.attributes["strata:statistics"] as Record<string, { count: number }>;
      assert.equal(stats.UWND.count, 2 * 73 * 144);
    } finally {
      await out.close();
    }
  });

  it("a trend along StdZ: the depth dimension goes back in its place; nodata coefficients give nodata", async () => {
    const { options } = await parse({ dimensionValues: "-100, 0" }, trends.oceanZ);
    const path = join(dir, "ocean_predict.zarr");
    const trend = await openCube(trends.oceanZ);
    let coef: Float64Array | undefined;
    try {
      await writePredict(trend, options, path);
      coef = (
        await trend.variables[0].read({
          dims: [
            [0, 12],
            [0, 2],
          ],
        })
      ).data as Float64Array;
    } finally {
      await trend.close();
    }
    const out = await openCube(path);
    try {
      const v = out.variables[0];
      assert.deepEqual(
        v.dimensions.map((d) => d.name),
        ["StdTime", "StdZ"],
      );
      assert.deepEqual(v.dimensions[1].values, [-100, 0]);
      assert.equal(v.dimensions[0].values.length, 12);
      const slab = await v.read();
      const plane = out.grid.width * out.grid.height;
      const c = coef!;
      let nodata = 0;
      for (let t = 0; t < 12; t++) {
        for (let p = 0; p < plane; p += 7) {
          const slope = c[(t * 2 + 0) * plane + p];
          const intercept = c[(t * 2 + 1) * plane + p];
          for (const [k, z] of [-100, 0].entries()) {
            const got = slab.data[(t * 2 + k) * plane + p];
            if (Number.isNaN(slope)) {
              assert.ok(Number.isNaN(got));
              nodata++;
            } else assert.equal(got, Math.fround(slope * z + intercept));
          }
        }
      }
      assert.ok(nodata > 0, "some land");
    } finally {
      await out.close();
    }
  });
});

describe("cancellation", () => {
  it("writePredict stops promptly after the first tile when the signal is aborted", async () => {
    const { options } = await parse({ dimensionDefinition: "BY_INTERVAL", start: "2000-01-01", end: "2009-12-01", intervalUnit: "MONTHS" });
    const trend = await openCube(trends.navy);
    try {
      await assertStopsAfterFirstTile((o) => writePredict(trend, { ...options, tile: 16 }, join(dir, "cancelled.zarr"), o));
    } finally {
      await trend.close();
    }
  });

  it("run: a cancelled job leaves nothing in the raster store; a finished one commits its dataset", async () => {
    const dataDir = join(dir, "data");
    const { options } = await parse({ dimensionDefinition: "BY_INTERVAL", start: "2000-01-01", end: "2000-12-01", intervalUnit: "MONTHS" });
    const path = await assertCancelThenCommit(predictTask, { ...options, tile: 16 }, options, dataDir);
    const out = await openCube(path);
    try {
      assert.deepEqual(out.variables[0].dimensions[0].values.length, 12);
    } finally {
      await out.close();
    }
  });
});
