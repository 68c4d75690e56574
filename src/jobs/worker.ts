/**
 * The entry of a job worker thread (started by workerPool.ts, never imported). It imports the
 * task module named in workerData once (at "warm" when the thread is started ahead of its
 * first job, else at the first run), then runs one job at a time: "run" calls
 * `runTask(task, options, ctx)`, "cancel" aborts the run's signal; a task may fan out over
 * more threads with `ctx.fanOut` (fanOut.ts). Progress, messages and
 * reports are posted to the main thread, which persists them.
 */
import { parentPort, workerData } from "node:worker_threads";
import { fanOut } from "./fanOut.js";
import { warmShardThreads } from "./shardPool.js";
import { describeError } from "./jobMessages.js";
import type { FromWorker, JobWorkerData, ToWorker } from "./protocol.js";
import type { JobMessageType, Json, RunShard, RunTask, TaskContext } from "./types.js";

// Tasks may report progress per tile; the main thread needs to hear a few times a second.
const PROGRESS_INTERVAL_MS = 100;

if (!parentPort) throw new Error("src/jobs/worker.ts runs as a worker thread; it is not a module to import.");
const port = parentPort;
const { workerModule, threadsPerJob, fanOut: fanOutTo = "threads" } = workerData as JobWorkerData;
const controllers = new Map<string, AbortController>();
/** Fan-outs sent to the owner (fanOut "port"), by request number. */
const requests = new Map<
  number,
  { progress(percentage: number): void; settle(outcome: { results: Json[] } | { message: string }): void }
>();
let nextRequest = 0;
let loaded: Promise<{ runTask?: unknown; runShard?: unknown; warmUp?: unknown }> | undefined;

port.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "run":
      return void run(message.jobId, message.task, message.options);
    case "warm":
      return void warm();
    case "cancel":
      return controllers.get(message.jobId)?.abort();
    case "fanOutProgress":
      return requests.get(message.request)?.progress(message.percentage);
    case "fanOutDone":
      return requests.get(message.request)?.settle({ results: message.results });
    case "fanOutFailed":
      return requests.get(message.request)?.settle({ message: message.message });
  }
});

/**
 * Shards run by the thread's owner (fanOut "port"): it stops them itself on a cancel, and
 * answers only once they have stopped, as fanOut does.
 */
function fanOutByOwner(jobId: string, count: number, payload: Json, progress: (percentage: number) => void): Promise<Json[]> {
  const request = nextRequest++;
  return new Promise<Json[]>((resolve, reject) => {
    requests.set(request, {
      progress,
      settle(outcome) {
        requests.delete(request);
        if ("results" in outcome) resolve(outcome.results);
        else reject(new ReportedError(outcome.message));
      },
    });
    post({ type: "fanOut", jobId, request, count, payload });
  });
}

function post(message: FromWorker): void {
  port.postMessage(message);
}

/** An error whose message is for the user and whose cause is for the log. */
class ReportedError extends Error {}

const LOAD_FAILED = "The server could not load its tasks. Tell the administrator.";

function loadModule(): Promise<{ runTask?: unknown; runShard?: unknown; warmUp?: unknown }> {
  loaded ??= import(workerModule).catch((err: unknown) => {
    throw new ReportedError(LOAD_FAILED, { cause: err });
  });
  return loaded;
}

async function loadExport<T>(name: "runTask" | "runShard"): Promise<T> {
  const fn = (await loadModule())[name];
  if (typeof fn !== "function") throw new ReportedError(LOAD_FAILED, { cause: new Error(`${workerModule} exports no ${name} function.`) });
  return fn as T;
}

/**
 * Load the task module and let it load what its runs need (its optional `warmUp`), before any
 * job comes. A failure is left for the first run to report (loading the module fails it the same way).
 */
async function warm(): Promise<void> {
  try {
    const warmUp = (await loadModule()).warmUp;
    if (typeof warmUp === "function") await (warmUp as () => Promise<void>)();
  } catch {
    // The run that needs what failed to load says so.
  }
}

async function run(jobId: string, task: string, options: Json): Promise<void> {
  const controller = new AbortController();
  controllers.set(jobId, controller);
  const progress = progressReporter(jobId);
  const ctx: TaskContext = {
    jobId,
    signal: controller.signal,
    progress: progress.report,
    message: (type: JobMessageType, description: string) =>
      post({ type: "message", jobId, messageType: type, description: String(description) }),
    report: (key: string, value: Json) => post({ type: "report", jobId, key, value }),
    threads: threadsPerJob,
    localShards: fanOutTo === "threads",
    fanOut: (count: number, payload: Json, [from, to] = [0, 100]) => {
      const spanned = (percentage: number): void => progress.report(from + (percentage / 100) * (to - from));
      if (fanOutTo === "port") return fanOutByOwner(jobId, count, payload, spanned);
      return fanOut(count, payload, {
        workerModule,
        task,
        signal: controller.signal,
        progress: spanned,
        loadRunShard: () => loadExport<RunShard>("runShard"),
      });
    },
    warmShards: fanOutTo === "threads" ? (count) => warmShardThreads(count, workerModule) : undefined,
  };
  try {
    const runTask = await loadExport<RunTask>("runTask");
    const output = await runTask(task, options, ctx);
    progress.stop();
    try {
      post({ type: "done", jobId, output: output ?? null });
    } catch (err) {
      throw new ReportedError("The task produced a result the server cannot pass on. Tell the administrator.", { cause: err });
    }
  } catch (err) {
    progress.stop();
    const logged = err instanceof ReportedError ? err.cause : err;
    post({ type: "failed", jobId, message: describeError(err), stack: logged instanceof Error ? logged.stack : String(logged) });
  } finally {
    controllers.delete(jobId);
  }
}

/** Coalesce progress to one post per PROGRESS_INTERVAL_MS, always delivering the latest (with the last message said). */
function progressReporter(jobId: string): { report: TaskContext["progress"]; stop(): void } {
  let last = 0;
  let pending: { percentage: number; message?: string } | undefined;
  // A report without a message (a shard's percentage) keeps saying what the job is doing.
  let said: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const flush = (): void => {
    timer = undefined;
    if (!pending || stopped) return;
    post({ type: "progress", jobId, ...pending });
    pending = undefined;
    last = Date.now();
  };
  return {
    report(percentage: number, message?: string) {
      if (stopped) return;
      const clamped = Number.isFinite(percentage) ? Math.min(100, Math.max(0, percentage)) : 0;
      if (message !== undefined) said = String(message);
      pending = said === undefined ? { percentage: clamped } : { percentage: clamped, message: said };
      if (timer) return;
      const wait = last + PROGRESS_INTERVAL_MS - Date.now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
