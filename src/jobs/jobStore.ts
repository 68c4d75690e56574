/**
 * Durable job records in the metadata database (table `jobs`, JSON in TEXT columns). Every
 * status change goes through the state machine and an optimistic check of the status it was
 * read with, so two actors (an HTTP cancel and a finishing worker, or two server nodes)
 * cannot both move a job.
 */
import { NotFoundError } from "../cube/errors.js";
import { type MetadataDatabase, type MetadataDb, type MigrationStep, migrate } from "../store/metadataDb.js";
import type { SqlValue } from "../store/sqlDb.js";
import { JobStateError } from "./errors.js";
import { newJobId } from "./jobId.js";
import { TERMINAL_STATUSES, assertTransition, statusChange } from "./stateMachine.js";
import { JOB_STATUSES, type Json, type JobMessage, type JobProgress, type JobRecord, type JobStatus, type JsonObject } from "./types.js";

const STATUS_CHECK = `CHECK (status IN (${JOB_STATUSES.map((s) => `'${s}'`).join(", ")}))`;

/** Append new steps; never edit an applied one. Step 0 per dialect: SQLite's AUTOINCREMENT, PostgreSQL's BIGSERIAL and BIGINT times. */
const MIGRATIONS: readonly MigrationStep[] = [
  {
    sqlite: `CREATE TABLE jobs (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     task TEXT NOT NULL,
     owner TEXT NOT NULL,
     status TEXT NOT NULL ${STATUS_CHECK},
     inputs TEXT NOT NULL,
     options TEXT NOT NULL,
     results TEXT NOT NULL DEFAULT '{}',
     messages TEXT NOT NULL DEFAULT '[]',
     progress TEXT,
     reports TEXT NOT NULL DEFAULT '{}',
     submitted INTEGER NOT NULL,
     started INTEGER,
     finished INTEGER,
     attempts INTEGER NOT NULL DEFAULT 0
   )`,
    postgres: `CREATE TABLE jobs (
     seq BIGSERIAL PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     task TEXT NOT NULL,
     owner TEXT NOT NULL,
     status TEXT NOT NULL ${STATUS_CHECK},
     inputs TEXT NOT NULL,
     options TEXT NOT NULL,
     results TEXT NOT NULL DEFAULT '{}',
     messages TEXT NOT NULL DEFAULT '[]',
     progress TEXT,
     reports TEXT NOT NULL DEFAULT '{}',
     submitted BIGINT NOT NULL,
     started BIGINT,
     finished BIGINT,
     attempts INTEGER NOT NULL DEFAULT 0
   )`,
  },
  "CREATE INDEX jobs_owner_task_submitted ON jobs (owner, task, submitted)",
  "CREATE INDEX jobs_task_submitted ON jobs (task, submitted)",
  "CREATE INDEX jobs_status_finished ON jobs (status, finished)",
];

const TERMINAL_SQL = TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ");

/** Default and largest page of `listJobs`. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

/**
 * Create or upgrade the `jobs` table. Idempotent; call once after opening the database.
 *
 * @example
 * const db = await openMetadataDb("./data/strata.db");
 * await migrateJobs(db);
 */
export function migrateJobs(db: MetadataDatabase): Promise<void> {
  return migrate(db, "jobs", MIGRATIONS);
}

/** What the caller supplies to create a job. */
export interface NewJob {
  task: string;
  owner: string;
  /** The parameters as submitted, secrets already removed. */
  inputs: JsonObject;
  /** The parsed task options; must survive JSON.stringify (they are stored as JSON). */
  options: unknown;
}

/**
 * Store a new job in esriJobSubmitted.
 *
 * @example
 * const job = await createJob(db, { task: "GenerateTrendRaster", owner: "ana", inputs, options });
 */
export async function createJob(db: MetadataDb, job: NewJob, now: number = Date.now()): Promise<JobRecord> {
  const id = newJobId();
  await db.run("INSERT INTO jobs (id, task, owner, status, inputs, options, submitted) VALUES (?, ?, ?, 'esriJobSubmitted', ?, ?, ?)", [
    id,
    job.task,
    job.owner,
    JSON.stringify(job.inputs),
    JSON.stringify(job.options ?? null),
    now,
  ]);
  return mustGet(db, id);
}

/**
 * The job `id`, or undefined when there is none.
 *
 * @example
 * const job = await getJob(db, req.params.jobId);
 * if (!job || job.owner !== user) throw new NotFoundError("No such job.");
 */
export async function getJob(db: MetadataDb, id: string): Promise<JobRecord | undefined> {
  const row = await db.one<JobRow>("SELECT * FROM jobs WHERE id = ?", [id]);
  return row && fromRow(row);
}

/** Which jobs `listJobs` returns. */
export interface ListJobsQuery {
  task: string;
  /** Only this user's jobs; undefined lists everyone's (for administrators). */
  owner?: string;
  /** Jobs to skip (default 0). */
  offset?: number;
  /** Page size (default DEFAULT_PAGE_SIZE, at most MAX_PAGE_SIZE). */
  limit?: number;
}

/** A page of jobs and how many match in all. */
export interface JobPage {
  jobs: JobRecord[];
  total: number;
}

/**
 * Jobs of a task, newest first, one page at a time. Jobs being deleted are left out.
 *
 * @example
 * const { jobs, total } = await listJobs(db, { task: "SubsetMultidimensionalRaster", owner: "ana", offset: 0, limit: 20 });
 */
export async function listJobs(db: MetadataDb, query: ListJobsQuery): Promise<JobPage> {
  const offset = Math.max(0, Math.floor(query.offset ?? 0));
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(query.limit ?? DEFAULT_PAGE_SIZE)));
  // Two texts rather than "(? IS NULL OR owner = ?)", so SQLite can use the owner index.
  const where = `task = ? ${query.owner === undefined ? "" : "AND owner = ?"} AND status NOT IN ('esriJobDeleting', 'esriJobDeleted')`;
  const params: SqlValue[] = query.owner === undefined ? [query.task] : [query.task, query.owner];
  const total = (await db.one<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE ${where}`, params))!.n;
  const rows = await db.all<JobRow>(`SELECT * FROM jobs WHERE ${where} ORDER BY submitted DESC, seq DESC LIMIT ? OFFSET ?`, [
    ...params,
    limit,
    offset,
  ]);
  return { jobs: rows.map(fromRow), total };
}

/**
 * Jobs in any of `statuses`, in submission order (for restart recovery).
 *
 * @example
 * const interrupted = await listJobsByStatus(db, ["esriJobExecuting"]);
 */
export async function listJobsByStatus(db: MetadataDb, statuses: readonly JobStatus[]): Promise<JobRecord[]> {
  if (statuses.length === 0) return [];
  const marks = statuses.map(() => "?").join(", ");
  const rows = await db.all<JobRow>(`SELECT * FROM jobs WHERE status IN (${marks}) ORDER BY submitted, seq`, statuses);
  return rows.map(fromRow);
}

/**
 * Whether a job that has not finished has `value` at `path` of its options (a JSON path of
 * object keys, "$.a.b"), compared case-insensitively: e.g. a service name a running job will create.
 * @example
 * await activeJobWithOption(db, "$.output.serviceName", "sst_anomaly");
 */
export async function activeJobWithOption(db: MetadataDb, path: string, value: string): Promise<boolean> {
  if (!path.startsWith("$.")) throw new Error(`activeJobWithOption: ${JSON.stringify(path)} is not a path of object keys ("$.a.b")`);
  const option = db.dialect.jsonText("options", path.slice(2).split("."));
  const sql = `SELECT 1 AS found FROM jobs WHERE status NOT IN (${TERMINAL_SQL}) AND lower(${option}) = lower(?) LIMIT 1`;
  return (await db.one(sql, [value])) !== undefined;
}

/** Options of `updateStatus`. */
export interface UpdateStatusOptions {
  /** The status(es) the caller expects the job to be in; anything else is a JobStateError. */
  from?: JobStatus | readonly JobStatus[];
  /** A message to append in the same write (e.g. the Error message of a failure). */
  message?: JobMessage;
  /** Results to store in the same write (on success). */
  results?: JsonObject;
  /** Override the attempt count the state machine computed. */
  attempts?: number;
  now?: number;
}

/**
 * Move job `id` to `to` through the state machine and return the updated record. The UPDATE
 * only applies if the job is still in the status it was read with: if another actor moved it
 * first, JobStateError, and nothing is written. NotFoundError if there is no such job.
 *
 * @example
 * await updateStatus(db, id, "esriJobFailed", {
 *   from: "esriJobExecuting",
 *   message: { type: "esriJobMessageTypeError", description: "The input has no time dimension." },
 * });
 */
export async function updateStatus(db: MetadataDb, id: string, to: JobStatus, options: UpdateStatusOptions = {}): Promise<JobRecord> {
  const job = await mustGet(db, id);
  const expected = options.from === undefined ? undefined : typeof options.from === "string" ? [options.from] : options.from;
  if (expected && !expected.includes(job.status)) {
    throw new JobStateError(`Job ${id} is ${job.status}, not ${expected.join(" or ")}.`, job.status, to);
  }
  const change = statusChange(job, to, options.now ?? Date.now());
  const set = ["status = ?", "started = ?", "finished = ?", "progress = ?", "attempts = ?", "reports = ?"];
  const params: SqlValue[] = [
    change.status,
    change.started ?? null,
    change.finished ?? null,
    change.progress === undefined ? null : JSON.stringify(change.progress),
    options.attempts ?? change.attempts,
    JSON.stringify(change.reports),
  ];
  if (options.results !== undefined) {
    set.push("results = ?");
    params.push(JSON.stringify(options.results));
  }
  if (options.message !== undefined) {
    set.push(`messages = ${db.dialect.jsonArrayAppend("messages")}`);
    params.push(JSON.stringify(options.message));
  }
  const changes = await db.run(`UPDATE jobs SET ${set.join(", ")} WHERE id = ? AND status = ?`, [...params, id, job.status]);
  if (changes === 0) {
    const now = await getJob(db, id);
    if (!now) throw new NotFoundError(`No job ${id}.`);
    throw new JobStateError(`Job ${id} changed from ${job.status} to ${now.status} while being updated.`, now.status, to);
  }
  return mustGet(db, id);
}

/**
 * Append a message; false if there is no such job.
 *
 * @example
 * await appendMessage(db, id, { type: "esriJobMessageTypeWarning", description: "3 time steps have no data." });
 */
export async function appendMessage(db: MetadataDb, id: string, message: JobMessage): Promise<boolean> {
  const sql = `UPDATE jobs SET messages = ${db.dialect.jsonArrayAppend("messages")} WHERE id = ?`;
  return (await db.run(sql, [JSON.stringify(message), id])) > 0;
}

/**
 * Record the progress of a running job; ignored (false) unless it is executing or cancelling.
 *
 * @example
 * await setProgress(db, id, { percentage: 40, message: "Tile 4 of 10" });
 */
export async function setProgress(db: MetadataDb, id: string, progress: JobProgress): Promise<boolean> {
  const sql = "UPDATE jobs SET progress = ? WHERE id = ? AND status IN ('esriJobExecuting', 'esriJobCancelling')";
  return (await db.run(sql, [JSON.stringify(progress), id])) > 0;
}

/**
 * Store the results of a job still executing (false otherwise). The executor passes results
 * with the move to esriJobSucceeded instead, so they appear together.
 *
 * @example
 * await setResults(db, id, { outputMultidimensionalRaster: { url, itemId } });
 */
export async function setResults(db: MetadataDb, id: string, results: JsonObject): Promise<boolean> {
  const sql = "UPDATE jobs SET results = ? WHERE id = ? AND status = 'esriJobExecuting'";
  return (await db.run(sql, [JSON.stringify(results), id])) > 0;
}

/**
 * Record one thing the worker reported (`ctx.report(key, value)`); false if no such job.
 *
 * @example
 * await setReport(db, id, "pendingDataset", "20240101T000000Z-4f3a");
 */
export function setReport(db: MetadataDb, id: string, key: string, value: Json): Promise<boolean> {
  return db.transaction(async (tx) => {
    const row = await tx.one<{ reports: string }>("SELECT reports FROM jobs WHERE id = ?", [id]);
    if (!row) return false;
    const reports = JSON.parse(row.reports) as JsonObject;
    reports[key] = value;
    await tx.run("UPDATE jobs SET reports = ? WHERE id = ?", [JSON.stringify(reports), id]);
    return true;
  });
}

/**
 * Delete a finished job: esriJobDeleting, then the record is purged (esriJobDeleted); its
 * outputs stay. Returns the record as it was, with status esriJobDeleted. NotFoundError if
 * there is no such job; JobStateError unless it is terminal (or already being deleted).
 *
 * @example
 * (await deleteJob(db, id)).status; // "esriJobDeleted"
 */
export function deleteJob(db: MetadataDb, id: string): Promise<JobRecord> {
  return db.transaction(async (tx): Promise<JobRecord> => {
    let job = await mustGet(tx, id);
    if (job.status !== "esriJobDeleting") job = await updateStatus(tx, id, "esriJobDeleting");
    assertTransition(job.status, "esriJobDeleted", id);
    await tx.run("DELETE FROM jobs WHERE id = ? AND status = 'esriJobDeleting'", [id]);
    return { ...job, status: "esriJobDeleted" };
  });
}

/**
 * Purge terminal jobs that finished more than `olderThanMs` ago (retention); returns their ids.
 * Their outputs stay, as with deleteJob.
 *
 * @example
 * await expireFinished(db, 7 * 24 * 3600_000);
 */
export async function expireFinished(db: MetadataDb, olderThanMs: number, now: number = Date.now()): Promise<string[]> {
  const sql = `DELETE FROM jobs WHERE status IN (${TERMINAL_SQL}) AND finished < ? RETURNING id`;
  return (await db.all<{ id: string }>(sql, [now - olderThanMs])).map((r) => r.id);
}

interface JobRow {
  seq: number;
  id: string;
  task: string;
  owner: string;
  status: JobStatus;
  inputs: string;
  options: string;
  results: string;
  messages: string;
  progress: string | null;
  reports: string;
  submitted: number;
  started: number | null;
  finished: number | null;
  attempts: number;
}

function fromRow(row: JobRow): JobRecord {
  const job: JobRecord = {
    id: row.id,
    task: row.task,
    owner: row.owner,
    status: row.status,
    inputs: JSON.parse(row.inputs) as JsonObject,
    options: JSON.parse(row.options) as Json,
    results: JSON.parse(row.results) as JsonObject,
    messages: JSON.parse(row.messages) as JobMessage[],
    submitted: row.submitted,
    attempts: row.attempts,
    reports: JSON.parse(row.reports) as JsonObject,
  };
  if (row.progress !== null) job.progress = JSON.parse(row.progress) as JobProgress;
  if (row.started !== null) job.started = row.started;
  if (row.finished !== null) job.finished = row.finished;
  return job;
}

async function mustGet(db: MetadataDb, id: string): Promise<JobRecord> {
  const job = await getJob(db, id);
  if (!job) throw new NotFoundError(`No job ${JSON.stringify(id.length > 64 ? id.slice(0, 64) + "…" : id)}.`);
  return job;
}
