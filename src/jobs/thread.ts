/**
 * Starting one of the job service's thread entries (worker.ts, shardWorker.ts) from built JS
 * or from TypeScript sources.
 */
import { Worker } from "node:worker_threads";

/**
 * Start the entry `name` ("worker" or "shardWorker") of this folder as a worker thread.
 * Workers inherit the parent's execArgv by default, which is what we want; passing
 * `execArgv: process.execArgv` explicitly would make Node refuse flags such as
 * --max-old-space-size (ERR_WORKER_INVALID_EXEC_ARGV). From TypeScript sources (under tsx)
 * the thread registers tsx itself: on Node 20 the inherited `--import` loader is not applied
 * to worker threads ("Unknown file extension .ts").
 * @example
 * const worker = startThread("shardWorker", { workerModule, task, payload, index: 1, count: 2 });
 */
export function startThread(name: "worker" | "shardWorker", workerData: unknown): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL(`./${name}.js`, import.meta.url), { workerData });
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, import.meta.url).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData });
}
