/** Starting one of the job service's thread entries (worker.ts, shardWorker.ts). */
import type { Worker } from "node:worker_threads";
import { startModuleThread } from "../io/thread.js";

/**
 * Start the entry `name` of this folder as a worker thread (see io/thread.ts).
 * @example
 * const worker = startThread("shardWorker", undefined);
 */
export function startThread(name: "worker" | "shardWorker", workerData: unknown): Worker {
  return startModuleThread(import.meta.url, name, workerData);
}
