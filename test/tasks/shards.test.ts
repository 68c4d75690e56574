/**
 * Sharing a task's tiles out (datasetRunners + ctx.fanOut): a run split into 3 shards writes
 * the same values, bit for bit, as the run on one thread, and the same statistics; how many
 * threads a run takes; merging statistics of parts. The shards run interleaved in this
 * thread here (test/jobs/fanOut.test.ts and test/http/parallelJobs.test.ts use real threads).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { after, before, describe, it } from "node:test";

import { mergeStatistics, statisticsAccumulator } from "../../src/analysis/statistics.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube, openLocation } from "../../src/io/open.js";
import { openRasterStore } from "../../src/store/rasterStore.js";
import { anomalyTask } from "../../src/tasks/anomaly.js";
import { threadCount } from "../../src/tasks/common.js";
import { predictTask } from "../../src/tasks/predict.js";
import { subsetTask } from "../../src/tasks/subset.js";
import { trendTask } from "../../src/tasks/trend.js";
import type { ParseEnv, TaskDefinition } from "../../src/tasks/types.js";
import { fakeRunContext } from "../helpers/runContext.js";
import { REAL } from "../helpers/subsetCases.js";

const env: ParseEnv = {
  resolveInput: async (descriptor) => {
    const uri = (descriptor as { uri: string }).uri;
    return { location: { path: isAbsolute(uri) ? uri : REAL + uri }, warnings: [] };
  },
  resolveOutput: async () => ({ kind: "create", serviceName: "out", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-shards-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Run `task` on one thread and on 3 shards; returns both outputs' dataset paths and the shard counts used. */
async function runBoth<O>(task: TaskDefinition<O>, params: Record<string, string>, tweak: (o: O) => O = (o) => o) {
  const { options } = await task.parse({ outputName: '{"serviceProperties":{"name":"out"}}', ...params }, env);
  const paths: string[] = [];
  const fanned: number[][] = [];
  for (const threads of [1, 3]) {
    const dataDir = join(dir, `${task.info.name}-${threads}-${paths.length}-${Date.now()}`);
    const run = fakeRunContext(dataDir, undefined, { task, threads });
    const { datasetId } = await task.run(tweak(options), run.ctx);
    assert.equal(run.progress.at(-1) ?? 100, 100);
    fanned.push(run.fannedOut);
    paths.push(await (await openRasterStore(dataDir, { sweep: false })).resolve(datasetId));
  }
  return { paths, fanned };
}

/**
 * The two outputs hold the same values: bit for bit, or within `relative` where shares'
 * sums merge in another order than one thread adds them (the last bits of a float64 may differ).
 */
async function assertSameOutputs(a: string, b: string, relative = 0): Promise<void> {
  const [x, y] = [await openCube(a), await openCube(b)];
  try {
    assert.deepEqual(
      y.variables.map((v) => v.name),
      x.variables.map((v) => v.name),
    );
    for (const v of x.variables) {
      const w = y.variables.find((u) => u.name === v.name)!;
      const dims = v.dimensions.map((d) => [0, d.values.length] as const);
      const window = { x: 0, y: 0, width: x.grid.width, height: x.grid.height };
      const [p, q] = [await v.read({ dims, window }), await w.read({ dims, window })];
      if (relative === 0) {
        assert.deepEqual(
          Buffer.from(q.data.buffer, q.data.byteOffset, q.data.byteLength),
          Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength),
          v.name,
        );
      } else {
        for (let i = 0; i < p.data.length; i++) {
          const [x, y] = [p.data[i], q.data[i]];
          assert.ok(Object.is(x, y) || Math.abs(x - y) <= relative * Math.max(1, Math.abs(x)), `${v.name}[${i}]: ${x} vs ${y}`);
        }
      }
      const [s, t] = [statisticsOf(x, v.name), statisticsOf(y, v.name)];
      const near = (a: number, b: number, what: string) =>
        assert.ok(Math.abs(a - b) <= Math.max(relative, 1e-12) * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
      assert.equal(t.count, s.count);
      if (relative === 0) {
        assert.equal(t.min, s.min);
        assert.equal(t.max, s.max);
      } else {
        near(t.min, s.min, "min");
        near(t.max, s.max, "max");
      }
      near(t.mean, s.mean, "mean");
      near(t.stddev, s.stddev, "stddev");
    }
  } finally {
    await x.close();
    await y.close();
  }
}

function statisticsOf(cube: Cube, name: string) {
  const all = cube.attributes["strata:statistics"] as Record<
    string,
    { count: number; min: number; max: number; mean: number; stddev: number }
  >;
  return all[name];
}

describe("a run shared over 3 shards writes what one thread writes", () => {
  it("GenerateMultidimensionalAnomaly streamed: two passes, sums merged between them (depth kept)", async () => {
    // One record per time step and 16-pixel tiles: the z-score streams.
    const { paths, fanned } = await runBoth(
      anomalyTask,
      { inputMultidimensionalRaster: '{"uri":"ocean_atlas_subset.nc"}', method: "Z_SCORE", calculationInterval: "ALL" },
      (o) => ({ ...o, tile: 16 }),
    );
    assert.deepEqual(fanned, [[], [3, 3]]);
    await assertSameOutputs(paths[0], paths[1]);
  });

  it("GenerateMultidimensionalAnomaly streamed into a raw output: each shard keeps its runs in the output between passes", async () => {
    const params = {
      inputMultidimensionalRaster: '{"uri":"ocean_atlas_subset.nc"}',
      method: "DIFFERENCE_FROM_MEAN",
      calculationInterval: "ALL",
    };
    const raw = await runBoth(anomalyTask, { ...params, context: '{"compression":"NONE"}' }, (o) => ({ ...o, tile: 16 }));
    assert.deepEqual(raw.fanned, [[], [3, 3]]);
    await assertSameOutputs(raw.paths[0], raw.paths[1]);
    // The same values as the compressed output's, whose second pass decodes the input again.
    const zstd = await runBoth(anomalyTask, params, (o) => ({ ...o, tile: 16 }));
    await assertSameOutputs(zstd.paths[0], raw.paths[1]);
  });

  it("GenerateMultidimensionalAnomaly transposed, then by tiles through time (median, depth kept, 16-pixel tiles)", async () => {
    // One record per time step: shares transpose runs of records into the same tile files,
    // then share the tiles.
    const { paths, fanned } = await runBoth(
      anomalyTask,
      { inputMultidimensionalRaster: '{"uri":"ocean_atlas_subset.nc"}', method: "DIFFERENCE_FROM_MEDIAN", calculationInterval: "ALL" },
      (o) => ({ ...o, tile: 16 }),
    );
    assert.deepEqual(fanned, [[], [3, 3]]);
    await assertSameOutputs(paths[0], paths[1]);
  });

  it("GenerateTrendRaster streamed: sums shared, R2 from them (no residual pass on real data), bands written on one thread (HARMONIC)", async () => {
    // One record per month and 16 × 32 tiles: the fit streams.
    const { paths, fanned } = await runBoth(
      trendTask,
      { inputMultidimensionalRaster: '{"uri":"monthly_navy_winds.cdf"}', dimension: "StdTime", trendLineType: "HARMONIC", r2: "true" },
      (o) => ({ ...o, tile: { height: 16, width: 32 } }),
    );
    assert.deepEqual(fanned, [[], [3]]);
    await assertSameOutputs(paths[0], paths[1], 1e-10);
  });

  it("PredictUsingTrendRaster and SubsetMultidimensionalRaster", async () => {
    const trend = await runBoth(trendTask, { inputMultidimensionalRaster: '{"uri":"monthly_navy_winds.cdf"}', dimension: "StdTime" });
    const predict = await runBoth(
      predictTask,
      { inputMultidimensionalRaster: JSON.stringify({ uri: trend.paths[0] }), dimensionValues: "2000-01-01, 2001-06-15, 2010-12-31" },
      (o) => ({ ...o, tile: 24 }),
    );
    assert.deepEqual(predict.fanned, [[], [3]]);
    await assertSameOutputs(predict.paths[0], predict.paths[1]);
    const subset = await runBoth(subsetTask, { inputMultidimensionalRaster: '{"uri":"monthly_navy_winds.cdf"}', variables: "UWND,VWND" });
    assert.deepEqual(subset.fanned, [[], [3]]);
    await assertSameOutputs(subset.paths[0], subset.paths[1]);
  });

  it("a parallelProcessingFactor of 1 keeps the run on one thread", async () => {
    const { fanned } = await runBoth(subsetTask, {
      inputMultidimensionalRaster: '{"uri":"monthly_navy_winds.cdf"}',
      context: '{"parallelProcessingFactor":"1"}',
    });
    assert.deepEqual(fanned, [[], []]);
  });
});

describe("threadCount", () => {
  it("takes the server's threads per job unless the context asks for fewer", () => {
    assert.equal(threadCount(undefined, 8, 1000), 8);
    assert.equal(threadCount({ count: 3 }, 8, 1000), 3);
    assert.equal(threadCount({ count: 64 }, 8, 1000), 8);
    assert.equal(threadCount({ percent: 50 }, 8, 1000), 4);
    assert.equal(threadCount({ percent: 10 }, 8, 1000), 1);
    assert.equal(threadCount({ percent: 100 }, 6, 1000), 6);
  });
  it("never more threads than the output has chunks", () => {
    assert.equal(threadCount(undefined, 8, 3), 3);
    assert.equal(threadCount({ count: 4 }, 8, 1), 1);
  });
});

describe("mergeStatistics", () => {
  it("equals the statistics of the whole (hand-worked: 1..6 in parts)", () => {
    const part = (values: number[]) => {
      const acc = statisticsAccumulator();
      acc.add(Float64Array.from(values), undefined);
      return acc.result();
    };
    const merged = mergeStatistics([part([1, 2]), undefined, part([3]), part([4, 5, 6])])!;
    // mean 3.5; population variance = Σ(x − 3.5)² / 6 = 17.5 / 6
    assert.equal(merged.count, 6);
    assert.equal(merged.min, 1);
    assert.equal(merged.max, 6);
    assert.ok(Math.abs(merged.mean - 3.5) < 1e-15);
    assert.ok(Math.abs(merged.stddev - Math.sqrt(17.5 / 6)) < 1e-15);
    assert.equal(mergeStatistics([undefined, undefined]), undefined);
  });
});
