/** Job statuses in words, which ones are over, and how long a job waited and ran. */
import type { JobInfo, JobStatus } from "../api/types.js";
import { formatDuration } from "../format.js";

const ACTIVE: ReadonlySet<JobStatus> = new Set([
  "esriJobNew",
  "esriJobSubmitted",
  "esriJobWaiting",
  "esriJobExecuting",
  "esriJobCancelling",
]);

export const isActive = (status: JobStatus) => ACTIVE.has(status);

const LABELS: Readonly<Record<JobStatus, string>> = {
  esriJobNew: "New",
  esriJobSubmitted: "Submitted",
  esriJobWaiting: "Waiting",
  esriJobExecuting: "Running",
  esriJobSucceeded: "Succeeded",
  esriJobFailed: "Failed",
  esriJobTimedOut: "Timed out",
  esriJobCancelling: "Cancelling",
  esriJobCancelled: "Cancelled",
  esriJobDeleting: "Deleting",
  esriJobDeleted: "Deleted",
};

export const statusLabel = (status: JobStatus) => LABELS[status] ?? status;

/** One job as the list shows it. */
export interface JobRow {
  task: string;
  jobId: string;
  status: JobStatus;
  submitted?: number;
  info?: JobInfo;
}

/** Under this, a wait is not worth telling apart from the run: the job just "took" its time. */
const NOTICEABLE_WAIT_MS = 1000;

/**
 * How long the job waited for a worker and ran, from the server's `submitted`, `started` and
 * `finished` (so the times survive a reload): "waited 4 s · ran 12 s", "took 12 s" (no
 * noticeable wait), "waiting for 3 s", "running for 8 s"; undefined when nothing is known yet.
 */
export function durationText(row: JobRow, now: number): string | undefined {
  const submitted = row.info?.submitted ?? row.submitted;
  const { started, finished } = row.info ?? {};
  if (submitted === undefined) return undefined;
  const active = isActive(row.status);
  const end = active ? now : finished;
  if (started === undefined) {
    if (active) return `waiting for ${formatDuration(now - submitted)}`;
    // Over without having run (cancelled while waiting): how long it was around.
    return end === undefined ? undefined : `took ${formatDuration(end - submitted)}`;
  }
  if (end === undefined) return undefined;
  const ran = `${active ? "running for" : "ran"} ${formatDuration(end - started)}`;
  if (started - submitted < NOTICEABLE_WAIT_MS) return active ? ran : `took ${formatDuration(end - submitted)}`;
  return `waited ${formatDuration(started - submitted)} · ${ran}`;
}

/**
 * What an active job is doing, in words: the server's progress message with its percentage
 * ("42% · Fitting LINEAR trends along StdTime for sst: pass 1 of 2"), or what its status means
 * while it has said nothing yet.
 */
export function progressText(row: JobRow): string {
  const { percentage, message } = row.info?.progress ?? {};
  if (message) return percentage === undefined ? message : `${Math.round(percentage)}% · ${message}`;
  if (row.status === "esriJobCancelling") return "Stopping…";
  if (row.status === "esriJobExecuting") return percentage === undefined ? "Starting…" : `${Math.round(percentage)}%`;
  return "Waiting for a free worker…";
}

/** The rows newest first. */
export const newestFirst = (a: JobRow, b: JobRow) => (b.submitted ?? 0) - (a.submitted ?? 0);
