/**
 * One shard of a queued job, in a `strata worker` process: the task module's runShard on a
 * pooled shard thread (jobs/shardPool.ts, as a job fanned out over threads runs it; a thread
 * keeps the job's opened input for its next shard),
 * its progress written to the BullMQ job for the parent to read, stopped (the thread
 * terminated) when a stop key of its job, attempt or fan-out appears. A shard only writes
 * whole chunks and scratch files of the job's pending dataset, each to the same place with
 * the same bytes whatever runs it, so BullMQ may run it again after a loss or a failure.
 */
import { type Job, UnrecoverableError } from "bullmq";
import { describeError } from "../jobMessages.js";
import type { ShardRun } from "../protocol.js";
import { releaseIdleShardThreads, runPooledShard } from "../shardPool.js";
import type { Json } from "../types.js";
import { type ShardData, stopKeys } from "./queues.js";
import type { StopWatch } from "./stopWatch.js";

/** The parent reads progress a few times a second; writing it more often is waste. */
const PROGRESS_INTERVAL_MS = 250;

/** The message of a shard stopped by its job's stop key (not retried). */
export const STOPPED_MESSAGE = "The job was stopped.";

export interface ShardRunner {
  /** The BullMQ processor of the shard queue. */
  process(bull: Job<ShardData>): Promise<Json>;
  /** Terminate every running shard's thread (their jobs are taken up again elsewhere once their locks expire), release the idle ones. */
  close(): Promise<void>;
}

/**
 * @example
 * const shards = createShardRunner(stops, workerModule);
 * new Worker(SHARD_QUEUE, (job) => shards.process(job), { ...queueOptions(redis), concurrency: 2 });
 */
export function createShardRunner(stops: StopWatch, workerModule: URL): ShardRunner {
  const running = new Map<AbortController, Promise<unknown>>();
  let closing = false;
  return {
    async process(bull) {
      const { jobId, attempt, request, task, payload, index, count } = bull.data;
      const keys = stopKeys(jobId, attempt, request);
      if (closing) throw new Error("This worker is stopping.");
      if (await stops.check(keys)) throw new UnrecoverableError(STOPPED_MESSAGE);
      const controller = new AbortController();
      const unwatch = stops.watch(keys, (reason) => controller.abort(reason));
      let last = 0;
      const progress = (fraction: number): void => {
        const now = Date.now();
        if (now - last < PROGRESS_INTERVAL_MS && fraction < 1) return;
        last = now;
        bull.updateProgress(fraction).catch(() => undefined);
      };
      const run: ShardRun = { workerModule: workerModule.href, task, payload, index, count };
      const result = runPooledShard(run, controller.signal, progress);
      running.set(
        controller,
        result.catch(() => undefined),
      );
      try {
        return await result;
      } catch (err) {
        if (controller.signal.aborted && !closing) throw new UnrecoverableError(STOPPED_MESSAGE);
        // The user reads this through the parent: a message, never a stack.
        throw new Error(describeError(err), { cause: err });
      } finally {
        unwatch();
        running.delete(controller);
      }
    },
    async close() {
      closing = true;
      const stopping = [...running];
      for (const [controller] of stopping) controller.abort(new Error("This worker is stopping."));
      await Promise.all(stopping.map(([, settled]) => settled));
      await releaseIdleShardThreads();
    },
  };
}
