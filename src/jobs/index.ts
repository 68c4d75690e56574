/**
 * The job service (SPEC §2): records, state machine, queue, worker-thread executor, restart
 * recovery. http/ and cli/ import from here.
 *
 * @example
 * import { createJobService } from "../jobs/index.js";
 * const jobs = createJobService({ db, workerModule: new URL("../tasks/runTask.js", import.meta.url) });
 * await jobs.recover();
 */
export * from "./types.js";
export * from "./errors.js";
export { TERMINAL_STATUSES, assertTransition, canTransition, isTerminal } from "./stateMachine.js";
export { isJobId } from "./jobId.js";
export {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  deleteJob,
  expireFinished,
  getJob,
  listJobs,
  migrateJobs,
  type JobPage,
  type ListJobsQuery,
} from "./jobStore.js";
export {
  DEFAULT_CANCEL_GRACE_MS,
  DEFAULT_RETENTION_MS,
  DEFAULT_TIME_LIMIT_MS,
  createJobService,
  type CleanupReason,
  type JobService,
  type JobServiceOptions,
  type JobServiceStats,
  type SubmitClaim,
  type RecoveryReport,
} from "./executor.js";
