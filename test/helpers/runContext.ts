/**
 * A task's RunContext as a worker would give it, recording progress and reports; with
 * `abortAt`, the signal is aborted at that progress call (to cancel after the n-th tile).
 */
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
