/**
 * Shared set-up for the job service tests: a fresh metadata database per test, a service on
 * the test task module that records what it logs and cleans up, and polling waits.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJobService, type CleanupReason, type JobService, type JobServiceOptions } from "../../src/jobs/executor.js";
import { migrateJobs } from "../../src/jobs/jobStore.js";
import type { JobRecord, JobStatus } from "../../src/jobs/types.js";
import { openMetadataDb, type MetadataDb } from "../../src/store/metadataDb.js";

export const TEST_TASKS = new URL("./fixtures/testTasks.ts", import.meta.url);

/** A metadata database with the jobs table in a fresh directory; `dispose` removes both. */
export function openTestDb(): { db: MetadataDb; path: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "strata-jobs-"));
  const path = join(dir, "strata.db");
  const db = openMetadataDb(path);
  migrateJobs(db);
  return {
    db,
    path,
    dispose() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
export function startService(db: MetadataDb, options: Partial<JobServiceOptions> = {}): TestService {
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
export async function waitFor<T>(check: () => T | undefined, what: string | (() => string), timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Wait until job `id` is in one of `statuses`; resolves to its record. */
export function waitForStatus(service: JobService, id: string, statuses: JobStatus | JobStatus[], timeoutMs = 5000): Promise<JobRecord> {
  const wanted = typeof statuses === "string" ? [statuses] : statuses;
  return waitFor(
    () => {
      const job = service.get(id);
      return job && wanted.includes(job.status) ? job : undefined;
    },
    () => `job ${id} to be ${wanted.join(" or ")} (is ${service.get(id)?.status})`,
    timeoutMs,
  );
}

export const sleepMs = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh database and service for one test, closed and removed when the test ends. */
export function setUp(
  t: { after(fn: () => Promise<void>): void },
  options: Partial<JobServiceOptions> = {},
): TestService & { db: MetadataDb; path: string } {
  const { db, path, dispose } = openTestDb();
  const started = startService(db, options);
  t.after(async () => {
    await started.service.close();
    dispose();
  });
  return { ...started, db, path };
}
