/**
 * Shared set-up for the job service tests: a fresh metadata database per test, a service on
 * the test task module that records what it logs and cleans up, and polling waits.
 */
import { createJobService, type CleanupReason, type JobService, type JobServiceOptions } from "../../src/jobs/executor.js";
import { migrateJobs } from "../../src/jobs/jobStore.js";
import type { JobRecord, JobStatus } from "../../src/jobs/types.js";
import { type MetadataDatabase } from "../../src/store/metadataDb.js";
import { type BackendName, openFreshMetadata } from "../helpers/metadataBackends.js";

export { BACKENDS, type BackendName } from "../helpers/metadataBackends.js";

export const TEST_TASKS = new URL("./fixtures/testTasks.ts", import.meta.url);

/**
 * A fresh metadata database of `backend` with the jobs table; `target` opens it again (a
 * second connection, as another node has); `dispose` closes it (the file or database goes
 * when the test file ends).
 */
export async function openTestDb(
  backend: BackendName = "sqlite",
): Promise<{ db: MetadataDatabase; target: string; dispose(): Promise<void> }> {
  const { db, target } = await openFreshMetadata(backend);
  await migrateJobs(db);
  return { db, target, dispose: () => db.close() };
}

export interface CleanupCall {
  id: string;
  output: unknown;
  reason: CleanupReason;
  reports: JobRecord["reports"];
}

export interface TestService {
  service: JobService;
  logs: string[];
  cleanups: CleanupCall[];
}

/** A job service on TEST_TASKS with one worker, quiet logs and recorded cleanups. */
export function startService(db: MetadataDatabase, options: Partial<JobServiceOptions> = {}): TestService {
  const logs: string[] = [];
  const cleanups: CleanupCall[] = [];
  const service = createJobService({
    db,
    workerModule: TEST_TASKS,
    workers: 1,
    cancelGraceMs: 2000,
    log: (message) => logs.push(message),
    cleanup: async (job, output, reason) => {
      cleanups.push({ id: job.id, output, reason, reports: job.reports });
    },
    ...options,
  });
  return { service, logs, cleanups };
}

/** Poll `check` every few ms until it returns a value other than undefined. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string | (() => string | Promise<string>),
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : await what()}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Wait until job `id` is in one of `statuses`; resolves to its record. */
export function waitForStatus(service: JobService, id: string, statuses: JobStatus | JobStatus[], timeoutMs = 5000): Promise<JobRecord> {
  const wanted = typeof statuses === "string" ? [statuses] : statuses;
  return waitFor(
    async () => {
      const job = await service.get(id);
      return job && wanted.includes(job.status) ? job : undefined;
    },
    async () => `job ${id} to be ${wanted.join(" or ")} (is ${(await service.get(id))?.status})`,
    timeoutMs,
  );
}

export const sleepMs = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh database (SQLite unless `backend` says) and service for one test, closed when the test ends. */
export async function setUp(
  t: { after(fn: () => Promise<void>): void },
  options: Partial<JobServiceOptions> = {},
  backend: BackendName = "sqlite",
): Promise<TestService & { db: MetadataDatabase; target: string }> {
  const { db, target, dispose } = await openTestDb(backend);
  const started = startService(db, options);
  t.after(async () => {
    await started.service.close();
    await dispose();
  });
  return { ...started, db, target };
}
