/** Job statuses in words, which ones are over, and how long a job took. */
import type { JobInfo, JobStatus } from "../api/types.js";

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
  /** When this page first saw the job finished (the server does not say when it finished). */
  finishedSeen?: number;
}

/** Milliseconds the job has run (so far, or in all), when it can be told. */
export function elapsed(row: JobRow, now: number): number | undefined {
  const start = row.info?.started ?? row.info?.submitted ?? row.submitted;
  if (start === undefined) return undefined;
  if (isActive(row.status)) return now - start;
  const end = row.info?.finished ?? row.finishedSeen;
  return end === undefined ? undefined : end - start;
}

/** The rows newest first. */
export const newestFirst = (a: JobRow, b: JobRow) => (b.submitted ?? 0) - (a.submitted ?? 0);
