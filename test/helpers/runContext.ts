/**
 * A task's RunContext as a worker would give it, recording progress and reports; with
 * `abortAt`, the signal is aborted at that progress call (to cancel after the n-th tile).
 * With `shards`, the run may fan out to `shards.threads` shards of `shards.task`, run here
 * in this thread, interleaved (the sharing of the work without the threads).
 */
import assert from "node:assert/strict";
import type { RunContext, TaskDefinition } from "../../src/tasks/types.js";

export function fakeRunContext<O>(dataDir: string, abortAt?: number, shards?: { task: TaskDefinition<O>; threads: number }) {
  const controller = new AbortController();
  const reports: Record<string, unknown> = {};
  const progress: number[] = [];
  /** The shard counts of each fanOut call. */
  const fannedOut: number[] = [];
  const ctx: RunContext = {
    signal: controller.signal,
    dataDir,
    progress: (p) => {
      progress.push(p);
      if (abortAt !== undefined && progress.length >= abortAt) controller.abort();
    },
    message: () => {},
    report: (k, v) => {
      reports[k] = v;
    },
    threads: shards?.threads ?? 1,
    fanOut: (count, payload) => {
      if (!shards) throw new Error("this fake run context cannot fan out");
      fannedOut.push(count);
      const signal = controller.signal;
      return Promise.all(
        Array.from({ length: count }, (_, index) => shards.task.runShard(payload, { index, count, signal, progress: () => {} })),
      );
    },
  };
  return { ctx, reports, progress, fannedOut };
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
