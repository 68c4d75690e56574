/**
 * What the main thread and a job worker say to each other over the worker's message port.
 * One run at a time per worker; every message names its job so late ones can be told apart.
 */
import type { JobMessageType, Json } from "./types.js";

/** workerData of a job worker. */
export interface JobWorkerData {
  /** URL (href) of the module exporting `runTask` (and `runShard` for jobs that fan out). */
  workerModule: string;
  /** The most threads one job may use (TaskContext.threads). */
  threadsPerJob: number;
  /**
   * Where `ctx.fanOut` sends shards: "threads" (default) to shard threads of this process,
   * "port" to the thread's owner, which sends them to other processes (jobs/queue/) and
   * answers with "fanOutProgress" and "fanOutDone" or "fanOutFailed".
   */
  fanOut?: "threads" | "port";
}

/** One shard for a shard thread (jobs/shardWorker.ts) to run. */
export interface ShardRun {
  workerModule: string;
  task: string;
  payload: Json;
  index: number;
  count: number;
}

/**
 * Pool (jobs/shardPool.ts) -> shard thread: run a shard (one at a time), or close what the
 * thread holds and exit.
 */
export type ToShard = ({ type: "run" } & ShardRun) | { type: "load"; workerModule: string } | { type: "release" };

/** Shard thread -> pool. A shard ends with exactly one "done" or "failed". */
export type FromShard =
  | { type: "progress"; fraction: number }
  | { type: "done"; result: Json }
  /** `message` is for the user; `stack` only for the server log. */
  | { type: "failed"; message: string; name: string; stack?: string };

/**
 * Main thread -> worker.
 *
 * @example
 * worker.postMessage({ type: "run", jobId, task: "echo", options: {} } satisfies ToWorker);
 */
export type ToWorker =
  | { type: "run"; jobId: string; task: string; options: Json }
  /** To a thread started ahead of its first job: load the task module now, and what its runs need (its `warmUp`). */
  | { type: "warm" }
  | { type: "cancel"; jobId: string }
  /** Answers to a "fanOut" request (JobWorkerData.fanOut "port"): the shards' mean progress, 0..100, and how they ended. */
  | { type: "fanOutProgress"; jobId: string; request: number; percentage: number }
  | { type: "fanOutDone"; jobId: string; request: number; results: Json[] }
  | { type: "fanOutFailed"; jobId: string; request: number; message: string };

/**
 * Worker -> main thread. A run ends with exactly one "done" or "failed".
 *
 * @example
 * port.postMessage({ type: "progress", jobId, percentage: 50 } satisfies FromWorker);
 */
export type FromWorker =
  | { type: "progress"; jobId: string; percentage: number; message?: string }
  | { type: "message"; jobId: string; messageType: JobMessageType; description: string }
  | { type: "report"; jobId: string; key: string; value: Json }
  | { type: "done"; jobId: string; output: unknown }
  /** `message` is for the user; `stack` only for the server log. */
  | { type: "failed"; jobId: string; message: string; stack?: string }
  /** Run shards 0..count-1 with `payload` elsewhere (JobWorkerData.fanOut "port"); `request` names the answers. */
  | { type: "fanOut"; jobId: string; request: number; count: number; payload: Json };
