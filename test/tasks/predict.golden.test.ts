/**
 * PredictUsingTrendRaster end to end against numpy: for each case of
 * test/golden/analysis/predict.json, the trend case it names (trend.json) is parsed and
 * written with the real GenerateTrendRaster code, then the prediction is parsed by the
 * task's real parser with that trend raster as input (`{"uri": <absolute path>}`) and written
 * with writePredict. The output's StdTime values must equal the golden times exactly, and
 * the float32 samples must match numpy's float64 evaluation to 1e-5 relative (1e-9 absolute
 * floor), null = nodata.
 *
 * Goldens, from the repository root:
 *   bash scripts/fixtures.sh && /tmp/v/bin/python scripts/goldens/make_analysis_goldens.py
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { type PredictOptions, predictTask, writePredict } from "../../src/tasks/predict.js";
import { type TrendOptions, trendTask, writeTrend } from "../../src/tasks/trend.js";
import type { InputLocation, ParseEnv } from "../../src/tasks/types.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TREND_GOLDEN = join(ROOT, "test/golden/analysis/trend.json");
const PREDICT_GOLDEN = join(ROOT, "test/golden/analysis/predict.json");

interface TrendCase {
  name: string;
  file: string;
  params: Record<string, string>;
}
interface PredictCase {
  name: string;
  trend: string;
  params: Record<string, string>;
  times: number[];
  samples: { variable: string; index: Record<string, number>; row: number; col: number; value: number | null }[];
}

const env: ParseEnv = {
  resolveInput: async (d) => {
    const uri = (d as { uri: string }).uri;
    return { location: { path: isAbsolute(uri) ? uri : join(ROOT, uri) }, warnings: [] };
  },
  resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
  openCube: (location: InputLocation) => openCube(location.path!),
};
const OUTPUT = '{"serviceProperties":{"name":"x"}}';

const load = <T>(path: string): T[] => (existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as T[]) : []);
const TRENDS = load<TrendCase>(TREND_GOLDEN);
const CASES = load<PredictCase>(PREDICT_GOLDEN);

describe("PredictUsingTrendRaster against numpy (golden cases written to Zarr)", { skip: CASES.length === 0 && "no goldens" }, () => {
  let dir = "";
  const trendPaths = new Map<string, Promise<string>>();
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-predict-golden-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Write the named trend case once. */
  const trendRaster = (name: string): Promise<string> => {
    if (!trendPaths.has(name)) {
      trendPaths.set(
        name,
        (async () => {
          const t = TRENDS.find((x) => x.name === name);
          assert.ok(t, `trend case ${name}`);
          const { options } = await trendTask.parse(
            { inputMultidimensionalRaster: JSON.stringify({ uri: t.file }), outputName: OUTPUT, ...t.params },
            env,
          );
          const path = join(dir, `trend_${name}.zarr`);
          const source = await openCube(join(ROOT, t.file));
          try {
            await writeTrend(source, JSON.parse(JSON.stringify(options)) as TrendOptions, path);
          } finally {
            await source.close();
          }
          return path;
        })(),
      );
    }
    return trendPaths.get(name)!;
  };

  for (const c of CASES) {
    it(c.name, async () => {
      const trendPath = await trendRaster(c.trend);
      const { options } = await predictTask.parse(
        { inputMultidimensionalRaster: JSON.stringify({ uri: trendPath }), outputName: OUTPUT, ...c.params },
        env,
      );
      assert.deepEqual(options.values, c.times, "times");
      const path = join(dir, `${c.name}.zarr`);
      const trend = await openCube(trendPath);
      try {
        await writePredict(trend, JSON.parse(JSON.stringify(options)) as PredictOptions, path);
      } finally {
        await trend.close();
      }
      const out: Cube = await openCube(path);
      try {
        for (const s of c.samples) {
          const v = out.variables.find((x) => x.name === s.variable);
          assert.ok(v, `variable ${s.variable}`);
          assert.equal(v.pixelType, "F32");
          assert.deepEqual(v.dimensions.map((d) => d.name).sort(), Object.keys(s.index).sort(), "dimensions");
          assert.deepEqual(v.dimensions.find((d) => d.name === "StdTime")!.values, c.times, "StdTime values");
          const slab = await v.read({
            dims: v.dimensions.map((d) => [s.index[d.name], s.index[d.name] + 1] as const),
            window: { x: s.col, y: s.row, width: 1, height: 1 },
          });
          const got = slab.data[0];
          const where = `${s.variable} ${JSON.stringify(s.index)} row ${s.row} col ${s.col}`;
          if (s.value === null) assert.ok(Number.isNaN(got), `${where}: expected nodata, got ${got}`);
          else assert.ok(Math.abs(got - s.value) <= 1e-5 * Math.abs(s.value) + 1e-9, `${where}: got ${got}, numpy ${s.value}`);
        }
      } finally {
        await out.close();
      }
    });
  }
});
