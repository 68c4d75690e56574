/**
 * The parent run of a queued job, in a `strata worker` process: the job's task runs on a job
 * thread of this process (jobs/worker.ts with fanOut "port"), as it would on an API node's
 * threads, except that each pass's shards become jobs of the shard queue that any worker
 * runs (shardRunner.ts); this side waits for them, aggregates their progress and answers the
 * thread. The record moves through jobStore exactly as the embedded executor moves it, so any
 * API node reports it; a cancel or the time limit arrives through the stop keys.
 *
 * A parent found stalled (its worker died or lost Redis) is taken over by whichever worker
 * BullMQ hands it to next: what the lost run left is stopped and discarded and the job runs
 * again from the start, at most MAX_INTERRUPTED_ATTEMPTS times in all.
 */
import { setTimeout as delay } from "node:timers/promises";
import { type Job, Job as BullJob, type Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { MetadataDatabase } from "../../store/metadataDb.js";
import { JobStateError } from "../errors.js";
import { describeError, interruptedTooOftenMessage, restartedMessage } from "../jobMessages.js";
import { getJob, updateStatus } from "../jobStore.js";
import type { FromWorker, ToWorker } from "../protocol.js";
import { type Cleanup, MAX_INTERRUPTED_ATTEMPTS, handBackJob } from "../recovery.js";
import { type EndingRules, type Outcome, guardCleanup, settleRun } from "../runEnding.js";
import { type RunReports, runReports } from "../runReports.js";
import type { JobRecord, Json, JsonObject } from "../types.js";
import { type WorkerSlot, createWorkerPool } from "../workerPool.js";
import {
  MAX_STALLED,
  type ParentData,
  SHARD_ATTEMPTS,
  STOP_POLL_MS,
  type ShardData,
  type StopReason,
  requestStop,
  shardJobId,
  shardJobOptions,
  stopKeys,
} from "./queues.js";
import type { StopWatch } from "./stopWatch.js";

/**
 * How often a parent looks at its shards: a pass ends, on average, half of this after its
 * last shard (two Redis reads a shard each time).
 */
const SHARD_POLL_MS = 50;
/** How long a stopped parent thread may take before it is terminated (its shards stop first). */
const CANCEL_GRACE_MS = 15_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ParentRunnerOptions {
  db: MetadataDatabase;
  redis: Redis;
  stops: StopWatch;
  /** Where shards go. */
  shards: Queue<ShardData>;
  /** The module job threads import (tasks/worker). */
  workerModule: URL;
  /** Parent runs at once (the job threads of this process). */
  concurrency: number;
  /** Job threads started at once, the task module and readers loaded (see createWorkerPool's warm; default 0). */
  warm?: number;
  /** Shards each pass of a job splits into (TaskContext.threads). */
  shardsPerJob: number;
  timeLimitMs: number;
  finalize(job: JobRecord, output: unknown): Promise<JsonObject>;
  cleanup: Cleanup;
  log(message: string, error?: unknown): void;
}

export interface ParentRunner {
  /** The BullMQ processor of the job queue: settles once the job's record has its ending. */
  process(bull: Job<ParentData>): Promise<void>;
  /** BullMQ gave up on a parent (stalled or failed too often): end the job's record too. */
  gaveUp(jobId: string, reason: string): Promise<void>;
  /** Stop every run (threads terminated, jobs handed back to Waiting for another worker). */
  close(): Promise<void>;
}

interface Run {
  job: JobRecord;
  readonly attempt: number;
  readonly slot: WorkerSlot;
  stopping?: StopReason | "shutdown";
  limitTimer?: NodeJS.Timeout;
  graceTimer?: NodeJS.Timeout;
  unwatch(): void;
  /** The thread's progress, messages and reports, written in the order they came. */
  reports: RunReports;
  end(outcome: Outcome): void;
}

/**
 * @example
 * const parents = createParentRunner({ db, redis, stops, shards, workerModule, concurrency: 2, shardsPerJob: 4, timeLimitMs, finalize, cleanup, log });
 * new Worker(JOB_QUEUE, (job) => parents.process(job), { ...queueOptions(redis), concurrency: 2 });
 */
export function createParentRunner(options: ParentRunnerOptions): ParentRunner {
  const { db, redis, log } = options;
  const runs = new Map<WorkerSlot, Run>();
  /** Runs until their job has its ending (close waits for them). */
  const active = new Set<Promise<void>>();
  let closing = false;
  const cleanup: Cleanup = guardCleanup(options.cleanup, log);
  const rules: EndingRules = { db, timeLimitMs: options.timeLimitMs, finalize: options.finalize, cleanup, log };

  const pool = createWorkerPool({
    workerData: { workerModule: options.workerModule.href, threadsPerJob: options.shardsPerJob, fanOut: "port" },
    size: options.concurrency,
    warm: options.warm,
    log,
    onMessage: (slot, message) => {
      const run = runs.get(slot);
      if (run && run.job.id === message.jobId) onMessage(run, message);
    },
    onExit: (slot, exitCode, error) => {
      const run = runs.get(slot);
      log(`A job thread stopped unexpectedly (exit code ${exitCode})${run ? ` running job ${run.job.id}` : ""}.`, error);
      run?.end({ kind: "crashed", exitCode });
    },
  });

  function onMessage(run: Run, message: FromWorker): void {
    const id = run.job.id;
    if (run.reports.record(message)) return;
    switch (message.type) {
      case "fanOut":
        void fanOut(run, message.request, message.count, message.payload);
        break;
      case "done":
        run.end({ kind: "done", output: message.output });
        break;
      case "failed":
        if (!run.stopping) log(`Job ${id} (${run.job.task}) failed: ${message.message}`, message.stack);
        run.end({ kind: "failed", message: message.message });
        break;
    }
  }

  /** Shards 0..count-1 of one fan-out as jobs of the shard queue; the thread hears how they ended once all have stopped. */
  async function fanOut(run: Run, request: number, count: number, payload: Json): Promise<void> {
    const reply = (message: ToWorker): void => {
      if (!run.slot.retired) run.slot.worker.postMessage(message);
    };
    const id = run.job.id;
    try {
      const results = await runShards(run, request, count, payload, (percentage) =>
        reply({ type: "fanOutProgress", jobId: id, request, percentage }),
      );
      reply({ type: "fanOutDone", jobId: id, request, results });
    } catch (err) {
      reply({ type: "fanOutFailed", jobId: id, request, message: describeError(err) });
    }
  }

  async function runShards(
    run: Run,
    request: number,
    count: number,
    payload: Json,
    progress: (percentage: number) => void,
  ): Promise<Json[]> {
    const { id, task } = run.job;
    const ids = Array.from({ length: count }, (_, index) => shardJobId(id, run.attempt, request, index));
    await options.shards.addBulk(
      ids.map((shardId, index) => ({
        name: task,
        data: { jobId: id, attempt: run.attempt, request, task, payload, index, count },
        opts: shardJobOptions(shardId),
      })),
    );
    const fractions = new Float64Array(count);
    const results: Json[] = new Array<Json>(count).fill(null);
    const pending = new Set(ids.keys());
    let failure: string | undefined;
    let stopped = false;
    while (pending.size > 0) {
      await delay(SHARD_POLL_MS);
      for (const index of [...pending]) {
        // The state first: a job read before it completed would still lack its result.
        const state = await options.shards.getJobState(ids[index]);
        const shard = await BullJob.fromId<ShardData, Json>(options.shards, ids[index]);
        if (!shard || state === "unknown") {
          pending.delete(index);
          failure ??= "A part of the job left the queue before it ended.";
          continue;
        }
        if (typeof shard.progress === "number") fractions[index] = Math.min(1, Math.max(0, shard.progress));
        if (state === "completed") {
          results[index] = shard.returnvalue;
          fractions[index] = 1;
          pending.delete(index);
        } else if (state === "failed") {
          pending.delete(index);
          failure ??= shardFailure(shard.failedReason, shard.attemptsMade);
        }
      }
      progress((100 * fractions.reduce((a, b) => a + b, 0)) / count);
      if ((failure !== undefined || run.stopping) && !stopped) {
        // The others stop (running ones see the key within a poll; waiting ones are taken off the queue).
        stopped = true;
        failure ??= "The job was stopped.";
        await requestStop(redis, "failed", id, run.attempt, request);
        for (const index of [...pending]) if ((await options.shards.remove(ids[index])) === 1) pending.delete(index);
      }
    }
    if (failure !== undefined) throw new Error(failure);
    await Promise.all(ids.map((shardId) => options.shards.remove(shardId).catch(() => 0)));
    return results;
  }

  function stopRun(run: Run, why: StopReason | "shutdown"): void {
    if (run.stopping) return;
    run.stopping = why;
    clearTimeout(run.limitTimer);
    // The job's shards on every worker stop too (a cancel's key is set by the API node already).
    if (why === "timeout")
      requestStop(redis, "timeout", run.job.id).catch((err: unknown) => log(`Stopping job ${run.job.id} failed.`, err));
    run.slot.worker.postMessage({ type: "cancel", jobId: run.job.id } satisfies ToWorker);
    run.graceTimer = setTimeout(() => {
      log(`Job ${run.job.id} did not stop within ${CANCEL_GRACE_MS / 1000} s; terminating its thread.`);
      pool.retire(run.slot).catch((err: unknown) => log("Terminating a job thread failed.", err));
      run.end({ kind: "terminated" });
    }, CANCEL_GRACE_MS);
  }

  /** Run the job (Executing, attempt `job.attempts`) on a thread; resolves once it has its ending. */
  async function runJob(job: JobRecord): Promise<void> {
    const slot = pool.acquire();
    let end!: (outcome: Outcome) => void;
    const ended = new Promise<Outcome>((resolve) => (end = resolve));
    const run: Run = {
      job,
      attempt: job.attempts,
      slot,
      reports: runReports(db, job.id, log),
      unwatch: () => undefined,
      end: (outcome) => {
        if (runs.get(slot) !== run) return;
        runs.delete(slot);
        end(outcome);
      },
    };
    runs.set(slot, run);
    run.unwatch = options.stops.watch(stopKeys(job.id, run.attempt), (reason) => stopRun(run, reason));
    const left = (job.started ?? Date.now()) + options.timeLimitMs - Date.now();
    if (options.timeLimitMs < MAX_TIMER_MS) run.limitTimer = setTimeout(() => stopRun(run, "timeout"), Math.max(0, left));
    slot.worker.postMessage({ type: "run", jobId: job.id, task: job.task, options: job.options } satisfies ToWorker);
    const outcome = await ended;
    run.unwatch();
    clearTimeout(run.limitTimer);
    clearTimeout(run.graceTimer);
    if (!slot.retired) pool.release(slot);
    await run.reports.settled();
    await settle(run, outcome);
  }

  async function settle(run: Run, outcome: Outcome): Promise<void> {
    const id = run.job.id;
    // Another worker carries the job now (this run's worker lost it), or it goes back to the queue.
    if (run.stopping === "superseded") return;
    if (run.stopping === "shutdown") return handBackJob(db, id, cleanup);
    // The executor's rules; only the run's own attempt of the record is touched.
    const stopping = run.stopping === "failed" ? undefined : run.stopping;
    await settleRun(rules, { jobId: id, ...(stopping ? { stopping } : {}), owns: (job) => job.attempts === run.attempt }, outcome);
  }

  /** A job left Executing by a run that was lost: stop what remains of it, then run again or give up. */
  async function takeOver(job: JobRecord): Promise<JobRecord | undefined> {
    await requestStop(redis, "superseded", job.id, job.attempts);
    // Its shards still running elsewhere see the key and stop before their dataset is discarded.
    await delay(3 * STOP_POLL_MS);
    if (job.attempts >= MAX_INTERRUPTED_ATTEMPTS) {
      await cleanup(job, undefined, "failed");
      await updateStatus(db, job.id, "esriJobFailed", { from: job.status, message: interruptedTooOftenMessage(job.attempts) });
      return undefined;
    }
    await cleanup(job, undefined, "interrupted");
    return updateStatus(db, job.id, "esriJobWaiting", { from: job.status, message: restartedMessage() });
  }

  return {
    async process(bull) {
      if (closing) throw new Error("This worker is stopping.");
      const id = bull.data.jobId;
      let job = await getJob(db, id);
      if (!job) return;
      try {
        if (job.status === "esriJobSubmitted") job = await updateStatus(db, id, "esriJobWaiting", { from: job.status });
        if (job.status === "esriJobCancelling") {
          await cleanup(job, undefined, "cancelled");
          await updateStatus(db, id, "esriJobCancelled", { from: job.status });
          return;
        }
        if (job.status === "esriJobExecuting") {
          const taken = await takeOver(job);
          if (!taken) return;
          job = taken;
        }
        if (job.status !== "esriJobWaiting") return;
        job = await updateStatus(db, id, "esriJobExecuting", { from: "esriJobWaiting" });
      } catch (err) {
        // Cancelled (or taken) meanwhile: theirs is the newer word.
        if (err instanceof JobStateError) return;
        throw err;
      }
      const running = runJob(job);
      active.add(running);
      try {
        await running;
      } finally {
        active.delete(running);
      }
    },

    async gaveUp(jobId, reason) {
      const job = await getJob(db, jobId);
      if (!job) return;
      log(`The queue gave up on job ${jobId}: ${reason}`);
      try {
        if (job.status === "esriJobCancelling") {
          await cleanup(job, undefined, "cancelled");
          await updateStatus(db, jobId, "esriJobCancelled", { from: job.status });
        } else if (job.status === "esriJobExecuting" || job.status === "esriJobWaiting") {
          await cleanup(job, undefined, "failed");
          if (job.status === "esriJobWaiting") await updateStatus(db, jobId, "esriJobExecuting", { from: job.status });
          await updateStatus(db, jobId, "esriJobFailed", {
            from: "esriJobExecuting",
            message: interruptedTooOftenMessage(Math.max(1, job.attempts)),
          });
        }
      } catch (err) {
        if (!(err instanceof JobStateError)) throw err;
      }
    },

    async close() {
      closing = true;
      const stopping = [...runs.values()];
      for (const run of stopping) {
        run.stopping ??= "shutdown";
        clearTimeout(run.limitTimer);
        run.unwatch();
      }
      // Terminate first, so nothing writes behind the hand-back's cleanup.
      await Promise.all(stopping.map((run) => pool.retire(run.slot).catch((err: unknown) => log("Terminating a job thread failed.", err))));
      for (const run of stopping) run.end({ kind: "terminated" });
      await Promise.allSettled([...active]);
      await pool.close();
    },
  };
}

/** What the user reads when a shard failed for good. */
function shardFailure(reason: string | undefined, attempts: number): string {
  if (reason && /stalled more than allowable limit/i.test(reason))
    return `The workers running a part of the job were lost ${MAX_STALLED + 1} times, so the job did not finish. Submit it again; if it fails again, tell the administrator.`;
  const tries = attempts >= SHARD_ATTEMPTS ? ` (tried ${attempts} times)` : "";
  return `${reason && reason.trim() !== "" ? reason : "A part of the job failed without saying why."}${tries}`;
}
