/**
 * How a run becomes its job's final state, wherever the run was (a thread of the embedded
 * executor, jobs/executor.ts; a job thread of a queue worker, jobs/queue/parentRunner.ts):
 * a stop asked (time limit, cancel) decides first, then how the thread ended; a run that
 * finished is published by `finalize`; whatever does not succeed is cleaned up before the
 * status moves, and a cancel asked while the run was ending wins.
 */
import { NotFoundError } from "../cube/errors.js";
import type { MetadataDb } from "../store/metadataDb.js";
import { JobStateError } from "./errors.js";
import { describeError, errorMessage, timeLimitMessage, workerStoppedMessage } from "./jobMessages.js";
import { getJob, setProgress, updateStatus } from "./jobStore.js";
import type { Cleanup, CleanupReason } from "./recovery.js";
import type { JobMessage, JobRecord, JobStatus, JsonObject } from "./types.js";

/** How a run's thread ended. */
export type Outcome =
  { kind: "done"; output: unknown } | { kind: "failed"; message: string } | { kind: "crashed"; exitCode: number } | { kind: "terminated" };

/** How a run should end, before a concurrent cancel is taken into account. */
export interface Ending {
  status: JobStatus;
  message?: JobMessage;
  results?: JsonObject;
  reason?: CleanupReason;
  output?: unknown;
}

export interface EndingRules {
  db: MetadataDb;
  /** The time limit runs had (its message names it). */
  timeLimitMs: number;
  /** Publish a finished run's output; resolves to the job's results. A throw fails the job. */
  finalize(job: JobRecord, output: unknown): Promise<JsonObject>;
  /** Already guarded (guardCleanup): never throws. */
  cleanup: Cleanup;
  log(message: string, error?: unknown): void;
}

/** One run of job `jobId`, as it ended. */
export interface EndedRun {
  readonly jobId: string;
  /** Why it was stopped, if it was. */
  readonly stopping?: "cancel" | "timeout";
  /** Whether the record is still this run's (default: always; a queue's run checks its attempt). */
  readonly owns?: (job: JobRecord) => boolean;
}

/**
 * Move the job to how its run ended.
 * @example
 * await settleRun(rules, { jobId: job.id, stopping: run.stopping }, { kind: "done", output });
 */
export async function settleRun(rules: EndingRules, run: EndedRun, outcome: Outcome): Promise<void> {
  const output = outcome.kind === "done" ? outcome.output : undefined;
  const conclude = (planned: Ending): Promise<void> => concludeRun(rules, run, planned);
  if (run.stopping === "timeout") return conclude(timedOutEnding(rules.timeLimitMs, output));
  if (run.stopping === "cancel") return conclude({ status: "esriJobCancelled", reason: "cancelled", output });
  if (outcome.kind === "failed") return conclude({ status: "esriJobFailed", message: errorMessage(outcome.message), reason: "failed" });
  if (outcome.kind !== "done") {
    const exitCode = outcome.kind === "crashed" ? outcome.exitCode : 1;
    return conclude({ status: "esriJobFailed", message: workerStoppedMessage(exitCode), reason: "failed" });
  }
  const job = await getJob(rules.db, run.jobId);
  if (job?.status !== "esriJobExecuting" || !(run.owns?.(job) ?? true)) return conclude({ status: "esriJobSucceeded", output });
  let results: JsonObject;
  try {
    await setProgress(rules.db, job.id, { percentage: 100, message: "Publishing the output service" });
    results = await rules.finalize(job, output);
  } catch (err) {
    rules.log(`Finalizing job ${job.id} (${job.task}) failed.`, err);
    return conclude({ status: "esriJobFailed", message: errorMessage(describeError(err)), reason: "failed", output });
  }
  return conclude({ status: "esriJobSucceeded", results, output });
}

/** The ending of a run stopped at its time limit. */
export function timedOutEnding(timeLimitMs: number, output?: unknown): Ending {
  return { status: "esriJobTimedOut", message: timeLimitMessage(timeLimitMs), reason: "timedOut", output };
}

/**
 * Move the job to `planned`, cleaning up first; a cancel asked meanwhile wins, and a job no
 * longer running (or no longer the run's) is left as it is.
 * @example
 * await concludeRun(rules, { jobId }, timedOutEnding(rules.timeLimitMs));
 */
export async function concludeRun(rules: EndingRules, run: EndedRun, planned: Ending): Promise<void> {
  const { db, log } = rules;
  const id = run.jobId;
  const endingOf = (job: JobRecord | undefined): Ending | undefined =>
    job && (run.owns?.(job) ?? true) ? endingFor(job, planned) : undefined;
  let job = await getJob(db, id);
  let ending = endingOf(job);
  if (!job || !ending) return log(`Job ${id} was ${job?.status ?? "deleted"} when its run ended; left as it is.`);
  if (ending.reason) {
    // Before the status: if the process dies in between, recovery cleans up again.
    await rules.cleanup(job, ending.output, ending.reason);
    job = await getJob(db, id);
    ending = endingOf(job);
    if (!job || !ending) return;
  }
  try {
    await updateStatus(db, id, ending.status, { from: job.status, message: ending.message, results: ending.results });
  } catch (err) {
    if (!(err instanceof JobStateError || err instanceof NotFoundError)) throw err;
    log(`Job ${id} changed while its run was ending; left as it is.`, err);
  }
}

/**
 * `cleanup` that logs its failures instead of throwing them (a failed cleanup never keeps a
 * job from ending).
 * @example
 * const cleanup = guardCleanup(options.cleanup, log);
 */
export function guardCleanup(cleanup: Cleanup | undefined, log: (message: string, error?: unknown) => void): Cleanup {
  return async (job, output, reason) => {
    try {
      await cleanup?.(job, output, reason);
    } catch (err) {
      log(`Cleaning up after job ${job.id} (${reason}) failed.`, err);
    }
  };
}

/** A cancel asked while the run was ending wins; a job no longer running is left alone. */
function endingFor(job: JobRecord, planned: Ending): Ending | undefined {
  if (job.status === "esriJobCancelling") return { status: "esriJobCancelled", reason: "cancelled", output: planned.output };
  if (job.status === "esriJobExecuting" && planned.status !== "esriJobCancelled") return planned;
  return undefined;
}
