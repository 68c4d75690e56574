/**
 * The job state machine of SPEC §2, the ONE place that decides which status changes are
 * allowed and what else changes with the status (timestamps, progress, attempts).
 */
import { JobStateError } from "./errors.js";
import type { JobProgress, JobRecord, JobStatus, JsonObject } from "./types.js";

const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  esriJobSubmitted: ["esriJobWaiting", "esriJobCancelling"],
  esriJobWaiting: ["esriJobExecuting", "esriJobCancelling"],
  // -> Waiting is the restart rule: an interrupted run goes back to the queue, to run again
  // from the start.
  esriJobExecuting: ["esriJobSucceeded", "esriJobFailed", "esriJobTimedOut", "esriJobCancelling", "esriJobWaiting"],
  esriJobCancelling: ["esriJobCancelled"],
  esriJobSucceeded: ["esriJobDeleting"],
  esriJobFailed: ["esriJobDeleting"],
  esriJobTimedOut: ["esriJobDeleting"],
  esriJobCancelled: ["esriJobDeleting"],
  esriJobDeleting: ["esriJobDeleted"],
  esriJobDeleted: [],
};

/** Statuses a job never leaves except to be deleted. */
export const TERMINAL_STATUSES: readonly JobStatus[] = ["esriJobSucceeded", "esriJobFailed", "esriJobTimedOut", "esriJobCancelled"];

/**
 * @example
 * isTerminal("esriJobFailed"); // true
 * isTerminal("esriJobCancelling"); // false
 */
export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * Whether SPEC §2 lets a job go from `from` to `to`.
 *
 * @example
 * canTransition("esriJobWaiting", "esriJobExecuting"); // true
 * canTransition("esriJobSucceeded", "esriJobExecuting"); // false
 */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * Throw a JobStateError unless `from -> to` is allowed.
 *
 * @example
 * assertTransition(job.status, "esriJobCancelling");
 */
export function assertTransition(from: JobStatus, to: JobStatus, jobId?: string): void {
  if (canTransition(from, to)) return;
  const subject = jobId === undefined ? "A job" : `Job ${jobId}`;
  throw new JobStateError(`${subject} that is ${from} cannot become ${to}.`, from, to);
}

/** The fields that change with a status change. `undefined` clears a field. */
export interface StatusChange {
  status: JobStatus;
  started: number | undefined;
  finished: number | undefined;
  progress: JobProgress | undefined;
  attempts: number;
  reports: JsonObject;
}

/**
 * Check `job.status -> to` and compute what changes with it. Every status change goes through
 * here (jobStore.updateStatus applies the result).
 *
 * @example
 * const change = statusChange(job, "esriJobExecuting", Date.now());
 * // change.started is now, change.attempts is job.attempts + 1, reports start empty
 */
export function statusChange(job: JobRecord, to: JobStatus, now: number): StatusChange {
  assertTransition(job.status, to, job.id);
  const change: StatusChange = {
    status: to,
    started: job.started,
    finished: job.finished,
    // Progress describes a run in flight; a stopping run keeps its last word.
    progress: to === "esriJobCancelling" ? job.progress : undefined,
    attempts: job.attempts,
    reports: job.reports,
  };
  if (to === "esriJobExecuting") {
    // A fresh attempt: what the last one reported was cleaned up before it was queued again.
    change.started = now;
    change.attempts = job.attempts + 1;
    change.reports = {};
  } else if (to === "esriJobWaiting") {
    change.started = undefined;
  }
  if (isTerminal(to)) change.finished = now;
  return change;
}
