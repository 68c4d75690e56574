/**
 * Fanning one job out over threads (TaskContext.fanOut): shard 0 runs on the job's own
 * worker thread, shards 1..count-1 each on a shard thread of the pool (shardPool.ts), kept
 * from one pass to the next. The first failure (or the job's cancellation) terminates the
 * other shards' threads; the call settles only once every shard has stopped, so nothing
 * still writes when the job cleans up.
 */
import type { ShardRun } from "./protocol.js";
import { runPooledShard } from "./shardPool.js";
import type { Json, RunShard } from "./types.js";

export interface FanOutOptions {
  readonly workerModule: string;
  readonly task: string;
  /** The job's signal: cancellation or the time limit. */
  readonly signal: AbortSignal;
  /** The job's progress, 0..100: the mean of the shards'. */
  progress(percentage: number): void;
  /** runShard of the task module, for shard 0. */
  loadRunShard(): Promise<RunShard>;
}

/**
 * @example
 * const results = await fanOut(4, { options, path }, { workerModule, task, signal, progress, loadRunShard });
 */
export async function fanOut(count: number, payload: Json, options: FanOutOptions): Promise<Json[]> {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`fanOut needs a whole number of shards >= 1; got ${count}`);
  options.signal.throwIfAborted();
  const controller = new AbortController();
  const stop = (): void => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", stop, { once: true });
  const fractions = new Float64Array(count);
  const report = (index: number, fraction: number): void => {
    fractions[index] = Math.min(1, Math.max(0, fraction));
    options.progress((100 * fractions.reduce((a, b) => a + b, 0)) / count);
  };
  let first: { error: unknown } | undefined;
  const watch = (p: Promise<Json>): Promise<Json> =>
    p.catch((error: unknown) => {
      first ??= { error };
      controller.abort(error);
      throw error;
    });
  try {
    const shards: Promise<Json>[] = [];
    for (let index = 1; index < count; index++) {
      const run: ShardRun = { workerModule: options.workerModule, task: options.task, payload, index, count };
      shards.push(watch(runPooledShard(run, controller.signal, (f) => report(index, f))));
    }
    const local = options
      .loadRunShard()
      .then((runShard) => runShard(options.task, payload, { index: 0, count, signal: controller.signal, progress: (f) => report(0, f) }));
    shards.unshift(watch(local));
    const settled = await Promise.allSettled(shards);
    if (first) throw options.signal.aborted ? (options.signal.reason ?? first.error) : first.error;
    return settled.map((s) => (s as PromiseFulfilledResult<Json>).value);
  } finally {
    options.signal.removeEventListener("abort", stop);
  }
}
