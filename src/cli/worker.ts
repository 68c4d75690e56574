/**
 * `strata worker --queue redis://...`: a process that takes jobs from the queue API nodes
 * started with the same --queue hand them to, runs their parents and the shards of their
 * passes (its own jobs' and other workers'), until SIGTERM/SIGINT. It sees the same data as
 * the API nodes through the same --data-dir, --metadata and --raster-store.
 */
import { availableParallelism } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidInputError } from "../cube/errors.js";
import { redactSecrets } from "../http/logRedaction.js";
import { describeRedisUrl } from "../jobs/queue/redisUrl.js";
import { migratePortal } from "../portal/schema.js";
import { jobOutputs } from "../services/jobOutputs.js";
import { openMetadataDb } from "../store/metadataDb.js";
import { type Command, parseCommandArgs } from "./command.js";
import { openConfiguredRasterStore } from "./rasterStoreFlag.js";
import { SERVE_OPTIONS, resolveServeConfig } from "./serveConfig.js";

/** The serve options a worker shares with API nodes (the same values on every node). */
const SHARED = [
  "queue",
  "data-dir",
  "metadata",
  "raster-store",
  "public-url",
  "hosting-role",
  "raster-analysis-url",
  "image-hosting-url",
  "job-time-limit",
] as const;

const OPTIONS = {
  ...Object.fromEntries(SHARED.map((name) => [name, SERVE_OPTIONS[name]])),
  workers: { type: "string", env: "STRATA_WORKERS", help: "threads running shards of jobs at once (default: the number of cores)" },
  jobs: {
    type: "string",
    env: "STRATA_WORKER_JOBS",
    help: "jobs this process coordinates at once, each on a thread of its own (default: the number of cores)",
  },
  "job-threads": {
    type: "string",
    env: "STRATA_JOB_THREADS",
    help: "shards each pass of a job coordinated here splits into, run by any worker; context.parallelProcessingFactor asks for fewer (default: the number of cores)",
  },
  "warm-workers": {
    type: "string",
    env: "STRATA_WARM_WORKERS",
    help: "job threads started at once with the task module and raster readers loaded, so a job taken by an idle worker starts without loading them; 0 loads nothing ahead (default 1, at most --jobs)",
  },
} as Record<string, { type: "string"; env: string; help: string }>;

const optionHelp = Object.entries(OPTIONS)
  .map(([name, o]) => `  --${name.padEnd(20)} ${o.help} [${o.env}]`)
  .join("\n");

/** Workers import the task runner from sources under tsx, from dist/ when compiled. */
const WORKER_MODULE = new URL(`../tasks/worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export const workerCommand: Command = {
  usage: `Usage: strata worker --queue redis://host:6379 [options]

Run jobs that API nodes started with the same --queue (strata serve --queue ...) hand to
the job queue: a job's parent (opening its input, merging between passes, committing and
publishing its output) runs on a thread of one worker, and each pass's shards on the threads
of any worker. Give every worker and API node the same --data-dir path (pending datasets are
written there and shards of one job may run on other machines: a shared file system, or
one machine), --metadata and --raster-store, and the --public-url clients use. Stops on
SIGTERM or SIGINT; what it was running goes back to the queue for another worker.

Options (each also read from the environment variable in brackets):
${optionHelp}`,
  async run(args, out) {
    const { values, positionals } = parseCommandArgs(
      args,
      Object.fromEntries(Object.keys(OPTIONS).map((name) => [name, { type: "string" as const }])),
    );
    if (positionals.length)
      throw new TypeError(`strata worker takes no arguments (got ${positionals.join(" ")}); see strata worker --help`);
    const shared = Object.fromEntries(SHARED.filter((name) => values[name] !== undefined).map((name) => [name, values[name]]));
    // --warm-workers is the worker's own here (at most --jobs), not the server's.
    const config = resolveServeConfig(shared as never, { ...process.env, STRATA_WARM_WORKERS: undefined });
    if (config.queue === undefined)
      throw new InvalidInputError("strata worker needs --queue redis://host:port (or STRATA_QUEUE): the queue to take jobs from", {
        parameter: "queue",
      });
    const count = (name: string, min = 1, max = 256, byDefault = availableParallelism(), bound = ""): number => {
      const text = (values[name] as string | undefined) ?? process.env[OPTIONS[name].env] ?? String(byDefault);
      const n = Number(text);
      if (!Number.isInteger(n) || n < min || n > max)
        throw new InvalidInputError(`--${name} must be a whole number from ${min} to ${max}${bound}; got "${text}"`, { parameter: name });
      return n;
    };
    const threads = count("workers");
    const jobs = count("jobs");
    const shardsPerJob = count("job-threads");
    const warmJobs = count("warm-workers", 0, jobs, 1, " (--jobs)");
    const log = (message: string, error?: unknown): void => {
      // One line each, without a stack or a secret.
      const reason = error === undefined ? "" : `: ${error instanceof Error ? error.message : String(error)}`.replace(/\s*\n[\s\S]*/, "");
      out.stderr(`[worker] ${redactSecrets(message + reason).replace(/rediss?:\/\/\S+/g, (url) => describeRedisUrl(url))}\n`);
    };

    const { connectRedis } = await import("../jobs/queue/redisConnection.js");
    const { startQueueWorker } = await import("../jobs/queue/queueWorker.js");
    const redis = await connectRedis(config.queue, "queue", log);
    const db = await openMetadataDb(config.metadata ?? join(config.dataDir, "strata.db")).catch((e: unknown) => {
      redis.disconnect();
      throw e;
    });
    try {
      await migratePortal(db);
      // Joined, not owned: the data directory's store must be the one this worker was started
      // with (its job threads find it through rasters/store.json); the API nodes sweep.
      const store = await openConfiguredRasterStore(config, "join");
      const urls = {
        base: config.publicUrl,
        hosting: config.hostingRole === "imageHosting" ? config.imageHostingUrl : config.rasterAnalysisUrl,
      };
      const worker = await startQueueWorker({
        db,
        store,
        redis,
        workerModule: WORKER_MODULE,
        jobs,
        warmJobs,
        threads,
        shardsPerJob,
        timeLimitMs: config.jobTimeLimitMs,
        ...jobOutputs(db, store, urls),
        log,
      });
      out.stdout(
        `Strata worker taking jobs from ${describeRedisUrl(config.queue)} (${jobs} jobs and ${threads} shards at once, ${shardsPerJob} shards per pass)\n`,
      );
      await new Promise<void>((resolve) => {
        process.once("SIGTERM", () => resolve());
        process.once("SIGINT", () => resolve());
      });
      out.stdout("Stopping: running jobs go back to the queue\n");
      await worker.close();
      await store.close();
      return 0;
    } finally {
      redis.disconnect();
      await db.close();
    }
  },
};
