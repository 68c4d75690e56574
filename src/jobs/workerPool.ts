/**
 * A pool of job worker threads, at most `size`, started when first needed (or `warm` of them
 * ahead, with their task module loaded). A worker that dies or is retired leaves the pool at
 * once, so the next job gets a fresh one.
 */
import type { Worker } from "node:worker_threads";
import type { FromWorker, JobWorkerData, ToWorker } from "./protocol.js";
import { startThread } from "./thread.js";

/** One worker thread of the pool. */
export interface WorkerSlot {
  readonly worker: Worker;
  /** Running a job. */
  busy: boolean;
  /** Terminated on purpose or dead: its events are no longer reported. */
  retired: boolean;
}

export interface WorkerPoolOptions {
  /** What each worker is started with (the module it imports, threads per job). */
  workerData: JobWorkerData;
  size: number;
  /**
   * Workers started at once and told to load their task module and what its runs need
   * ("warm"), so that the first jobs skip a thread's start and its loading (default 0).
   */
  warm?: number;
  onMessage(slot: WorkerSlot, message: FromWorker): void;
  /** A worker stopped without being retired (a crash, or process.exit in a task). */
  onExit(slot: WorkerSlot, exitCode: number, error: unknown): void;
  log(message: string, error?: unknown): void;
}

export interface WorkerPool {
  /** An idle worker, or a new one; throws if all `size` are busy or one cannot start. */
  acquire(): WorkerSlot;
  release(slot: WorkerSlot): void;
  /** Terminate a worker (e.g. one that ignores cancellation); it leaves the pool at once. */
  retire(slot: WorkerSlot): Promise<void>;
  /** How many workers are alive. */
  count(): number;
  /** Terminate every worker. */
  close(): Promise<void>;
}

/**
 * @example
 * const pool = createWorkerPool({ workerData: { workerModule, threadsPerJob: 4 }, size: 4, warm: 1, onMessage, onExit, log });
 * const slot = pool.acquire();
 * slot.worker.postMessage({ type: "run", jobId, task, options });
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const slots = new Set<WorkerSlot>();

  const spawn = (): WorkerSlot => {
    const worker = startThread("worker", options.workerData);
    const slot: WorkerSlot = { worker, busy: false, retired: false };
    let error: unknown;
    // A throwing handler must not take the server down with it.
    const guard = (what: string, fn: () => void): void => {
      try {
        fn();
      } catch (err) {
        options.log(`Handling a job worker's ${what} failed.`, err);
      }
    };
    worker.on("message", (message: FromWorker) => {
      if (!slot.retired) guard("message", () => options.onMessage(slot, message));
    });
    worker.on("messageerror", (err) => options.log("A job worker sent a message that could not be read.", err));
    worker.on("error", (err) => {
      error = err;
    });
    worker.on("exit", (code) => {
      slots.delete(slot);
      if (slot.retired) return;
      slot.retired = true;
      guard("exit", () => options.onExit(slot, code, error));
    });
    slots.add(slot);
    return slot;
  };

  const retire = async (slot: WorkerSlot): Promise<void> => {
    slot.retired = true;
    slots.delete(slot);
    await slot.worker.terminate();
  };

  for (let i = 0; i < Math.min(options.warm ?? 0, options.size); i++) {
    try {
      spawn().worker.postMessage({ type: "warm" } satisfies ToWorker);
    } catch (err) {
      // acquire() tries again, and says so if it cannot either.
      options.log("A job worker could not be started ahead of the first job.", err);
    }
  }

  return {
    acquire() {
      let slot = [...slots].find((s) => !s.busy);
      if (!slot) {
        if (slots.size >= options.size) throw new Error(`All ${options.size} job workers are busy.`);
        slot = spawn();
      }
      slot.busy = true;
      return slot;
    },
    release(slot) {
      slot.busy = false;
    },
    retire,
    count: () => slots.size,
    async close() {
      await Promise.all([...slots].map(retire));
    },
  };
}
