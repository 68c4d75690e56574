/**
 * The entry of a shard thread (started by fanOut.ts, never imported): imports the task
 * module, runs the one shard named in workerData with `runShard`, posts its progress and its
 * result or failure, and waits to be terminated. Cancellation is termination: a shard only
 * writes into a pending dataset, which is discarded with the job.
 */
import { parentPort, workerData } from "node:worker_threads";
import { describeError } from "./jobMessages.js";
import type { FromShard, ShardWorkerData } from "./protocol.js";

// The job's progress is the mean of its shards'; a few posts a second are plenty.
const PROGRESS_INTERVAL_MS = 100;

if (!parentPort) throw new Error("src/jobs/shardWorker.ts runs as a worker thread; it is not a module to import.");
const port = parentPort;
const { workerModule, task, payload, index, count } = workerData as ShardWorkerData;
const post = (message: FromShard): void => port.postMessage(message);

let last = 0;
try {
  const mod = (await import(workerModule)) as { runShard?: unknown };
  if (typeof mod.runShard !== "function") throw new Error(`${workerModule} exports no runShard function.`);
  const runShard = mod.runShard as import("./types.js").RunShard;
  const result = await runShard(task, payload, {
    index,
    count,
    signal: new AbortController().signal,
    progress(fraction) {
      const now = Date.now();
      if (now - last < PROGRESS_INTERVAL_MS && fraction < 1) return;
      last = now;
      post({ type: "progress", fraction });
    },
  });
  post({ type: "done", result });
} catch (err) {
  post({
    type: "failed",
    message: describeError(err),
    name: err instanceof Error ? err.name : "Error",
    stack: err instanceof Error ? err.stack : String(err),
  });
}
