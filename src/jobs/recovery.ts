/**
 * Restart rules of SPEC §2: after a crash or a shutdown no job is left executing forever.
 * A run that was interrupted is cleaned up, then queued again from the start (once) or failed.
 */
import type { MetadataDb } from "../store/metadataDb.js";
import { interruptedTooOftenMessage, restartedMessage, shutdownMessage } from "./jobMessages.js";
import { deleteJob, getJob, listJobsByStatus, updateStatus } from "./jobStore.js";
import type { JobRecord } from "./types.js";

/** Why `cleanup` is called. "interrupted": the run was cut short and will run again. */
export type CleanupReason = "failed" | "timedOut" | "cancelled" | "interrupted";

/** Undo what a run left behind (never throws: failures are logged by the caller's wrapper). */
export type Cleanup = (job: JobRecord, output: unknown, reason: CleanupReason) => Promise<void>;

/** A job interrupted by restarts this many times is failed rather than started again. */
export const MAX_INTERRUPTED_ATTEMPTS = 2;

/** What `recoverJobs` did, by job id. */
export interface RecoveryReport {
  /** To queue, in submission order (left Submitted or Waiting, or restarted). */
  queue: string[];
  /** Left Executing and queued again. */
  restarted: string[];
  /** Left Executing too often: failed. */
  failed: string[];
  /** Left Cancelling: now Cancelled. */
  cancelled: string[];
  /** Left Deleting: purged. */
  purged: string[];
}

export interface RecoverOptions {
  cleanup: Cleanup;
  log(message: string, error?: unknown): void;
  /** Jobs the running service already knows (queued or running): left alone. */
  skip?: ReadonlySet<string>;
}

/**
 * Bring every job a stopped server left unfinished to a status this server can carry on from.
 * Assumes no other server runs jobs from the same database.
 *
 * @example
 * const { queue } = await recoverJobs(db, { cleanup, log: console.error });
 * for (const id of queue) enqueue(id);
 */
export async function recoverJobs(db: MetadataDb, options: RecoverOptions): Promise<RecoveryReport> {
  const report: RecoveryReport = { queue: [], restarted: [], failed: [], cancelled: [], purged: [] };
  for (const job of await listUnfinishedJobs(db)) {
    if (options.skip?.has(job.id)) continue;
    try {
      await recoverJob(db, job, options.cleanup, report);
    } catch (err) {
      // Someone else moved it meanwhile (e.g. a cancel): theirs is the newer word.
      options.log(`Recovering job ${job.id} failed.`, err);
    }
  }
  return report;
}

/**
 * Every job not in a final status (Submitted, Waiting, Executing, Cancelling, Deleting): what
 * a restart must carry on from.
 * @example
 * for (const job of await listUnfinishedJobs(db)) console.log(job.id, job.status);
 */
export function listUnfinishedJobs(db: MetadataDb): Promise<JobRecord[]> {
  return listJobsByStatus(db, ["esriJobSubmitted", "esriJobWaiting", "esriJobExecuting", "esriJobCancelling", "esriJobDeleting"]);
}

async function recoverJob(db: MetadataDb, job: JobRecord, cleanup: Cleanup, report: RecoveryReport): Promise<void> {
  switch (job.status) {
    case "esriJobSubmitted":
      await updateStatus(db, job.id, "esriJobWaiting", { from: job.status });
      report.queue.push(job.id);
      break;
    case "esriJobWaiting":
      report.queue.push(job.id);
      break;
    case "esriJobExecuting":
      if (job.attempts < MAX_INTERRUPTED_ATTEMPTS) {
        await cleanup(job, undefined, "interrupted");
        await updateStatus(db, job.id, "esriJobWaiting", { from: job.status, message: restartedMessage() });
        report.queue.push(job.id);
        report.restarted.push(job.id);
      } else {
        await cleanup(job, undefined, "failed");
        await updateStatus(db, job.id, "esriJobFailed", { from: job.status, message: interruptedTooOftenMessage(job.attempts) });
        report.failed.push(job.id);
      }
      break;
    case "esriJobCancelling":
      await cleanup(job, undefined, "cancelled");
      await updateStatus(db, job.id, "esriJobCancelled", { from: job.status });
      report.cancelled.push(job.id);
      break;
    case "esriJobDeleting":
      await deleteJob(db, job.id);
      report.purged.push(job.id);
      break;
  }
}

/**
 * Hand a job whose run a shutdown stopped back to the queue (Waiting, to run again from the
 * start), or finish its cancellation. The attempt is not counted: the job did nothing wrong.
 * Call after its worker has been terminated.
 *
 * @example
 * await pool.retire(run.slot);
 * await handBackJob(db, run.job.id, cleanup);
 */
export async function handBackJob(db: MetadataDb, id: string, cleanup: Cleanup): Promise<void> {
  const job = await getJob(db, id);
  if (job?.status === "esriJobExecuting") {
    await cleanup(job, undefined, "interrupted");
    await updateStatus(db, id, "esriJobWaiting", { from: job.status, attempts: Math.max(0, job.attempts - 1), message: shutdownMessage() });
  } else if (job?.status === "esriJobCancelling") {
    await cleanup(job, undefined, "cancelled");
    await updateStatus(db, id, "esriJobCancelled", { from: job.status });
  }
}
