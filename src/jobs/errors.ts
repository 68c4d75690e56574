/**
 * Errors of the job service that callers branch on (http/ maps them like any StrataError).
 */
import { StrataError } from "../cube/errors.js";
import type { JobStatus } from "./types.js";

/**
 * A job cannot make the asked status change: SPEC §2 forbids it, or another actor moved the
 * job first (the status it was read with is no longer the stored one).
 *
 * @example
 * try {
 *   deleteJob(db, id);
 * } catch (err) {
 *   if (err instanceof JobStateError) reply400(err.message);
 * }
 */
export class JobStateError extends StrataError {
  readonly from: JobStatus;
  readonly to: JobStatus;
  constructor(message: string, from: JobStatus, to: JobStatus) {
    super(message);
    this.from = from;
    this.to = to;
  }
}

/**
 * The service is shutting down and takes no new jobs.
 *
 * @example
 * if (err instanceof JobServiceClosedError) reply503();
 */
export class JobServiceClosedError extends StrataError {}
