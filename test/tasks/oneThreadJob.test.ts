/**
 * A job of one thread keeps to it (tasks/common.ts): its chunks are encoded and written on
 * its own thread, so the chunk encoder's thread is never started; a job of two threads
 * starts it. Both write numpy's z-scores (test/golden/analysis/anomaly.json, case
 * zscore_all_ocean), and the same bits. A streamed z-score on a record-a-step NetCDF file,
 * its shards run in this thread (test/helpers/runContext.ts).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { encoderThreadStarted } from "../../src/io/chunkEncoder.js";
import { openCube } from "../../src/io/open.js";
import { openRasterStore } from "../../src/store/rasterStore.js";
import { anomalyTask } from "../../src/tasks/anomaly.js";
import { ANOMALY_CASES, assertSamples } from "../helpers/anomalyGolden.js";
import { fakeRunContext } from "../helpers/runContext.js";
import { fixtureEnv } from "../helpers/subsetCases.js";

const CASE = ANOMALY_CASES.find((c) => c.name === "zscore_all_ocean")!;

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-one-thread-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** The z-score on `threads` threads, its shards local (16-pixel tiles: the walk streams); its values, and numpy's samples checked. */
async function zScore(threads: number): Promise<Float32Array> {
  const { options } = await anomalyTask.parse(
    { inputMultidimensionalRaster: '{"uri":"ocean_atlas_subset.nc"}', outputName: '{"serviceProperties":{"name":"out"}}', ...CASE.params },
    fixtureEnv,
  );
  const dataDir = join(dir, String(threads));
  const { ctx, messages } = fakeRunContext(dataDir, undefined, { task: anomalyTask, threads, local: true });
  const { datasetId } = await anomalyTask.run({ ...options, tile: 16 }, ctx);
  assert.ok(
    messages.some((m) => m.startsWith("Streaming in storage order")),
    JSON.stringify(messages),
  );
  const cube = await openCube(await (await openRasterStore(dataDir, { sweep: false })).resolve(datasetId));
  try {
    const v = cube.variables[0];
    const slab = await v.read({ dims: v.dimensions.map((d) => [0, d.values.length] as const) });
    assertSamples(v, slab, CASE.samples, `${threads} thread(s): `);
    return slab.data as Float32Array;
  } finally {
    await cube.close();
  }
}

it("encodes a one-thread job's chunks on its thread, starting no encoder thread; two threads start it; both as numpy", async () => {
  const one = await zScore(1);
  assert.equal(encoderThreadStarted(), false, "a job of one thread started the encoder's thread");
  const two = await zScore(2);
  assert.equal(encoderThreadStarted(), true);
  assert.equal(one.length, two.length);
  for (let i = 0; i < one.length; i++) if (!Object.is(one[i], two[i])) assert.fail(`value ${i}: ${one[i]} vs ${two[i]}`);
});
