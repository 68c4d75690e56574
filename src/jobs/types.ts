/**
 * The shapes of the job service: statuses and records (SPEC §2), and the contract a task
 * module fulfils when it runs inside a worker thread.
 */

/** The ArcGIS job statuses, in the order a job usually meets them. */
export const JOB_STATUSES = [
  "esriJobSubmitted",
  "esriJobWaiting",
  "esriJobExecuting",
  "esriJobSucceeded",
  "esriJobFailed",
  "esriJobTimedOut",
  "esriJobCancelling",
  "esriJobCancelled",
  "esriJobDeleting",
  "esriJobDeleted",
] as const;

/**
 * One of the 10 ArcGIS job statuses.
 *
 * @example
 * const status: JobStatus = "esriJobExecuting";
 */
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The three ArcGIS message types. */
export type JobMessageType = "esriJobMessageTypeInformative" | "esriJobMessageTypeWarning" | "esriJobMessageTypeError";

/**
 * A message shown to the user with the job; `description` is written for them (no stack traces).
 *
 * @example
 * const m: JobMessage = { type: "esriJobMessageTypeError", description: "The input has no time dimension." };
 */
export interface JobMessage {
  type: JobMessageType;
  description: string;
}

/** What a running job last said about its progress (percentage 0..100). */
export interface JobProgress {
  percentage: number;
  message?: string;
}

/** A JSON value, as stored in the metadata database. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/**
 * A job as stored. Times are milliseconds since the epoch.
 *
 * @example
 * const job = getJob(db, id);
 * if (job?.status === "esriJobSucceeded") console.log(job.results);
 */
export interface JobRecord {
  /** "j" followed by 32 hex digits. */
  id: string;
  /** The task name, e.g. "GenerateMultidimensionalAnomaly". */
  task: string;
  /** The user who submitted it. */
  owner: string;
  status: JobStatus;
  /** The parameters as submitted, for the `inputs` endpoint (secrets removed by the caller). */
  inputs: JsonObject;
  /** The parsed task options handed to the runner (JSON). */
  options: Json;
  /** Set when the job succeeds; empty before. */
  results: JsonObject;
  messages: JobMessage[];
  /** Present while the job is executing (or being cancelled) once the task has reported some. */
  progress?: JobProgress;
  submitted: number;
  /** When the current (or last) attempt began executing. */
  started?: number;
  /** When the job reached a terminal status. */
  finished?: number;
  /** How many times the job has begun executing. */
  attempts: number;
  /**
   * What the worker reported with `ctx.report` during the current attempt (e.g. a pending
   * dataset id), kept durably so `cleanup` can undo it even after a crash of the server.
   */
  reports: JsonObject;
}

/**
 * What a task sees of the job service while it runs in a worker thread.
 *
 * @example
 * async function run(options: Options, ctx: TaskContext) {
 *   const pending = await store.begin();
 *   ctx.report("pendingDataset", pending.id);
 *   for (let i = 0; i < tiles.length; i++) {
 *     ctx.signal.throwIfAborted();
 *     await writeTile(pending, tiles[i], { signal: ctx.signal });
 *     ctx.progress((100 * (i + 1)) / tiles.length, `Tile ${i + 1} of ${tiles.length}`);
 *   }
 * }
 */
export interface TaskContext {
  readonly jobId: string;
  /** Aborted when the job is cancelled or passes its time limit: stop soon after. */
  readonly signal: AbortSignal;
  /** Report progress (0..100); frequent calls are fine, they are coalesced. */
  progress(percentage: number, message?: string): void;
  /** Add a message to the job, shown to the user. */
  message(type: JobMessageType, description: string): void;
  /** Record something the main thread must know to clean up if the run does not succeed. */
  report(key: string, value: Json): void;
  /** The most threads this job may use at once (the server's threads per job). */
  readonly threads: number;
  /**
   * Whether its shards run on this process's threads, beside the helper threads of its
   * streamed passes (OpenedInput.walk.streamed), which then take one thread per two of the
   * job's. Absent, every pass takes the threads it is given (shards in other processes, each
   * with its own helpers, as the queue's workers run them).
   */
  readonly localShards?: boolean;
  /**
   * Run shards 0..count-1 of this job's task at once, each on its own thread (shard 0 on
   * this one): every shard gets `payload` and its index (see RunShard). Resolves to their
   * results in index order; rejects with the first failure, once every shard has stopped.
   * Shards' progress becomes the job's progress, mapped into `span` (default [0, 100]) when
   * the run makes several passes.
   */
  fanOut(count: number, payload: Json, span?: readonly [number, number]): Promise<Json[]>;
  /** Threads for `count` shards of a later fanOut, started now, while this thread works (absent: they start with it). */
  warmShards?(count: number): void;
}

/** What one shard of a fanned-out job sees. */
export interface ShardContext {
  readonly index: number;
  readonly count: number;
  /** Aborted when the job is cancelled or another shard failed. */
  readonly signal: AbortSignal;
  /** This shard's progress, 0..1. */
  progress(fraction: number): void;
}

/**
 * What a worker module exports to run one shard of `task` (see TaskContext.fanOut); the
 * result must be JSON.
 */
export type RunShard = (task: string, payload: Json, ctx: ShardContext) => Promise<Json>;

/**
 * What a worker module may also export: close what its shards kept open between shards
 * (an opened input), called before a pooled shard thread exits (jobs/shardPool.ts).
 */
export type ReleaseShards = () => Promise<void>;

/**
 * What a worker module exports: run `task` with `options`; the value it returns (the
 * "output", structured-cloneable) goes to the service's `finalize` in the main thread.
 * Throw to fail the job: the error's message is shown to the user.
 *
 * @example
 * export const runTask: RunTask = async (task, options, ctx) => {
 *   if (task === "SubsetMultidimensionalRaster") return subset.run(options as SubsetOptions, ctx);
 *   throw new Error(`Unknown task ${task}.`);
 * };
 */
export type RunTask = (task: string, options: Json, ctx: TaskContext) => unknown;
