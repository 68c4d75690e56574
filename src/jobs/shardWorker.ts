/**
 * The entry of a shard thread (started by shardPool.ts, never imported): runs shard after
 * shard as the pool sends them, each with the `runShard` of the task module it names
 * (imported once, or ahead of the first on "load"), posting its progress and its result or
 * failure. On "release" it lets the modules close what they kept between shards (their
 * `releaseShards`), then exits.
 * Cancellation is termination: a shard only writes into a pending dataset, which is
 * discarded with the job.
 */
import { parentPort } from "node:worker_threads";
import { describeError } from "./jobMessages.js";
import type { FromShard, ShardRun, ToShard } from "./protocol.js";
import type { ReleaseShards, RunShard } from "./types.js";

// The job's progress is the mean of its shards'; a few posts a second are plenty.
const PROGRESS_INTERVAL_MS = 100;

if (!parentPort) throw new Error("src/jobs/shardWorker.ts runs as a worker thread; it is not a module to import.");
const port = parentPort;
const post = (message: FromShard): void => port.postMessage(message);

interface ShardModule {
  runShard: RunShard;
  releaseShards?: ReleaseShards;
}
const modules = new Map<string, Promise<ShardModule>>();

function load(workerModule: string): Promise<ShardModule> {
  let loading = modules.get(workerModule);
  if (!loading) {
    loading = import(workerModule).then((mod: { runShard?: unknown; releaseShards?: unknown }) => {
      if (typeof mod.runShard !== "function") throw new Error(`${workerModule} exports no runShard function.`);
      return mod as ShardModule;
    });
    // A module that failed to load is tried again by the next shard.
    void loading.catch(() => modules.delete(workerModule));
    modules.set(workerModule, loading);
  }
  return loading;
}

async function run({ workerModule, task, payload, index, count }: ShardRun): Promise<void> {
  let last = 0;
  try {
    const { runShard } = await load(workerModule);
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
}

async function release(): Promise<never> {
  for (const loading of modules.values()) {
    const mod = await loading.catch(() => undefined);
    await mod?.releaseShards?.().catch(() => undefined);
  }
  // Ends this thread only; open handles of the readers must not keep it alive.
  process.exit(0);
}

port.on("message", (message: ToShard) => {
  if (message.type === "run") void run(message);
  // Loaded ahead of its first shard (warmShardThreads); a failure is the first shard's to report.
  else if (message.type === "load") load(message.workerModule).catch(() => undefined);
  else void release();
});
