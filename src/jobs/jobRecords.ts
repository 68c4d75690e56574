/**
 * What a job service does with the job records themselves, whoever runs the jobs (the
 * embedded executor's threads, or the workers of a queue): the jobs table made ready before
 * its first use, a submit's transaction, reads, the status moves of a cancel, and the
 * periodic purge of jobs finished longer ago than the retention.
 */
import { NotFoundError } from "../cube/errors.js";
import type { MetadataDatabase } from "../store/metadataDb.js";
import type { SubmitClaim } from "./executor.js";
import { type JobPage, type ListJobsQuery, createJob, expireFinished, getJob, listJobs, migrateJobs, updateStatus } from "./jobStore.js";
import type { JobRecord, JsonObject } from "./types.js";

// setTimeout cannot wait longer (about 24.8 days); a longer retention purges nothing by timer.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How a service takes a cancelled job out of its hands. */
export interface CancelHooks {
  /** The job had not started: take it off the queue (before its status moves to Cancelled). */
  dequeue(id: string): void | Promise<void>;
  /** The job is running: stop it (its status is Cancelling now; the run's ending makes it Cancelled). */
  stop(job: JobRecord): void | Promise<void>;
}

export interface JobRecords {
  /** Settles once the jobs table exists (every method waits for it). */
  readonly ready: Promise<void>;
  /** Create job and move it to esriJobWaiting, in one transaction with `claim.guard`. */
  create(task: string, owner: string, inputs: JsonObject, options: unknown, claim?: SubmitClaim): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | undefined>;
  list(query: ListJobsQuery): Promise<JobPage>;
  /** JobService.cancel's rules; NotFoundError if there is no such job. */
  cancel(id: string, hooks: CancelHooks): Promise<JobRecord>;
  /** Purge jobs finished longer ago than the retention (failures are logged). */
  expire(): Promise<void>;
  /** Stop the purge's timer. */
  close(): void;
}

/**
 * @example
 * const records = jobRecords(db, 7 * 86_400_000, log);
 * const job = await records.create("GenerateTrendRaster", "ana", inputs, options);
 * await records.cancel(job.id, { dequeue: (id) => drop(id), stop: (job) => stopRun(job.id) });
 */
export function jobRecords(db: MetadataDatabase, retentionMs: number, log: (message: string, error?: unknown) => void): JobRecords {
  const ready = migrateJobs(db);
  ready.catch((err: unknown) => log("Creating or upgrading the jobs table failed.", err));
  const expire = async (): Promise<void> => {
    try {
      await ready;
      await expireFinished(db, retentionMs);
    } catch (err) {
      log("Purging old jobs failed.", err);
    }
  };
  const timer =
    retentionMs < MAX_TIMER_MS ? setInterval(() => void expire(), Math.min(3600_000, Math.max(10, retentionMs / 2))).unref() : undefined;

  return {
    ready,
    async create(task, owner, inputs, options, claim = {}) {
      await ready;
      return db.transaction(async (tx) => {
        await claim.guard?.(tx);
        const job = await createJob(tx, { task, owner, inputs, options });
        return updateStatus(tx, job.id, "esriJobWaiting", { from: "esriJobSubmitted" });
      });
    },
    async get(id) {
      await ready;
      return getJob(db, id);
    },
    async list(query) {
      await ready;
      return listJobs(db, query);
    },
    async cancel(id, hooks) {
      await ready;
      const job = await getJob(db, id);
      if (!job) throw new NotFoundError(`No job ${JSON.stringify(id.length > 64 ? id.slice(0, 64) + "…" : id)}.`);
      switch (job.status) {
        case "esriJobSubmitted":
        case "esriJobWaiting": {
          await hooks.dequeue(id);
          await updateStatus(db, id, "esriJobCancelling", { from: job.status });
          return updateStatus(db, id, "esriJobCancelled", { from: "esriJobCancelling" });
        }
        case "esriJobExecuting": {
          const cancelling = await updateStatus(db, id, "esriJobCancelling", { from: job.status });
          await hooks.stop(cancelling);
          return cancelling;
        }
        default:
          return job;
      }
    },
    expire,
    close: () => clearInterval(timer),
  };
}
