/**
 * The job service: a FIFO queue in front of a pool of worker threads, at most one job per
 * worker. It owns the lifecycle of a run (start, progress, cancellation, time limit, crash)
 * and persists every step through jobStore, so a restarted server can carry on (recover()).
 * Tasks plug in through the worker module; what happens around a run in the main thread
 * (publishing, undoing) plugs in through `finalize` and `cleanup`.
 */
import { availableParallelism } from "node:os";
import type { MetadataDatabase, MetadataDb } from "../store/metadataDb.js";
import { JobServiceClosedError, JobStateError } from "./errors.js";
import { formatDuration, workerStartMessage } from "./jobMessages.js";
import { jobRecords } from "./jobRecords.js";
import { getJob, updateStatus, type JobPage, type ListJobsQuery } from "./jobStore.js";
import type { FromWorker, ToWorker } from "./protocol.js";
import { handBackJob, recoverJobs, type Cleanup, type RecoveryReport } from "./recovery.js";
import { type EndingRules, type Outcome, concludeRun, guardCleanup, settleRun, timedOutEnding } from "./runEnding.js";
import { type RunReports, runReports } from "./runReports.js";
import type { JobRecord, JsonObject } from "./types.js";
import { createWorkerPool, type WorkerSlot } from "./workerPool.js";

export type { CleanupReason, RecoveryReport } from "./recovery.js";
export { MAX_TASK_MESSAGES } from "./runReports.js";

export const DEFAULT_TIME_LIMIT_MS = 6 * 3600_000;
export const DEFAULT_CANCEL_GRACE_MS = 5000;
export const DEFAULT_RETENTION_MS = 7 * 24 * 3600_000;
// setTimeout cannot wait longer (about 24.8 days); a longer limit is no limit.
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface JobServiceOptions {
  /** The metadata database; the service creates or upgrades its `jobs` table before its first use of it. */
  db: MetadataDatabase;
  /** The module the workers import; it exports `runTask(task, options, ctx)` (see RunTask), and may export `warmUp()` (see warmWorkers). */
  workerModule: URL;
  /** Worker threads, and so jobs running at once (default os.availableParallelism()). */
  workers?: number;
  /** The most threads one job may fan out to (default os.availableParallelism()). */
  threadsPerJob?: number;
  /**
   * Workers started with the service, their task module loaded with what its runs need (its
   * `warmUp` export), so the first jobs do not wait for that (default 0: each starts with its first job).
   */
  warmWorkers?: number;
  /** A run longer than this is stopped and esriJobTimedOut (default 6 h; Infinity: none). */
  timeLimitMs?: number;
  /** How long a cancelled run may take to stop before its worker is terminated (default 5 s). */
  cancelGraceMs?: number;
  /** Finished jobs are purged this long after they finish (default 7 days; Infinity: never). */
  retentionMs?: number;
  /**
   * Runs in the main thread after a successful run, with what runTask returned; resolves to
   * the job's results (e.g. publish the image service, return {outputMultidimensionalRaster}).
   * If it throws, the job fails with the error's message. Default: the output if it is an object.
   */
  finalize?: (job: JobRecord, output: unknown) => Promise<JsonObject>;
  /**
   * Undo what a run left behind after failure, time-out, cancellation or interruption (e.g.
   * delete the pending dataset in `job.reports`). `output` is what runTask returned, when it
   * did return (finalize may then have run too). Errors are logged and otherwise ignored.
   */
  cleanup?: Cleanup;
  /** Where stacks and oddities go (default console.error). */
  log?: (message: string, error?: unknown) => void;
}

/**
 * What the service is doing right now: this process's queue and threads for the embedded
 * service; the whole cluster's for the queued one (what its BullMQ job queue holds, and the
 * worker processes taking from it).
 */
export interface JobServiceStats {
  /** Jobs waiting for a worker (with a queue: also those waiting to be tried again). */
  queued: number;
  /** Jobs running now. */
  running: number;
  /** Job threads started (embedded), or `strata worker` processes connected (with a queue). */
  workers: number;
}

export interface JobService {
  /**
   * Create a job and queue it; resolves to its record (esriJobWaiting). `options` must survive
   * JSON.stringify. JobServiceClosedError once close() has begun.
   */
  submit(task: string, owner: string, inputs: JsonObject, options: unknown, claim?: SubmitClaim): Promise<JobRecord>;
  /** The job as the database has it (whichever node runs it). */
  get(id: string): Promise<JobRecord | undefined>;
  list(query: ListJobsQuery): Promise<JobPage>;
  /**
   * Ask job `id` to stop. A queued job is esriJobCancelled at once; a running one is
   * esriJobCancelling until its worker stops. Finished jobs are returned as they are.
   * NotFoundError if there is no such job.
   */
  cancel(id: string): Promise<JobRecord>;
  /** Carry on from what a stopped server left (SPEC §2 restart rules). Call once at start. */
  recover(): Promise<RecoveryReport>;
  /** Stop taking jobs, hand running jobs back to the queue (Waiting) and stop the workers. */
  close(): Promise<void>;
  stats(): Promise<JobServiceStats>;
}

/** What else a submit checks in the transaction that creates the job. */
export interface SubmitClaim {
  /** Throws to refuse the job (e.g. its output's name is taken); sees the database as the job is created. */
  guard?: (tx: MetadataDb) => Promise<void>;
}

interface Run {
  job: JobRecord;
  slot: WorkerSlot;
  /** Why the run is being stopped, once it is. */
  stopping?: "cancel" | "timeout";
  limitTimer?: NodeJS.Timeout;
  graceTimer?: NodeJS.Timeout;
  /** The worker's progress, messages and reports, written in the order they came; settled before the run ends. */
  reports: RunReports;
}

/**
 * @example
 * const jobs = createJobService({
 *   db,
 *   workerModule: new URL("../tasks/runTask.js", import.meta.url),
 *   finalize: async (job, output) => ({ outputMultidimensionalRaster: await publish(job, output) }),
 *   cleanup: async (job) => { if (typeof job.reports.pendingDataset === "string") await dropPending(job.reports.pendingDataset); },
 * });
 * await jobs.recover();
 * const { id } = await jobs.submit("GenerateTrendRaster", "ana", inputs, options);
 * // ... later
 * await jobs.close();
 */
export function createJobService(options: JobServiceOptions): JobService {
  const { db } = options;
  const size = Math.max(1, Math.floor(options.workers ?? availableParallelism()));
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
  const graceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const log = options.log ?? defaultLog;
  const cleanup: Cleanup = guardCleanup(options.cleanup, log);
  const rules: EndingRules = { db, timeLimitMs, finalize: options.finalize ?? defaultFinalize, cleanup, log };
  /** The records: the jobs table (created or upgraded once, before any use), submit, reads, cancel, purge. */
  const records = jobRecords(db, retentionMs, log);

  const queue: string[] = [];
  const runs = new Map<string, Run>();
  const bySlot = new Map<WorkerSlot, Run>();
  /** Runs that ended and are being finalized or cleaned up, by job id. */
  const settling = new Map<string, Promise<void>>();
  /** Jobs being started (their status moving to Executing), by job id: each holds a worker's place. */
  const starting = new Map<string, Promise<void>>();
  /** Jobs cancelled while being started: stopped as soon as their run exists. */
  const cancelledWhileStarting = new Set<string>();
  let closing: Promise<void> | undefined;
  let pumpScheduled = false;

  const pool = createWorkerPool({
    workerData: {
      workerModule: options.workerModule.href,
      threadsPerJob: Math.max(1, Math.floor(options.threadsPerJob ?? availableParallelism())),
    },
    size,
    warm: options.warmWorkers ?? 0,
    log,
    onMessage: (slot, message) => {
      const run = bySlot.get(slot);
      if (run && run.job.id === message.jobId) onWorkerMessage(run, message);
    },
    onExit: (slot, exitCode, error) => {
      const run = bySlot.get(slot);
      log(`A job worker stopped unexpectedly (exit code ${exitCode})${run ? ` running job ${run.job.id}` : ""}.`, error);
      if (run) endRun(run, { kind: "crashed", exitCode });
    },
  });

  function onWorkerMessage(run: Run, message: FromWorker): void {
    const id = run.job.id;
    if (run.reports.record(message)) return;
    switch (message.type) {
      case "done":
        endRun(run, { kind: "done", output: message.output });
        break;
      case "failed":
        if (!run.stopping) log(`Job ${id} (${run.job.task}) failed: ${message.message}`, message.stack);
        endRun(run, { kind: "failed", message: message.message });
        break;
    }
  }

  function schedulePump(): void {
    if (pumpScheduled || closing) return;
    pumpScheduled = true;
    setImmediate(pump);
  }

  function pump(): void {
    pumpScheduled = false;
    while (!closing && queue.length > 0 && runs.size + starting.size < size) {
      const id = queue.shift() as string;
      const started: Promise<void> = start(id)
        .catch((err: unknown) => log(`Starting job ${id} failed.`, err))
        .finally(() => {
          starting.delete(id);
          cancelledWhileStarting.delete(id);
          schedulePump();
        });
      starting.set(id, started);
    }
  }

  async function start(id: string): Promise<void> {
    // Cancelled or deleted while it waited.
    if ((await getJob(db, id))?.status !== "esriJobWaiting" || closing) return;
    let slot: WorkerSlot;
    try {
      slot = pool.acquire();
    } catch (err) {
      log(`No worker could be started for job ${id}.`, err);
      await updateStatus(db, id, "esriJobExecuting", { from: "esriJobWaiting" });
      await updateStatus(db, id, "esriJobFailed", { from: "esriJobExecuting", message: workerStartMessage() });
      return;
    }
    let job: JobRecord;
    try {
      job = await updateStatus(db, id, "esriJobExecuting", { from: "esriJobWaiting" });
    } catch (err) {
      pool.release(slot);
      // Cancelled between the read and the move: nothing to run.
      if (err instanceof JobStateError) return;
      throw err;
    }
    const run: Run = { job, slot, reports: runReports(db, id, log) };
    runs.set(id, run);
    bySlot.set(slot, run);
    slot.worker.postMessage({ type: "run", jobId: id, task: job.task, options: job.options } satisfies ToWorker);
    if (timeLimitMs < MAX_TIMER_MS) run.limitTimer = setTimeout(() => stopRun(run, "timeout"), timeLimitMs);
    if (cancelledWhileStarting.has(id)) stopRun(run, "cancel");
  }

  /** Ask the worker to abort the run; terminate it if it has not stopped within the grace period. */
  function stopRun(run: Run, why: "cancel" | "timeout"): void {
    if (run.stopping || runs.get(run.job.id) !== run) return;
    run.stopping = why;
    clearTimeout(run.limitTimer);
    run.slot.worker.postMessage({ type: "cancel", jobId: run.job.id } satisfies ToWorker);
    run.graceTimer = setTimeout(() => {
      if (runs.get(run.job.id) !== run) return;
      log(`Job ${run.job.id} did not stop within ${formatDuration(graceMs)}; terminating its worker.`);
      // The pool forgets the worker at once, so the next job gets a fresh one.
      pool.retire(run.slot).catch((err: unknown) => log("Terminating a job worker failed.", err));
      endRun(run, { kind: "terminated" });
    }, graceMs);
  }

  /** The worker is done with the run (or gone): free the slot, then settle the job. */
  function endRun(run: Run, outcome: Outcome): void {
    const id = run.job.id;
    if (runs.get(id) !== run) return;
    runs.delete(id);
    bySlot.delete(run.slot);
    clearTimeout(run.limitTimer);
    clearTimeout(run.graceTimer);
    if (!run.slot.retired) pool.release(run.slot);
    const settled = settle(run, outcome)
      .catch((err: unknown) => log(`Settling job ${id} failed.`, err))
      .finally(() => settling.delete(id));
    settling.set(id, settled);
    schedulePump();
  }

  async function settle(run: Run, outcome: Outcome): Promise<void> {
    // What the worker reported (its pending dataset above all) is in the record before anything reads it.
    await run.reports.settled();
    const stopping = run.stopping;
    await settleRun(rules, { jobId: run.job.id, ...(stopping ? { stopping } : {}) }, outcome);
  }

  function enqueue(ids: readonly string[], front = false): void {
    if (front) queue.unshift(...ids);
    else queue.push(...ids);
    schedulePump();
  }

  const closedError = () => new JobServiceClosedError("The server is shutting down and takes no new jobs; submit the job again shortly.");

  return {
    async submit(task, owner, inputs, taskOptions, claim = {}) {
      if (closing) throw closedError();
      const waiting = await records.create(task, owner, inputs, taskOptions, claim);
      // Closed meanwhile: the job waits in the database for the next start (recover()).
      if (!closing) enqueue([waiting.id]);
      return waiting;
    },

    get: (id) => records.get(id),

    list: (query) => records.list(query),

    cancel: (id) =>
      records.cancel(id, {
        dequeue(id) {
          const at = queue.indexOf(id);
          if (at >= 0) queue.splice(at, 1);
        },
        stop(job) {
          // Not running here: finalizing (settle sees Cancelling) or left by a crash (recover() ends it).
          const run = runs.get(job.id);
          if (run) stopRun(run, "cancel");
          else if (starting.has(job.id)) cancelledWhileStarting.add(job.id);
        },
      }),

    async recover() {
      await records.ready;
      const known = new Set([...queue, ...runs.keys(), ...settling.keys()]);
      const report = await recoverJobs(db, { cleanup, log, skip: known });
      await records.expire();
      // They were submitted before anything queued since this service started.
      enqueue(report.queue, true);
      return report;
    },

    close() {
      closing ??= (async () => {
        records.close();
        queue.length = 0;
        // A start under way either has its run by now or gives up (it sees `closing`).
        while (starting.size > 0) await Promise.all(starting.values());
        const stopped = [...runs.values()];
        runs.clear();
        bySlot.clear();
        for (const run of stopped) {
          clearTimeout(run.limitTimer);
          clearTimeout(run.graceTimer);
        }
        // Terminate before cleaning up, so nothing writes behind the cleanup's back.
        await Promise.all(
          stopped.map((run) => pool.retire(run.slot).catch((err: unknown) => log("Terminating a job worker failed.", err))),
        );
        for (const run of stopped) {
          const id = run.job.id;
          // A run past its time limit is not worth another go.
          const ending =
            run.stopping === "timeout" ? concludeRun(rules, { jobId: id }, timedOutEnding(timeLimitMs)) : handBackJob(db, id, cleanup);
          await ending.catch((err: unknown) => log(`Ending job ${id} at shutdown failed.`, err));
        }
        while (settling.size > 0) await Promise.all(settling.values());
        await pool.close();
      })();
      return closing;
    },

    stats: async () => ({ queued: queue.length, running: runs.size, workers: pool.count() }),
  };
}

async function defaultFinalize(_job: JobRecord, output: unknown): Promise<JsonObject> {
  return output !== null && typeof output === "object" && !Array.isArray(output) ? (output as JsonObject) : {};
}

function defaultLog(message: string, error?: unknown): void {
  if (error === undefined) console.error(`[jobs] ${message}`);
  else console.error(`[jobs] ${message}`, error);
}
