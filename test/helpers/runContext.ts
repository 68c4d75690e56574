/**
 * A task's RunContext as a worker would give it, recording progress and reports; with
 * `abortAt`, the signal is aborted at that progress call (to cancel after the n-th tile).
 * With `shards`, the run may fan out to `shards.threads` shards of `shards.task`, run here
 * in this thread, interleaved (the sharing of the work without the threads), its streamed
 * passes planned as on this process's threads when `shards.local`.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { openRasterStore } from "../../src/store/rasterStore.js";
import type { RunContext, TaskDefinition } from "../../src/tasks/types.js";

export function fakeRunContext<O>(
  dataDir: string,
  abortAt?: number,
  shards?: { task: TaskDefinition<O>; threads: number; local?: boolean },
) {
  const controller = new AbortController();
  const reports: Record<string, unknown> = {};
  const progress: number[] = [];
  /** The shard counts of each fanOut call. */
  const fannedOut: number[] = [];
  /** The counts of each warmShards call. */
  const warmed: number[] = [];
  const messages: string[] = [];
  const ctx: RunContext = {
    signal: controller.signal,
    dataDir,
    progress: (p) => {
      progress.push(p);
      if (abortAt !== undefined && progress.length >= abortAt) controller.abort();
    },
    message: (_, description) => messages.push(description),
    report: (k, v) => {
      reports[k] = v;
    },
    threads: shards?.threads ?? 1,
    localShards: shards?.local,
    fanOut: (count, payload) => {
      if (!shards) throw new Error("this fake run context cannot fan out");
      fannedOut.push(count);
      const signal = controller.signal;
      return Promise.all(
        Array.from({ length: count }, (_, index) => shards.task.runShard(payload, { index, count, signal, progress: () => {} })),
      );
    },
    warmShards: (count) => warmed.push(count),
  };
  return { ctx, reports, progress, fannedOut, warmed, messages };
}

/**
 * A write given an abort at its first progress report rejects with AbortError promptly,
 * having finished exactly one tile.
 */
export async function assertStopsAfterFirstTile(
  write: (options: { signal: AbortSignal; onProgress: () => void }) => Promise<unknown>,
): Promise<void> {
  const controller = new AbortController();
  let tiles = 0;
  const started = Date.now();
  await assert.rejects(
    write({
      signal: controller.signal,
      onProgress: () => {
        tiles++;
        controller.abort();
      },
    }),
    (e: Error) => e.name === "AbortError",
  );
  assert.equal(tiles, 1);
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
}

/**
 * Run `task` cancelled at its first tile, then to the end, into the raster store at
 * `dataDir`: the cancelled run rejects with AbortError promptly after one tile, having
 * reported its pending dataset, and leaves nothing; the finished one commits the dataset it
 * reported and ends at 100%. Resolves to that dataset's path.
 */
export async function assertCancelThenCommit<O>(task: TaskDefinition<O>, cancelled: O, finished: O, dataDir: string): Promise<string> {
  const cancel = fakeRunContext(dataDir, 1);
  const started = Date.now();
  await assert.rejects(task.run(cancelled, cancel.ctx), (e: Error) => e.name === "AbortError");
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  assert.equal(cancel.progress.length, 1);
  assert.equal(typeof cancel.reports.pendingDataset, "string");
  const store = await openRasterStore(dataDir, { sweep: false });
  assert.deepEqual(await store.list(), []);
  assert.deepEqual(await readdir(join(dataDir, "rasters", ".pending")), []);

  const done = fakeRunContext(dataDir);
  const result = await task.run(finished, done.ctx);
  assert.equal(done.reports.pendingDataset, result.datasetId);
  assert.deepEqual(await store.list(), [result.datasetId]);
  assert.equal(done.progress.at(-1), 100);
  return store.resolve(result.datasetId);
}
