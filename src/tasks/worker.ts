/**
 * The module job workers import (see jobs/executor.ts): runs a task's `run` inside a
 * worker thread with the job's context, and its `runShard` on the threads a run fans out
 * to. Never imports http/.
 */
import { chunkEncoder } from "../io/chunkEncoder.js";
import { warmReaders } from "../io/open.js";
import type { Json, ShardContext, TaskContext } from "../jobs/types.js";
import { directorySizeBlocking } from "../store/diskUsage.js";
import { openRasterStore } from "../store/rasterStore.js";
import { closeKeptInput } from "./inputCache.js";
import { type JobOptions, TASKS } from "./registry.js";
import type { RunOutput } from "./types.js";

export async function runTask(task: string, options: Json, ctx: TaskContext): Promise<RunOutput> {
  const definition = TASKS.get(task);
  if (!definition) throw new Error(`This server has no task ${task}.`);
  const { dataDir, task: taskOptions } = options as unknown as JobOptions;
  const output = await definition.run(taskOptions, {
    signal: ctx.signal,
    dataDir,
    progress: (p, m) => ctx.progress(p, m),
    message: (type, description) => ctx.message(type, description),
    report: (key, value) => ctx.report(key, value as Json),
    threads: ctx.threads,
    localShards: ctx.localShards,
    fanOut: (count, payload, span) => ctx.fanOut(count, payload as Json, span),
    warmShards: ctx.warmShards?.bind(ctx),
  });
  // What publishing records for quotas, measured here where blocking holds up nobody: on the
  // main thread it was the walk of thousands of files between the run's end and Succeeded.
  const store = await openRasterStore(dataDir, { sweep: false });
  return { ...output, bytes: await directorySizeBlocking(await store.resolve(output.datasetId)) };
}

export async function runShard(task: string, payload: Json, ctx: ShardContext): Promise<Json> {
  const definition = TASKS.get(task);
  if (!definition) throw new Error(`This server has no task ${task}.`);
  return (await definition.runShard(payload, ctx)) as Json;
}

/** A job thread started ahead of its first job: load what runs open their inputs with (the readers) and start its chunk encoder. */
export async function warmUp(): Promise<void> {
  chunkEncoder();
  await warmReaders();
}

/** Before a shard thread exits: close the input its last shard kept open. */
export async function releaseShards(): Promise<void> {
  await closeKeptInput();
}
