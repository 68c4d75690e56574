/**
 * Cancellation across processes: each worker polls the stop keys (queues.ts) of the runs it
 * has, all in one MGET every STOP_POLL_MS, and turns a key that appears into the abort of
 * that run. A cancel sent to any API node thus reaches every worker within a second or so,
 * even one that was disconnected when it was sent.
 */
import type { Redis } from "ioredis";
import { STOP_POLL_MS, type StopReason } from "./queues.js";

export interface StopWatch {
  /** Call `onStop` once, when one of `keys` exists; returns the function that stops watching. */
  watch(keys: readonly string[], onStop: (reason: StopReason) => void): () => void;
  /** Whether one of `keys` exists now: the reason, or undefined. */
  check(keys: readonly string[]): Promise<StopReason | undefined>;
  close(): void;
}

/**
 * @example
 * const stops = createStopWatch(redis, log);
 * const unwatch = stops.watch(stopKeys(jobId), (reason) => controller.abort(reason));
 */
export function createStopWatch(redis: Redis, log: (message: string, error?: unknown) => void): StopWatch {
  const watchers = new Set<{ keys: readonly string[]; onStop: (reason: StopReason) => void }>();
  let polling = false;
  let failing = false;
  const check = async (keys: readonly string[]): Promise<StopReason | undefined> =>
    ((await redis.mget(...keys)).find((v) => v !== null) ?? undefined) as StopReason | undefined;
  const timer = setInterval(() => {
    if (polling || watchers.size === 0) return;
    polling = true;
    const now = [...watchers];
    const keys = [...new Set(now.flatMap((w) => w.keys))];
    redis
      .mget(...keys)
      .then((values) => {
        failing = false;
        const found = new Map(keys.map((k, i) => [k, values[i]]));
        for (const w of now) {
          const reason = w.keys.map((k) => found.get(k)).find((v) => v !== null && v !== undefined);
          if (reason !== undefined && watchers.delete(w)) w.onStop(reason as StopReason);
        }
      })
      .catch((err: unknown) => {
        if (!failing) log("Reading the jobs' stop keys from Redis failed; retrying.", err);
        failing = true;
      })
      .finally(() => (polling = false));
  }, STOP_POLL_MS);
  timer.unref();
  return {
    watch(keys, onStop) {
      const w = { keys, onStop };
      watchers.add(w);
      return () => void watchers.delete(w);
    },
    check,
    close() {
      clearInterval(timer);
      watchers.clear();
    },
  };
}
