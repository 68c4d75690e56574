/**
 * Shard threads kept between shards (fanOut.ts, queue/shardRunner.ts): a shard takes an idle
 * thread or starts one, and gives it back when it ends, so the passes of a job (and a
 * worker's shards) pay for a thread's start, its module load and its opened input once, not
 * once per pass. A thread idle for IDLE_MS is released: told to close what it holds, then
 * it exits. Idle threads are unref'd, so a process with nothing else to do exits at once.
 * Cancelling a shard terminates its thread, which is then not given back; a thread that
 * crashes or exits is dropped, and the next shard starts a fresh one.
 */
import type { Worker } from "node:worker_threads";
import type { FromShard, ShardRun, ToShard } from "./protocol.js";
import { startThread } from "./thread.js";
import type { Json } from "./types.js";

/** Long enough to span the merge between two passes; short enough that idle threads' memory goes back soon. */
const IDLE_MS = 5000;
/** A released thread that has not exited by then (stuck closing) is terminated. */
const RELEASE_GRACE_MS = 10_000;

interface PooledThread {
  readonly worker: Worker;
  idleTimer?: NodeJS.Timeout;
  /** Gone: exited, crashed, terminated or released; never handed out again. */
  gone: boolean;
}

const idle: PooledThread[] = [];
let started = 0;

/** How many shard threads this thread's pool has started (for tests). */
export function shardThreadsStarted(): number {
  return started;
}

/** How many of them wait idle (for tests). */
export function idleShardThreads(): number {
  return idle.length;
}

/**
 * Run one shard on a pooled thread. Settles when the shard has ended: at its result or
 * failure (the thread goes back to the pool), or, when `signal` aborts, once the terminated
 * thread has exited.
 * @example
 * const result = await runPooledShard({ workerModule, task, payload, index: 1, count: 2 }, signal, (f) => report(1, f));
 */
export function runPooledShard(run: ShardRun, signal: AbortSignal, progress: (fraction: number) => void): Promise<Json> {
  if (signal.aborted) return Promise.reject(signal.reason);
  const thread = take();
  const { worker } = thread;
  return new Promise<Json>((resolve, reject) => {
    let error: Error | undefined;
    const terminate = (): void => {
      thread.gone = true;
      void worker.terminate();
    };
    const detach = (): void => {
      signal.removeEventListener("abort", terminate);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    };
    const onMessage = (m: FromShard): void => {
      if (m.type === "progress") return progress(m.fraction);
      detach();
      giveBack(thread);
      if (m.type === "done") resolve(m.result);
      else reject(shardError(m));
    };
    const onError = (err: Error): void => {
      error ??= err;
    };
    const onExit = (code: number): void => {
      detach();
      if (error) reject(error);
      else if (signal.aborted) reject(signal.reason);
      else reject(new Error(`A thread working on the job stopped unexpectedly (exit code ${code}), so the job did not finish.`));
    };
    signal.addEventListener("abort", terminate, { once: true });
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    worker.postMessage({ type: "run", ...run } satisfies ToShard);
  });
}

/**
 * Release every idle thread now; resolves once they have exited (a worker process's close).
 * @example
 * await releaseIdleShardThreads();
 */
export async function releaseIdleShardThreads(): Promise<void> {
  const leaving = idle.splice(0).map((thread) => {
    const exited = new Promise<void>((resolve) => thread.worker.once("exit", () => resolve()));
    // Waited for: the process stays until they are gone.
    thread.worker.ref();
    release(thread);
    return exited;
  });
  await Promise.all(leaving);
}

/**
 * Threads for `count` shards of `workerModule` started now, idle, their module loading: a
 * job whose later pass fans out starts them while an earlier pass runs, not at the fan-out
 * (a thread's start and its module took ~0.3 s of a Mann-Kendall trend's tile pass). Idle
 * threads already there count; they time out as any idle thread does.
 * @example
 * warmShardThreads(1, workerModule);
 */
export function warmShardThreads(count: number, workerModule: string): void {
  while (idle.length < count) {
    const thread = start();
    thread.worker.postMessage({ type: "load", workerModule } satisfies ToShard);
    giveBack(thread);
  }
}

/** The most recently used idle thread (the others may time out), or a new one. */
function take(): PooledThread {
  const thread = idle.pop();
  if (thread) {
    clearTimeout(thread.idleTimer);
    thread.worker.ref();
    return thread;
  }
  return start();
}

/** A new thread of the pool (counted), which leaves it when it exits. */
function start(): PooledThread {
  const worker = startThread("shardWorker", undefined);
  started++;
  const fresh: PooledThread = { worker, gone: false };
  // Also while idle: a crash is never an unhandled 'error', and an exited thread leaves the pool.
  worker.on("error", () => undefined);
  worker.on("exit", () => {
    fresh.gone = true;
    clearTimeout(fresh.idleTimer);
    const at = idle.indexOf(fresh);
    if (at >= 0) idle.splice(at, 1);
  });
  return fresh;
}

function giveBack(thread: PooledThread): void {
  if (thread.gone) return;
  thread.worker.unref();
  thread.idleTimer = setTimeout(() => {
    const at = idle.indexOf(thread);
    if (at >= 0) idle.splice(at, 1);
    release(thread);
  }, IDLE_MS).unref();
  idle.push(thread);
}

/** Ask the thread to close what it holds and exit; terminate it if it does not. */
function release(thread: PooledThread): void {
  clearTimeout(thread.idleTimer);
  thread.gone = true;
  thread.worker.postMessage({ type: "release" } satisfies ToShard);
  setTimeout(() => void thread.worker.terminate(), RELEASE_GRACE_MS).unref();
}

function shardError(m: Extract<FromShard, { type: "failed" }>): Error {
  const error = new Error(m.message);
  error.name = m.name;
  if (m.stack) error.stack = m.stack;
  return error;
}
