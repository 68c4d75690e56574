/**
 * Starting a module of this code base as a worker thread, from built JS or from TypeScript
 * sources (the job service's workers, jobs/thread.ts).
 */
import { Worker } from "node:worker_threads";

/**
 * Start the module `name` next to `base` (a caller's import.meta.url) as a worker thread.
 * Workers inherit the parent's execArgv by default, which is what we want; passing
 * `execArgv: process.execArgv` explicitly would make Node refuse flags such as
 * --max-old-space-size (ERR_WORKER_INVALID_EXEC_ARGV). From TypeScript sources (under tsx)
 * the thread registers tsx itself: on Node 20 the inherited `--import` loader is not applied
 * to worker threads ("Unknown file extension .ts").
 * @example
 * const worker = startModuleThread(import.meta.url, "worker", { workerModule });
 */
export function startModuleThread(base: string, name: string, workerData: unknown): Worker {
  if (!base.endsWith(".ts")) return new Worker(new URL(`./${name}.js`, base), { workerData });
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, base).href;
  // Registered after tsx, so it runs first: h5wasm loads as it is on disk (scripts/tsxPassThrough.mjs).
  const passThrough = new URL("../../scripts/tsxPassThrough.mjs", import.meta.url).href;
  const boot =
    `import("node:module").then((m) => import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); ` +
    `m.register(${JSON.stringify(passThrough)}); return import(${JSON.stringify(entry)}); }));`;
  return new Worker(boot, { eval: true, workerData });
}
