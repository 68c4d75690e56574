/**
 * A `strata worker` process's part of the queue: BullMQ workers on the job queue (parent
 * runs, parentRunner.ts) and on the shard queue (shardRunner.ts), the stop-key watch, and a
 * janitor for pending datasets that a lost machine left and nobody will clean up.
 */
import { hostname } from "node:os";
import { Queue, Worker } from "bullmq";
import { migrateJobs } from "../jobStore.js";
import type { RasterStore } from "../../store/rasterStore.js";
import { type ParentRunnerOptions, createParentRunner } from "./parentRunner.js";
import { JOB_QUEUE, LOCK_MS, MAX_STALLED, type ParentData, SHARD_QUEUE, STALLED_CHECK_MS, type ShardData, queueOptions } from "./queues.js";
import { createShardRunner } from "./shardRunner.js";
import { createStopWatch } from "./stopWatch.js";

/** What the parent runner takes (the worker makes its stop watch and shard queue), and the worker's own. */
export type QueueWorkerOptions = Pick<
  ParentRunnerOptions,
  "db" | "redis" | "workerModule" | "shardsPerJob" | "timeLimitMs" | "finalize" | "cleanup" | "log"
> & {
  store: RasterStore;
  /** Parent runs at once. */
  jobs: number;
  /** Of the parents' threads, how many start at once with the task module and readers loaded. */
  warmJobs?: number;
  /** Shards at once (each on a thread). */
  threads: number;
};

export interface QueueWorker {
  /** Stop taking work, stop what runs (its jobs go back to the queue), disconnect. */
  close(): Promise<void>;
}

/** Pending datasets older than the time limit plus this belong to no live run. */
const JANITOR_MARGIN_MS = 3600_000;
const JANITOR_EVERY_MS = 3600_000;

/**
 * @example
 * const worker = await startQueueWorker({ db, store, redis, workerModule, jobs: 2, threads: 2, shardsPerJob: 4, timeLimitMs, finalize, cleanup, log });
 * // ... on SIGTERM
 * await worker.close();
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const { redis, log } = options;
  await migrateJobs(options.db);
  const stops = createStopWatch(redis, log);
  const shardQueue = new Queue<ShardData>(SHARD_QUEUE, queueOptions(redis));
  shardQueue.on("error", (err) => log("The shard queue reported an error.", err));
  const { db, workerModule, shardsPerJob, timeLimitMs, finalize, cleanup } = options;
  const parents = createParentRunner({
    ...{ db, redis, workerModule, shardsPerJob, timeLimitMs, finalize, cleanup, log },
    stops,
    shards: shardQueue,
    concurrency: options.jobs,
    warm: options.warmJobs,
  });
  const shards = createShardRunner(stops, options.workerModule);
  // The name is what the queue records as the runner of each job ("processedBy"): machine and process.
  const locks = {
    lockDuration: LOCK_MS,
    stalledInterval: STALLED_CHECK_MS,
    maxStalledCount: MAX_STALLED,
    name: `${hostname()}:${process.pid}`,
  };
  const parentWorker = new Worker<ParentData>(JOB_QUEUE, (job) => parents.process(job), {
    ...queueOptions(redis),
    ...locks,
    concurrency: options.jobs,
  });
  const shardWorker = new Worker<ShardData>(SHARD_QUEUE, (job) => shards.process(job), {
    ...queueOptions(redis),
    ...locks,
    concurrency: options.threads,
  });
  for (const [name, worker] of [
    ["job", parentWorker],
    ["shard", shardWorker],
  ] as const) {
    worker.on("error", (err) => log(`The ${name} queue's worker reported an error.`, err));
  }
  // A parent BullMQ gave up on (lost too often, or a database out of reach three times): its record ends too.
  parentWorker.on("failed", (job, err) => {
    if (!job) return;
    job
      .getState()
      .then((state) => (state === "failed" ? parents.gaveUp(job.data.jobId, err.message) : undefined))
      .catch((e: unknown) => log(`Ending job ${job.data.jobId} after the queue gave up on it failed.`, e));
  });
  const janitor =
    options.timeLimitMs + JANITOR_MARGIN_MS < 2 ** 31
      ? setInterval(() => {
          options.store
            .sweepPending({ olderThanMs: options.timeLimitMs + JANITOR_MARGIN_MS })
            .catch((err: unknown) => log("Sweeping old pending datasets failed.", err));
        }, JANITOR_EVERY_MS).unref()
      : undefined;
  await Promise.all([parentWorker.waitUntilReady(), shardWorker.waitUntilReady()]);
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        clearInterval(janitor);
        // Take nothing more; what runs is stopped below (its locks lapse and other workers take it up).
        await Promise.all([parentWorker.close(true), shardWorker.close(true)]).catch((err: unknown) =>
          log("Closing the queue's workers failed.", err),
        );
        await Promise.all([parents.close(), shards.close()]);
        stops.close();
        await shardQueue.close().catch(() => undefined);
        redis.disconnect();
      })();
      return closing;
    },
  };
}
