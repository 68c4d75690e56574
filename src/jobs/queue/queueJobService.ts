/**
 * The job service of an API node started with `--queue redis://...`: jobs are recorded in
 * the metadata database exactly as the embedded service records them, then handed to the
 * BullMQ queue that `strata worker` processes take them from; nothing runs here. A cancel
 * moves the record and sets the job's stop key, which every worker watches.
 */
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { MetadataDatabase } from "../../store/metadataDb.js";
import { JobServiceClosedError } from "../errors.js";
import type { JobService, SubmitClaim } from "../executor.js";
import { errorMessage } from "../jobMessages.js";
import { jobRecords } from "../jobRecords.js";
import { deleteJob, updateStatus } from "../jobStore.js";
import { type RecoveryReport, listUnfinishedJobs } from "../recovery.js";
import { JOB_QUEUE, type ParentData, parentJobOptions, queueOptions, requestStop } from "./queues.js";

export interface QueueJobServiceOptions {
  db: MetadataDatabase;
  /** A connection made by connectRedis; closed by close(). */
  redis: Redis;
  /** Finished jobs are purged this long after they finish (Infinity: never). */
  retentionMs: number;
  log(message: string, error?: unknown): void;
}

/** The Error message of a job the queue could not take. */
function unqueuedMessage() {
  return errorMessage("The server could not hand the job to its workers (the job queue is out of reach). Submit it again shortly.");
}

/**
 * @example
 * const jobs = createQueueJobService({ db, redis: await connectRedis(url, "queue", log), retentionMs, log });
 * await jobs.recover();
 */
export function createQueueJobService(options: QueueJobServiceOptions): JobService {
  const { db, redis, log } = options;
  const queue = new Queue<ParentData>(JOB_QUEUE, queueOptions(redis));
  queue.on("error", (err) => log("The job queue reported an error.", err));
  const records = jobRecords(db, options.retentionMs, log);
  let closed = false;

  const enqueue = (id: string, task: string): Promise<unknown> => queue.add(task, { jobId: id }, parentJobOptions(id));

  return {
    async submit(task, owner, inputs, taskOptions, claim: SubmitClaim = {}) {
      if (closed) throw new JobServiceClosedError("The server is shutting down and takes no new jobs; submit the job again shortly.");
      const waiting = await records.create(task, owner, inputs, taskOptions, claim);
      try {
        await enqueue(waiting.id, task);
        return waiting;
      } catch (err) {
        log(`Queueing job ${waiting.id} failed.`, err);
        await updateStatus(db, waiting.id, "esriJobExecuting", { from: "esriJobWaiting" });
        return updateStatus(db, waiting.id, "esriJobFailed", { from: "esriJobExecuting", message: unqueuedMessage() });
      }
    },

    get: (id) => records.get(id),

    list: (query) => records.list(query),

    cancel: (id) =>
      records.cancel(id, {
        // Taken by a worker meanwhile: it sees the status and leaves the job alone.
        dequeue: (id) =>
          queue.remove(id).then(
            () => undefined,
            (err: unknown) => log(`Removing job ${id} from the queue failed.`, err),
          ),
        // The worker running it ends it Cancelled (and a worker re-running it after a loss does too).
        stop: (job) => requestStop(redis, "cancel", job.id),
      }),

    /**
     * Every unfinished job has its place in the queue: waiting jobs, and jobs executing or
     * being cancelled whose run the queue no longer knows (Redis lost it). Adding a job the
     * queue has is a no-op (same id), so any node may do this at any time.
     */
    async recover() {
      await records.ready;
      const report: RecoveryReport = { queue: [], restarted: [], failed: [], cancelled: [], purged: [] };
      for (const job of await listUnfinishedJobs(db)) {
        try {
          if (job.status === "esriJobDeleting") {
            await deleteJob(db, job.id);
            report.purged.push(job.id);
            continue;
          }
          if (job.status === "esriJobSubmitted") await updateStatus(db, job.id, "esriJobWaiting", { from: job.status });
          if ((job.status === "esriJobExecuting" || job.status === "esriJobCancelling") && (await queue.getJob(job.id))) continue;
          await enqueue(job.id, job.task);
          (job.status === "esriJobExecuting" ? report.restarted : report.queue).push(job.id);
        } catch (err) {
          log(`Recovering job ${job.id} failed.`, err);
        }
      }
      await records.expire();
      return report;
    },

    async close() {
      if (closed) return;
      closed = true;
      records.close();
      await queue.close().catch((err: unknown) => log("Closing the job queue failed.", err));
      redis.disconnect();
    },

    async stats() {
      const counts = await queue.getJobCounts("waiting", "prioritized", "delayed", "active");
      // Each worker process names its connections after itself (host:pid); a process may hold several.
      const workers = new Set((await queue.getWorkers()).map((client) => client.rawname ?? client.name));
      return {
        queued: counts.waiting + counts.prioritized + counts.delayed,
        running: counts.active,
        workers: workers.size,
      };
    },
  };
}
