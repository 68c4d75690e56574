/**
 * A job's input is opened once per thread, not once per pass (tasks/inputCache.ts with the
 * shard threads' pool): a streamed z-score (2 passes) fanned out over real shard threads
 * opens its input once on the job's thread (shard 0 uses the run's) and once on each shard
 * thread; the next job on the same threads opens its own once each. The output is the
 * one-thread run's, value for value.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { threadId } from "node:worker_threads";
import { openCube, openLocation } from "../../src/io/open.js";
import { fanOut } from "../../src/jobs/fanOut.js";
import { releaseIdleShardThreads } from "../../src/jobs/shardPool.js";
import { openRasterStore } from "../../src/store/rasterStore.js";
import { anomalyTask } from "../../src/tasks/anomaly.js";
import type { ParseEnv, RunContext } from "../../src/tasks/types.js";
import { type CountedOptions, countedTask, runShard } from "./fixtures/countedOpens.js";

const OCEAN = fileURLToPath(new URL("../fixtures/real/ocean_atlas_subset.nc", import.meta.url));
const COUNTED = new URL("./fixtures/countedOpens.ts", import.meta.url).href;

const env: ParseEnv = {
  resolveInput: async () => ({ location: { path: OCEAN }, warnings: [] }),
  resolveOutput: async () => ({ kind: "create", serviceName: "out", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-shard-inputs-"));
});
after(async () => {
  await releaseIdleShardThreads();
  await rm(dir, { recursive: true, force: true });
});

/** Run the counted anomaly on `threads` threads (real shard threads); its output's path, the fan-outs' shard counts and the opens' thread ids. */
async function runCounted(options: CountedOptions, threads: number, name: string) {
  const dataDir = join(dir, name);
  const fanned: number[] = [];
  const ctx: RunContext = {
    signal: new AbortController().signal,
    dataDir,
    progress: () => {},
    message: () => {},
    report: () => {},
    threads,
    fanOut: (count, payload) => {
      fanned.push(count);
      return fanOut(count, payload as never, {
        workerModule: COUNTED,
        task: "counted",
        signal: ctx.signal,
        progress: () => {},
        loadRunShard: async () => runShard,
      });
    },
  };
  const before = (await readFile(options.openLog, "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  const { datasetId } = await countedTask.run!(options, ctx);
  const opens = (await readFile(options.openLog, "utf8")).split("\n").filter(Boolean).map(Number).slice(before);
  return { path: await (await openRasterStore(dataDir, { sweep: false })).resolve(datasetId), fanned, opens };
}

describe("a job's input on shard threads", () => {
  it("is opened once per thread for all the passes, and once per thread again by the next job", async () => {
    const { options } = await anomalyTask.parse(
      {
        inputMultidimensionalRaster: '{"uri":"ocean"}',
        outputName: '{"serviceProperties":{"name":"out"}}',
        method: "Z_SCORE",
        calculationInterval: "ALL",
      },
      env,
    );
    // One record per time step and 16-pixel tiles: the z-score streams in 2 passes of 3 shares (see shards.test.ts).
    const counted: CountedOptions = { ...options, tile: 16, openLog: join(dir, "opens.log") };
    const one = await runCounted(counted, 1, "one");
    assert.deepEqual(one.opens, [threadId]);

    const first = await runCounted(counted, 3, "first");
    assert.deepEqual(first.fanned, [3, 3], "both passes fanned out");
    const shards = 3;
    assert.equal(first.opens.length, shards, `one open per thread: ${first.opens}`);
    assert.equal(first.opens.filter((t) => t === threadId).length, 1, "shard 0 used the run's input");
    assert.equal(new Set(first.opens).size, shards);

    const second = await runCounted(counted, 3, "second");
    assert.equal(second.opens.length, shards, `one open per thread: ${second.opens}`);
    assert.deepEqual(new Set(second.opens), new Set(first.opens), "on the same threads");

    for (const run of [first, second]) {
      const [a, b] = [await openCube(one.path), await openCube(run.path)];
      try {
        const [p, q] = [await a.variables[0].read(), await b.variables[0].read()];
        assert.deepEqual(q.data, p.data);
      } finally {
        await a.close();
        await b.close();
      }
    }
  });
});
