/**
 * GenerateTrendRaster as a task: the parser (defaults, keywords, every bad input a 400 naming
 * its parameter), writeTrend's layout and values on real and synthetic files (a fit along a
 * non-time dimension, an extent, a multi-tile walk checked against the synthetic formula),
 * and cancellation (writeTrend stops after the first tile; run leaves nothing in the store).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { after, before, describe, it } from "node:test";

import { readTrendMetadata } from "../../src/analysis/trendModel.js";
import { InvalidInputError } from "../../src/cube/errors.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube, openLocation } from "../../src/io/open.js";
import { TASKS } from "../../src/tasks/registry.js";
import { type TrendOptions, trendTask, writeTrend } from "../../src/tasks/trend.js";
import type { ParseEnv } from "../../src/tasks/types.js";
import { bigCubeValue, writeBigCube } from "../helpers/bigCube.js";
import { REAL } from "../helpers/subsetCases.js";
import { assertCancelThenCommit, assertStopsAfterFirstTile } from "../helpers/runContext.js";

const NAVY = "monthly_navy_winds.cdf";
const OCEAN = "ocean_atlas_subset.nc";
const OUT = '{"serviceProperties":{"name":"trend_out"}}';

const env: ParseEnv = {
  resolveInput: async (descriptor) => {
    const uri = (descriptor as { uri: string }).uri;
    return { location: { path: isAbsolute(uri) ? uri : REAL + uri }, warnings: [] };
  },
  resolveOutput: async () => ({ kind: "create", serviceName: "trend_out", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};

const parse = (params: Record<string, string>, file = NAVY) =>
  trendTask.parse({ inputMultidimensionalRaster: JSON.stringify({ uri: file }), outputName: OUT, ...params }, env);

async function rejects400(params: Record<string, string>, parameter: string, pattern: RegExp, file = NAVY): Promise<void> {
  await assert.rejects(parse(params, file), (e: unknown) => {
    assert.ok(e instanceof InvalidInputError, `an InvalidInputError, got ${String(e)}`);
    assert.equal(e.parameter, parameter, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-trend-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("GenerateTrendRaster parameters", () => {
  it("is registered", () => {
    assert.equal(TASKS.get("GenerateTrendRaster"), trendTask);
  });

  it("defaults: every variable with the dimension, LINEAR, RMSE only, nodata ignored, whole grid", async () => {
    const { options, warnings } = await parse({ dimension: "StdTime" });
    assert.deepEqual(options.variables, ["UWND", "VWND"]);
    assert.equal(options.dimension, "StdTime");
    assert.deepEqual(options.model, { type: "LINEAR" });
    assert.deepEqual(options.statistics, { rmse: true, r2: false, slopePValue: false });
    assert.equal(options.ignoreNoData, true);
    assert.deepEqual(options.window, { x: 0, y: 0, width: 144, height: 73 });
    assert.deepEqual(warnings, []);
  });

  it("keywords and names are matched case-insensitively; frequency and cycles get their defaults", async () => {
    const p = await parse({ dimension: "stdtime", variables: "uwnd", trendLineType: "polynomial" });
    assert.equal(p.options.dimension, "StdTime");
    assert.deepEqual(p.options.variables, ["UWND"]);
    assert.deepEqual(p.options.model, { type: "POLYNOMIAL", order: 2 });
    const h = await parse({ dimension: "StdTime", trendLineType: "Harmonic" });
    assert.deepEqual(h.options.model, { type: "HARMONIC", harmonics: 1, cycleLengthDays: 365.25 });
    const d = await parse({ dimension: "StdTime", trendLineType: "HARMONIC", frequency: "3", cycleLength: "2.5", cycleUnit: "days" });
    assert.deepEqual(d.options.model, { type: "HARMONIC", harmonics: 3, cycleLengthDays: 2.5 });
    const s = await parse({ dimension: "StdTime", trendLineType: "SEASONAL-KENDALL" });
    assert.deepEqual(s.options.model, { type: "SEASONAL-KENDALL", seasonalPeriod: "DAYS" });
    assert.deepEqual(s.options.statistics, { rmse: false, r2: false, slopePValue: false });
  });

  it("ignoreNodata takes true/false and the GP strings DATA/NODATA (ignoreNoData too, as names match in any case)", async () => {
    assert.equal((await parse({ dimension: "StdTime", ignoreNodata: "NODATA" })).options.ignoreNoData, false);
    assert.equal((await parse({ dimension: "StdTime", ignoreNoData: "data" })).options.ignoreNoData, true);
    assert.equal((await parse({ dimension: "StdTime", ignoreNoData: "FALSE" })).options.ignoreNoData, false);
  });

  it("parameters that do not apply to the model are warned about, not silently used", async () => {
    const { options, warnings } = await parse({ dimension: "StdTime", frequency: "3", cycleUnit: "DAYS", r2: "true", unknownThing: "1" });
    assert.deepEqual(options.model, { type: "LINEAR" });
    assert.equal(options.statistics.r2, true);
    assert.equal(warnings.length, 3, warnings.join(" | "));
    assert.ok(warnings.some((w) => /frequency does not apply to LINEAR/.test(w)));
    assert.ok(warnings.some((w) => /unknownThing/.test(w)));
    const mk = await parse({ dimension: "StdTime", trendLineType: "MANN-KENDALL", slopePValue: "true" });
    assert.ok(mk.warnings.some((w) => /slopePValue does not apply to MANN-KENDALL/.test(w)));
  });

  it("fits along a non-time dimension, keeping the others; too few slices for the model is warned about", async () => {
    const { options, warnings } = await parse({ dimension: "StdZ" }, OCEAN);
    assert.deepEqual(options.variables, ["TEMP"]);
    assert.equal(options.dimension, "StdZ");
    assert.deepEqual(warnings, []);
    const high = await parse({ dimension: "StdZ", trendLineType: "POLYNOMIAL", frequency: "18" }, OCEAN);
    assert.ok(
      high.warnings.some((w) => /StdZ has 19 slice\(s\) and POLYNOMIAL needs at least 20 valid ones: every pixel will be nodata/.test(w)),
      high.warnings.join(" | "),
    );
  });

  const bad: [string, Record<string, string>, string, RegExp, string?][] = [
    ["no dimension", {}, "dimension", /dimension is required/],
    ["a dimension the variables lack", { dimension: "StdZ" }, "dimension", /no variable of the input has the dimension "StdZ"/],
    ["a chosen variable lacking the dimension", { dimension: "StdZ", variables: "UWND" }, "dimension", /UWND has no dimension "StdZ"/],
    ["an unknown variable", { dimension: "StdTime", variables: '["UWND","SST"]' }, "variables", /"SST" is not in the input/],
    ["a variable twice", { dimension: "StdTime", variables: "UWND,uwnd" }, "variables", /twice/],
    ["variables as an object", { dimension: "StdTime", variables: '{"a":1}' }, "variables", /not an object/],
    [
      "an unknown trend type",
      { dimension: "StdTime", trendLineType: "CUBIC" },
      "trendLineType",
      /LINEAR, HARMONIC, POLYNOMIAL, MANN-KENDALL, SEASONAL-KENDALL/,
    ],
    ["polynomial order 0", { dimension: "StdTime", trendLineType: "POLYNOMIAL", frequency: "0" }, "frequency", /whole number from 1 to 20/],
    ["polynomial order 2.5", { dimension: "StdTime", trendLineType: "POLYNOMIAL", frequency: "2.5" }, "frequency", /polynomial order/],
    ["21 harmonics", { dimension: "StdTime", trendLineType: "HARMONIC", frequency: "21" }, "frequency", /number of harmonic terms/],
    [
      "a frequency that is not a number",
      { dimension: "StdTime", trendLineType: "HARMONIC", frequency: "two" },
      "frequency",
      /must be a number/,
    ],
    ["a negative cycle", { dimension: "StdTime", trendLineType: "HARMONIC", cycleLength: "-1" }, "cycleLength", /positive/],
    ["a cycle in weeks", { dimension: "StdTime", trendLineType: "HARMONIC", cycleUnit: "WEEKS" }, "cycleUnit", /DAYS, YEARS/],
    [
      "SlopePValue with POLYNOMIAL",
      { dimension: "StdTime", trendLineType: "POLYNOMIAL", slopePValue: "true" },
      "slopePValue",
      /LINEAR and HARMONIC/,
    ],
    [
      "a seasonal period in weeks",
      { dimension: "StdTime", trendLineType: "SEASONAL-KENDALL", seasonalPeriod: "WEEKS" },
      "seasonalPeriod",
      /DAYS, MONTHS/,
    ],
    ["Seasonal-Kendall along depth", { dimension: "StdZ", trendLineType: "SEASONAL-KENDALL" }, "dimension", /season of StdTime/, OCEAN],
    ["ignoreNodata maybe", { dimension: "StdTime", ignoreNodata: "maybe" }, "ignoreNodata", /true, false, DATA or NODATA/],
    ["rmse yes", { dimension: "StdTime", rmse: "yes" }, "rmse", /true or false/],
    ["r2 1", { dimension: "StdTime", r2: "1" }, "r2", /true or false/],
    [
      "an extent off the raster",
      { dimension: "StdTime", context: '{"extent":{"xmin":0,"ymin":100,"xmax":10,"ymax":120}}' },
      "context",
      /does not overlap/,
    ],
    ["a context that is not JSON", { dimension: "StdTime", context: "{extent" }, "context", /not valid JSON/],
  ];
  for (const [what, params, parameter, pattern, file] of bad) {
    it(`400: ${what}`, () => rejects400(params, parameter, pattern, file));
  }

  it("400: the input and output descriptors", async () => {
    await assert.rejects(
      trendTask.parse({ inputMultidimensionalRaster: "{uri", outputName: OUT, dimension: "StdTime" }, env),
      (e: InvalidInputError) => e.parameter === "inputMultidimensionalRaster",
    );
    await assert.rejects(
      trendTask.parse({ inputMultidimensionalRaster: JSON.stringify({ uri: NAVY }), dimension: "StdTime" }, env),
      (e: InvalidInputError) => e.parameter === "outputName",
    );
  });
});

describe("writeTrend", () => {
  it("along StdZ: layout [StdTime, Band], value x encoding, one block per chunk, values from a hand fit", async () => {
    const { options } = await parse(
      { dimension: "StdZ", r2: "true", slopePValue: "true", context: '{"extent":{"xmin":0,"ymin":-40,"xmax":60,"ymax":40}}' },
      OCEAN,
    );
    const path = join(dir, "ocean_z.zarr");
    const source = await openCube(REAL + OCEAN);
    const probe = { input: [] as number[], depths: [] as number[], pixel: { row: 0, col: 0 } };
    try {
      await writeTrend(source, options, path);
      const v = source.variables[0];
      const depths = [...v.dimensions[1].values];
      probe.depths = depths;
      const w = options.window;
      // The pixel of the extent with the most valid depths at time 3.
      const slab = await v.read({
        dims: [
          [3, 4],
          [0, depths.length],
        ],
        window: w,
      });
      const plane = w.width * w.height;
      const valid = (i: number) => slab.data[i] === slab.data[i] && slab.data[i] !== v.nodata;
      let best = 0;
      let bestCount = -1;
      for (let p = 0; p < plane; p++) {
        let count = 0;
        for (let k = 0; k < depths.length; k++) count += valid(k * plane + p) ? 1 : 0;
        if (count > bestCount) [best, bestCount] = [p, count];
      }
      probe.pixel = { row: Math.floor(best / w.width), col: best % w.width };
      probe.input = depths.map((_, k) => (valid(k * plane + best) ? slab.data[k * plane + best] : NaN));
    } finally {
      await source.close();
    }
    const out: Cube = await openCube(path);
    try {
      assert.equal(out.grid.width, options.window.width);
      assert.equal(out.grid.height, options.window.height);
      const v = out.variables[0];
      assert.equal(v.name, "TEMP");
      assert.deepEqual(
        v.dimensions.map((d) => d.name),
        ["StdTime", "Band"],
      );
      assert.equal(v.dimensions[0].values.length, 12);
      const meta = readTrendMetadata(v.attributes);
      assert.ok(typeof meta !== "string");
      assert.equal(meta.xEncoding, "value");
      assert.equal(meta.dimension, "StdZ");
      assert.equal(meta.dimensionIndex, 1);
      assert.deepEqual(meta.bands, ["Slope", "Intercept", "RMSE", "R2", "SlopePValue"]);
      const zarrJson = JSON.parse(await readFile(join(path, "TEMP", "zarr.json"), "utf8")) as {
        chunk_grid: { configuration: { chunk_shape: number[] } };
      };
      assert.deepEqual(zarrJson.chunk_grid.configuration.chunk_shape, [1, 5, options.window.height, options.window.width]);
      const stats = (out.attributes["strata:statistics"] as Record<string, { count: number }>).TEMP;
      assert.ok(stats.count > 0);

      const slab = await v.read({
        dims: [
          [3, 4],
          [0, 5],
        ],
        window: { x: probe.pixel.col, y: probe.pixel.row, width: 1, height: 1 },
      });
      const pts = probe.depths.map((z, i) => [z, probe.input[i]]).filter(([, y]) => !Number.isNaN(y));
      assert.ok(pts.length > 3, `${pts.length} valid depths`);
      const n = pts.length;
      const mx = pts.reduce((s, [x]) => s + x, 0) / n;
      const my = pts.reduce((s, [, y]) => s + y, 0) / n;
      const sxy = pts.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
      const sxx = pts.reduce((s, [x]) => s + (x - mx) ** 2, 0);
      const slope = sxy / sxx;
      const sse = pts.reduce((s, [x, y]) => s + (y - my - slope * (x - mx)) ** 2, 0);
      const close = (got: number, want: number, what: string) =>
        assert.ok(Math.abs(got - want) <= 1e-9 * Math.abs(want) + 1e-12, `${what}: ${got} vs ${want}`);
      close(slab.data[0], slope, "Slope");
      close(slab.data[1], my - slope * mx, "Intercept");
      close(slab.data[2], Math.sqrt(sse / n), "RMSE");
    } finally {
      await out.close();
    }
  });

  for (const record of [false, true]) {
    // Stored contiguously, the tile walk takes 3 × 3 tiles; a record a day, the fit streams.
    const walk = record ? "a streamed walk (a record a day)" : "a multi-tile walk with the whole time axis per tile";
    it(`${walk} matches the synthetic formula`, async () => {
      const big = join(dir, `big_${record}.nc`);
      await writeBigCube(big, { times: 30, height: 40, width: 56, record });
      const { options } = await parse({ dimension: "StdTime", rmse: "true" }, big);
      const plan: TrendOptions = { ...options, tile: { height: 16, width: 24 } };
      const path = join(dir, `big_trend_${record}.zarr`);
      const cube = await openCube(big);
      const fractions: number[] = [];
      try {
        await writeTrend(cube, plan, path, { onProgress: (f) => fractions.push(f) });
      } finally {
        await cube.close();
      }
      if (!record) assert.equal(fractions.length, 3 * 3);
      assert.ok(
        fractions.every((f, i) => i === 0 || f >= fractions[i - 1]),
        "progress never goes back",
      );
      assert.equal(fractions.at(-1), 1);
      const out = await openCube(path);
      try {
        const v = out.variables[0];
        const slab = await v.read({ dims: [[0, 3]] });
        const plane = 40 * 56;
        const day2000 = Date.UTC(2000, 0, 1) / 86_400_000;
        for (const [row, col] of [
          [0, 0],
          [17, 30],
          [39, 55],
        ]) {
          const p = row * 56 + col;
          // value(t) = t + 0.001·row + 1e-6·col (float32) at x = day2000 + t: slope 1 per day.
          assert.ok(Math.abs(slab.data[p] - 1) < 1e-6, `slope ${slab.data[p]}`);
          // The line through the float32 values: at t = 15 it gives the value there.
          const at15 = slab.data[p] * (day2000 + 15) + slab.data[plane + p];
          assert.ok(Math.abs(at15 - bigCubeValue(15, row, col)) < 1e-5, `line at t = 15: ${at15} vs ${bigCubeValue(15, row, col)}`);
          assert.ok(slab.data[2 * plane + p] < 1e-5, `rmse ${slab.data[2 * plane + p]}`);
        }
      } finally {
        await out.close();
      }
    });
  }
});

describe("cancellation", () => {
  let big = "";
  before(async () => {
    big = join(dir, "cancel.nc");
    // 40 daily slices of 64 × 96: with 16-pixel tiles, 24 tiles.
    await writeBigCube(big, { times: 40, height: 64, width: 96 });
  });

  it("writeTrend stops promptly after the first tile when the signal is aborted", async () => {
    const cube: Cube = await openCube(big);
    try {
      const { options } = await parse({ dimension: "StdTime", trendLineType: "MANN-KENDALL" }, big);
      await assertStopsAfterFirstTile((o) =>
        writeTrend(cube, { ...options, tile: { height: 16, width: 16 } }, join(dir, "cancelled.zarr"), o),
      );
    } finally {
      await cube.close();
    }
  });

  it("run: a cancelled job leaves nothing in the raster store; a finished one commits its dataset", async () => {
    const dataDir = join(dir, "data");
    const { options } = await parse({ dimension: "StdTime", trendLineType: "HARMONIC", r2: "true" }, big);
    const path = await assertCancelThenCommit(trendTask, { ...options, tile: { height: 16, width: 16 } }, options, dataDir);
    const out = await openCube(path);
    try {
      assert.deepEqual(out.variables[0].chunkShape, [6, 64, 96]); // Slope, Intercept, sin1, cos1, RMSE, R2
      assert.deepEqual(
        out.variables[0].dimensions.map((d) => d.name),
        ["Band"],
      );
    } finally {
      await out.close();
    }
  });
});
