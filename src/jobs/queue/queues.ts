/**
 * What API nodes and workers agree on in Redis: the two BullMQ queues (a job's parent run,
 * and the shards of its passes), what their jobs carry, how long Redis keeps them, and the
 * stop keys through which a cancel or a time limit reaches every process working on a job.
 */
import type { JobsOptions, QueueOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { Json } from "../types.js";

/** BullMQ's key prefix for Strata's queues. */
export const QUEUE_PREFIX = "strata";
/** Parent runs: open the input, plan, merge between passes, commit, publish. */
export const JOB_QUEUE = "jobs";
/** One shard of one pass of a job (TaskContext.fanOut), run with the task module's runShard. */
export const SHARD_QUEUE = "shards";

/** A parent run: the job's record lives in the metadata database, under the same id. */
export interface ParentData {
  readonly jobId: string;
}

/** One shard: `runShard(task, payload, { index, count })` for attempt `attempt` of job `jobId`. */
export interface ShardData {
  readonly jobId: string;
  /** The job record's attempt the shard belongs to (a restarted run's shards are new ones). */
  readonly attempt: number;
  /** Which fan-out of the attempt (its passes fan out one after the other). */
  readonly request: number;
  readonly task: string;
  readonly payload: Json;
  readonly index: number;
  readonly count: number;
}

/** How many times a shard is tried before its failure fails the job. */
export const SHARD_ATTEMPTS = 3;
/**
 * A lock not renewed for this long marks a run stalled (its worker is gone), and the stalled
 * check runs this often: a lost worker's run starts again elsewhere within about their sum.
 * Runs work on threads, so the event loop renewing the locks is never busy for long.
 */
export const LOCK_MS = 10_000;
export const STALLED_CHECK_MS = 5_000;
/** A parent or shard found stalled more often than this fails (a run that kills its worker). */
export const MAX_STALLED = 2;
/** How often a worker looks at the stop keys of what it runs. */
export const STOP_POLL_MS = 500;

/** `connection` for every queue, worker and producer (BullMQ duplicates it where it blocks). */
export function queueOptions(redis: Redis): QueueOptions {
  return { connection: redis, prefix: QUEUE_PREFIX };
}

/** Parent runs: a failure is the job's (recorded by the runner); tries here are for a lost database. */
export function parentJobOptions(jobId: string): JobsOptions {
  return {
    jobId,
    attempts: 3,
    backoff: { type: "exponential", delay: 2000 },
    removeOnComplete: true,
    removeOnFail: { age: 24 * 3600 },
  };
}

/** Shards: retried with backoff; kept an hour after they end so the parent can read how. */
export function shardJobOptions(id: string): JobsOptions {
  return {
    jobId: id,
    attempts: SHARD_ATTEMPTS,
    backoff: { type: "exponential", delay: 1000 },
    removeOnComplete: { age: 3600 },
    removeOnFail: { age: 3600 },
  };
}

/** The queue id of shard `index` of fan-out `request` of `attempt` (BullMQ ids may not hold ':'). */
export function shardJobId(jobId: string, attempt: number, request: number, index: number): string {
  return `${jobId}-${attempt}-${request}-${index}`;
}

/** Why work on a job stops: the job's own end, or one attempt (or one fan-out of it) superseded. */
export type StopReason = "cancel" | "timeout" | "superseded" | "failed";

/** Keys whose presence stops work: the job's, its attempt's, and one fan-out's. */
export function stopKeys(jobId: string, attempt?: number, request?: number): string[] {
  const keys = [`${QUEUE_PREFIX}:stop:${jobId}`];
  if (attempt !== undefined) keys.push(`${QUEUE_PREFIX}:stop:${jobId}:${attempt}`);
  if (attempt !== undefined && request !== undefined) keys.push(`${QUEUE_PREFIX}:stop:${jobId}:${attempt}:${request}`);
  return keys;
}

/** Stop keys outlive any run they could stop. */
const STOP_TTL_S = 7 * 24 * 3600;

/**
 * Ask every process working on job `jobId` (or only on one attempt, or one fan-out of it) to
 * stop; the first reason given stays.
 * @example
 * await requestStop(redis, "cancel", job.id);
 */
export async function requestStop(redis: Redis, reason: StopReason, jobId: string, attempt?: number, request?: number): Promise<void> {
  const keys = stopKeys(jobId, attempt, request);
  await redis.set(keys[keys.length - 1], reason, "EX", STOP_TTL_S, "NX");
}
