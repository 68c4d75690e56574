/**
 * The request work pool: whatever a request computes over many pixels or bytes (drawing an
 * export, identify/samples/statistics, NetCDF downloads, unpacking and checking uploads,
 * converting a raster for publication) runs on worker threads (piscina), so the event loop
 * only routes. Three lanes, so that one maximal export or a 1 GiB upload never holds up a
 * small request:
 * - `quick`: small exports and the value queries; as many threads as cores, one kept warm.
 * - `bulk`: large exports, uploads and publication; half the cores (at least 1), none kept.
 * - `writer`: NetCDF downloads; as many threads as `bulk`, one kept warm. Its own lane so
 *   that the warm thread keeps h5wasm loaded (a cold thread takes ~1 s to start and load
 *   it) and nothing else: a warm bulk thread kept what a maximal export grew it to.
 * Each lane's queue is bounded: a full queue is a BusyError ("busy, retry" with
 * Retry-After), never a hang. Threads beyond the warm one exit after a short idle time, so
 * memory returns to its resting level after a burst; each thread's heap is capped.
 * Images are encoded on the thread that drew them (the RGBA never crosses threads; only
 * the encoded bytes do), by the encoder the pool was given.
 */
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { StrataError } from "../../cube/errors.js";
import type { ImageEncoder } from "../render/encodeImage.js";
import {
  type ThreadAnswer,
  type ThreadSettings,
  type ThreadTask,
  type WorkKind,
  type WorkRequest,
  type WorkResult,
  reviveError,
} from "./protocol.js";

export type Lane = "quick" | "bulk" | "writer";

export interface WorkPoolOptions {
  /** Threads of the quick lane (default: the cores). */
  readonly quickThreads?: number;
  /** Threads of the bulk lane, and of the writer lane (default: half the cores, at least 1). */
  readonly bulkThreads?: number;
  /** Requests that may wait in the quick lane's queue (default 512). */
  readonly quickQueue?: number;
  /** Requests that may wait in the bulk lane's queue, and in the writer lane's (default 32). */
  readonly bulkQueue?: number;
  /** A thread idle this long exits (default 10 s). */
  readonly idleMs?: number;
  /** V8 heap cap of each thread in MB (typed arrays are outside it; exports bound those by size). */
  readonly heapMb?: number;
  /** How exports encode PNG and JPEG (default "sharp", the pure-JS encoders if it cannot load). */
  readonly imageEncoder?: ImageEncoder;
}

/** The pool is full: the client should retry later (HTTP 503 with Retry-After). */
export class BusyError extends StrataError {
  constructor(
    readonly lane: Lane,
    readonly retryAfterSeconds: number,
  ) {
    super(`The server is busy (its ${lane} work queue is full); retry in ${retryAfterSeconds} s.`);
  }
}

export interface WorkPool {
  /**
   * Run `kind` on a thread of `lane`; typed errors thrown there (400s, 404s) come back as
   * the same types. An abort removes a waiting request, or stops the thread running it.
   */
  run<K extends WorkKind>(kind: K, input: WorkRequest[K], options: { lane: Lane; signal?: AbortSignal }): Promise<WorkResult[K]>;
  /** Threads alive, requests waiting for one, and requests under way (waiting or running), per lane. */
  stats(): Record<Lane, { threads: number; waiting: number; inFlight: number }>;
  close(): Promise<void>;
}

/**
 * @example
 * const pool = createWorkPool({ quickThreads: 2 });
 * const image = await pool.run("export", { path, params }, { lane: "quick" });
 */
export function createWorkPool(options: WorkPoolOptions = {}): WorkPool {
  const cores = availableParallelism();
  const lane = (threads: number, maxQueue: number, minThreads: number): Piscina =>
    new Piscina({
      ...threadEntry({ imageEncoder: options.imageEncoder ?? "sharp" }),
      minThreads: Math.min(minThreads, threads),
      maxThreads: threads,
      maxQueue,
      idleTimeout: options.idleMs ?? 10_000,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? 1024 },
      // Node's default name for every thread is "WorkerThread"; this one is ours.
      name: "default",
    });
  const bulkThreads = options.bulkThreads ?? Math.max(1, Math.floor(cores / 2));
  const bulkQueue = options.bulkQueue ?? 32;
  const lanes: Record<Lane, Piscina> = {
    quick: lane(options.quickThreads ?? cores, options.quickQueue ?? 512, 1),
    bulk: lane(bulkThreads, bulkQueue, 0),
    writer: lane(bulkThreads, bulkQueue, 1),
  };
  const inFlight: Record<Lane, number> = { quick: 0, bulk: 0, writer: 0 };
  return {
    async run(kind, input, { lane: name, signal }) {
      const pool = lanes[name];
      let answer: ThreadAnswer;
      inFlight[name]++;
      try {
        answer = await pool.run({ kind, input } satisfies ThreadTask, signal ? { signal } : {});
      } catch (e) {
        // piscina's own words for a full queue (Errors.TaskQueueAtLimit); it has no error type.
        if (e instanceof Error && e.message === "Task queue is at limit") throw new BusyError(name, retryAfter(pool));
        throw e;
      } finally {
        inFlight[name]--;
      }
      if (!answer.ok) throw reviveError(answer.error);
      return answer.value as WorkResult[typeof kind];
    },
    stats() {
      const of = (l: Lane) => ({ threads: lanes[l].threads.length, waiting: lanes[l].queueSize, inFlight: inFlight[l] });
      return { quick: of("quick"), bulk: of("bulk"), writer: of("writer") };
    },
    async close() {
      await Promise.all(Object.values(lanes).map((p) => p.destroy()));
    },
  };
}

/** A rough wait: the queue's length over the threads, at the lane's mean run time. */
function retryAfter(pool: Piscina): number {
  const meanMs = pool.histogram.runTime.mean || 1000;
  return Math.max(1, Math.ceil((pool.queueSize * meanMs) / Math.max(1, pool.options.maxThreads) / 1000));
}

/**
 * The thread's module and what it starts with: thread.js when compiled; from TypeScript
 * sources a small boot module that registers tsx first (Node 20 does not apply the parent's
 * loader to worker threads).
 */
function threadEntry(settings: ThreadSettings): { filename: string; workerData: ThreadSettings & { entry?: string; tsx?: string } } {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith(".ts")) return { filename: fileURLToPath(new URL("./thread.js", import.meta.url)), workerData: settings };
  return {
    filename: fileURLToPath(new URL("./tsxBoot.mjs", import.meta.url)),
    workerData: { ...settings, entry: new URL("./thread.ts", import.meta.url).href, tsx: import.meta.resolve("tsx/esm/api") },
  };
}
