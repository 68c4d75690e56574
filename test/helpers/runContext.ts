/**
 * A task's RunContext as a worker would give it, recording progress and reports; with
 * `abortAt`, the signal is aborted at that progress call (to cancel after the n-th tile).
 */
import assert from "node:assert/strict";
import type { RunContext } from "../../src/tasks/types.js";

export function fakeRunContext(dataDir: string, abortAt?: number) {
  const controller = new AbortController();
  const reports: Record<string, unknown> = {};
  const progress: number[] = [];
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
  };
  return { ctx, reports, progress };
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
