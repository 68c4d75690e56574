/**
 * Threads for passes that stream the input (OpenedInput.walk.streamed, tasks/common.ts): one
 * share of such a pass keeps about two cores busy, and a job's threads are the cores it keeps
 * busy, so such passes take one thread per two of the job's threads, whether the count is
 * the server's or a parallelProcessingFactor; shards that run
 * elsewhere take every thread. The job says which. A streamed z-score (2 streamed passes), a transposed median anomaly (both
 * passes streamed: its tiles write an output as large as its input) and a transposed
 * Mann-Kendall trend (pass 1 streamed, pass 2 tiles of arithmetic) on record-a-step NetCDF
 * files; the shards run in this thread.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Json } from "../../src/jobs/types.js";
import { anomalyTask } from "../../src/tasks/anomaly.js";
import { trendTask } from "../../src/tasks/trend.js";
import type { TaskDefinition } from "../../src/tasks/types.js";
import { runTask } from "../../src/tasks/worker.js";
import { fakeRunContext } from "../helpers/runContext.js";
import { fixtureEnv } from "../helpers/subsetCases.js";

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-streamed-"));
});
after(() => rm(dir, { recursive: true, force: true }));

const ZSCORE = { inputMultidimensionalRaster: '{"uri":"ocean_atlas_subset.nc"}', method: "Z_SCORE", calculationInterval: "ALL" };
const MEDIAN = { ...ZSCORE, method: "DIFFERENCE_FROM_MEDIAN" };
const KENDALL = { inputMultidimensionalRaster: '{"uri":"monthly_navy_winds.cdf"}', dimension: "StdTime", trendLineType: "MANN-KENDALL" };

/** The fan-outs' shard counts and the job's message on its threads. */
async function run<O>(task: TaskDefinition<O>, params: Record<string, string>, threads: number, local = true, tile: unknown = 16) {
  const { options } = await task.parse({ outputName: '{"serviceProperties":{"name":"out"}}', ...params }, fixtureEnv);
  const context = fakeRunContext(join(dir, `${task.info.name}-${Date.now()}-${Math.random()}`), undefined, { task, threads, local });
  // 16-pixel tiles: the walks stream (or transpose) rather than walk whole-time tiles (see shards.test.ts).
  await task.run({ ...options, tile }, context.ctx);
  return { fanned: context.fannedOut, warmed: context.warmed, said: context.messages.find((m) => m.startsWith("Working on")) };
}

describe("threads for streamed passes", () => {
  it("a z-score's two streamed passes take one thread of 2 or 3, two of 4", async () => {
    const two = await run(anomalyTask, ZSCORE, 3);
    assert.deepEqual(two.fanned, []);
    assert.equal(
      two.said,
      "Working on 1 thread of the 3 allowed: a pass streaming the input keeps about 2 cores busy a thread (reading and inflating; encoding and writing on helper threads).",
    );
    const pair = await run(anomalyTask, ZSCORE, 2);
    assert.deepEqual(pair.fanned, []);
    assert.match(pair.said!, /^Working on 1 thread of the 2 allowed: /);
    const four = await run(anomalyTask, ZSCORE, 4);
    assert.deepEqual(four.fanned, [2, 2]);
    assert.deepEqual(four.warmed, [], "its first pass fans out: nothing to start ahead");
    assert.match(four.said!, /^Working on 2 threads of the 4 allowed: /);
  });

  it("a median anomaly transposes and writes its tiles on one thread of 3", async () => {
    const { fanned, said } = await run(anomalyTask, MEDIAN, 3);
    assert.deepEqual(fanned, []);
    assert.match(said!, /^Working on 1 thread of the 3 allowed: a pass streaming the input keeps about 2 cores busy/);
  });

  it("a Mann-Kendall trend transposes on one thread of 3 and fits its tiles on all, their threads warmed first", async () => {
    const { fanned, warmed, said } = await run(trendTask, KENDALL, 3, true, { height: 16, width: 16 });
    assert.deepEqual(fanned, [3]);
    assert.deepEqual(warmed, [2], "the two shard threads of pass 2 started as pass 1 began");
    assert.match(said!, /^Working on 3 threads, pass 1 on 1: a pass streaming the input keeps about 2 cores busy/);
  });

  it("plans a parallelProcessingFactor's threads the same way; shards that run elsewhere take every thread", async () => {
    const two = await run(anomalyTask, { ...ZSCORE, context: '{"parallelProcessingFactor":"2"}' }, 4);
    assert.deepEqual(two.fanned, []);
    assert.match(two.said!, /^Working on 1 thread of the 2 allowed: /);
    const four = await run(anomalyTask, { ...ZSCORE, context: '{"parallelProcessingFactor":"4"}' }, 4);
    assert.deepEqual(four.fanned, [2, 2]);
    const elsewhere = await run(anomalyTask, ZSCORE, 3, false);
    assert.deepEqual(elsewhere.fanned, [3, 3]);
    assert.equal(elsewhere.said, "Working on 3 threads.");
  });

  it("a server's job thread (tasks/worker.ts runTask) passes the warm-up on to the task", async () => {
    const { options } = await trendTask.parse({ outputName: '{"serviceProperties":{"name":"out"}}', ...KENDALL }, fixtureEnv);
    const warmed: number[] = [];
    const signal = new AbortController().signal;
    await runTask(
      "GenerateTrendRaster",
      { dataDir: join(dir, "job"), task: { ...options, tile: { height: 16, width: 16 } } } as unknown as Json,
      {
        jobId: "j1",
        signal,
        progress: () => {},
        message: () => {},
        report: () => {},
        threads: 3,
        localShards: true,
        fanOut: (count, payload) =>
          Promise.all(
            Array.from({ length: count }, (_, index) => trendTask.runShard(payload, { index, count, signal, progress: () => {} })),
          ) as Promise<Json[]>,
        warmShards: (count) => warmed.push(count),
      },
    );
    assert.deepEqual(warmed, [2]);
  });
});
