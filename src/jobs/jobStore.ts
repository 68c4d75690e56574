/**
 * Durable job records in the metadata database (table `jobs`, JSON in TEXT columns). Every
 * status change goes through the state machine and an optimistic check of the status it was
 * read with, so two actors (an HTTP cancel and a finishing worker, or two server nodes)
 * cannot both move a job.
 */
import type Database from "better-sqlite3";
import { NotFoundError } from "../cube/errors.js";
import { migrate, type MetadataDb } from "../store/metadataDb.js";
import { JobStateError } from "./errors.js";
import { newJobId } from "./jobId.js";
import { TERMINAL_STATUSES, assertTransition, statusChange } from "./stateMachine.js";
import { JOB_STATUSES, type Json, type JobMessage, type JobProgress, type JobRecord, type JobStatus, type JsonObject } from "./types.js";

const MIGRATIONS = [
  `CREATE TABLE jobs (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     task TEXT NOT NULL,
     owner TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN (${JOB_STATUSES.map((s) => `'${s}'`).join(", ")})),
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
 * const db = openMetadataDb("./data/strata.db");
 * migrateJobs(db);
 */
export function migrateJobs(db: MetadataDb): void {
  migrate(db, "jobs", MIGRATIONS);
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
 * const job = createJob(db, { task: "GenerateTrendRaster", owner: "ana", inputs, options });
 */
export function createJob(db: MetadataDb, job: NewJob, now: number = Date.now()): JobRecord {
  const id = newJobId();
  statement(db, "INSERT INTO jobs (id, task, owner, status, inputs, options, submitted) VALUES (?, ?, ?, 'esriJobSubmitted', ?, ?, ?)").run(
    id,
    job.task,
    job.owner,
    JSON.stringify(job.inputs),
    JSON.stringify(job.options ?? null),
    now,
  );
  return mustGet(db, id);
}

/**
 * The job `id`, or undefined when there is none.
 *
 * @example
 * const job = getJob(db, req.params.jobId);
 * if (!job || job.owner !== user) throw new NotFoundError("No such job.");
 */
export function getJob(db: MetadataDb, id: string): JobRecord | undefined {
  const row = statement(db, "SELECT * FROM jobs WHERE id = ?").get(id) as JobRow | undefined;
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
 * const { jobs, total } = listJobs(db, { task: "SubsetMultidimensionalRaster", owner: "ana", offset: 0, limit: 20 });
 */
export function listJobs(db: MetadataDb, query: ListJobsQuery): JobPage {
  const offset = Math.max(0, Math.floor(query.offset ?? 0));
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(query.limit ?? DEFAULT_PAGE_SIZE)));
  // Two texts rather than "(? IS NULL OR owner = ?)", so SQLite can use the owner index.
  const where = `task = @task ${query.owner === undefined ? "" : "AND owner = @owner"} AND status NOT IN ('esriJobDeleting', 'esriJobDeleted')`;
  const params = { task: query.task, ...(query.owner === undefined ? {} : { owner: query.owner }) };
  const total = (statement(db, `SELECT count(*) AS n FROM jobs WHERE ${where}`).get(params) as { n: number }).n;
  const rows = statement(db, `SELECT * FROM jobs WHERE ${where} ORDER BY submitted DESC, seq DESC LIMIT @limit OFFSET @offset`).all({
    ...params,
    limit,
    offset,
  }) as JobRow[];
  return { jobs: rows.map(fromRow), total };
}

/**
 * Jobs in any of `statuses`, in submission order (for restart recovery).
 *
 * @example
 * const interrupted = listJobsByStatus(db, ["esriJobExecuting"]);
 */
export function listJobsByStatus(db: MetadataDb, statuses: readonly JobStatus[]): JobRecord[] {
  if (statuses.length === 0) return [];
  const marks = statuses.map(() => "?").join(", ");
  const rows = statement(db, `SELECT * FROM jobs WHERE status IN (${marks}) ORDER BY submitted, seq`).all(...statuses) as JobRow[];
  return rows.map(fromRow);
}

/**
 * Whether a job that has not finished has `value` at `path` of its options (a JSON path),
 * compared case-insensitively: e.g. a service name a running job will create.
 * @example
 * activeJobWithOption(db, "$.output.serviceName", "sst_anomaly");
 */
export function activeJobWithOption(db: MetadataDb, path: string, value: string): boolean {
  const sql = `SELECT 1 FROM jobs WHERE status NOT IN (${TERMINAL_SQL}) AND lower(json_extract(options, ?)) = lower(?) LIMIT 1`;
  return statement(db, sql).get(path, value) !== undefined;
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
 * updateStatus(db, id, "esriJobFailed", {
 *   from: "esriJobExecuting",
 *   message: { type: "esriJobMessageTypeError", description: "The input has no time dimension." },
 * });
 */
export function updateStatus(db: MetadataDb, id: string, to: JobStatus, options: UpdateStatusOptions = {}): JobRecord {
  const job = mustGet(db, id);
  const expected = options.from === undefined ? undefined : typeof options.from === "string" ? [options.from] : options.from;
  if (expected && !expected.includes(job.status)) {
    throw new JobStateError(`Job ${id} is ${job.status}, not ${expected.join(" or ")}.`, job.status, to);
  }
  const change = statusChange(job, to, options.now ?? Date.now());
  const result = statement(
    db,
    `UPDATE jobs SET status = @status, started = @started, finished = @finished, progress = @progress,
       attempts = @attempts, reports = @reports, results = coalesce(@results, results),
       messages = CASE WHEN @message IS NULL THEN messages ELSE json_insert(messages, '$[#]', json(@message)) END
     WHERE id = @id AND status = @previous`,
  ).run({
    id,
    previous: job.status,
    status: change.status,
    started: change.started ?? null,
    finished: change.finished ?? null,
    progress: change.progress === undefined ? null : JSON.stringify(change.progress),
    attempts: options.attempts ?? change.attempts,
    reports: JSON.stringify(change.reports),
    results: options.results === undefined ? null : JSON.stringify(options.results),
    message: options.message === undefined ? null : JSON.stringify(options.message),
  });
  if (result.changes === 0) {
    const now = getJob(db, id);
    if (!now) throw new NotFoundError(`No job ${id}.`);
    throw new JobStateError(`Job ${id} changed from ${job.status} to ${now.status} while being updated.`, now.status, to);
  }
  return mustGet(db, id);
}

/**
 * Append a message; false if there is no such job.
 *
 * @example
 * appendMessage(db, id, { type: "esriJobMessageTypeWarning", description: "3 time steps have no data." });
 */
export function appendMessage(db: MetadataDb, id: string, message: JobMessage): boolean {
  const sql = "UPDATE jobs SET messages = json_insert(messages, '$[#]', json(?)) WHERE id = ?";
  return statement(db, sql).run(JSON.stringify(message), id).changes > 0;
}

/**
 * Record the progress of a running job; ignored (false) unless it is executing or cancelling.
 *
 * @example
 * setProgress(db, id, { percentage: 40, message: "Tile 4 of 10" });
 */
export function setProgress(db: MetadataDb, id: string, progress: JobProgress): boolean {
  const sql = "UPDATE jobs SET progress = ? WHERE id = ? AND status IN ('esriJobExecuting', 'esriJobCancelling')";
  return statement(db, sql).run(JSON.stringify(progress), id).changes > 0;
}

/**
 * Store the results of a job still executing (false otherwise). The executor passes results
 * with the move to esriJobSucceeded instead, so they appear together.
 *
 * @example
 * setResults(db, id, { outputMultidimensionalRaster: { url, itemId } });
 */
export function setResults(db: MetadataDb, id: string, results: JsonObject): boolean {
  const sql = "UPDATE jobs SET results = ? WHERE id = ? AND status = 'esriJobExecuting'";
  return statement(db, sql).run(JSON.stringify(results), id).changes > 0;
}

/**
 * Record one thing the worker reported (`ctx.report(key, value)`); false if no such job.
 *
 * @example
 * setReport(db, id, "pendingDataset", "20240101T000000Z-4f3a");
 */
export function setReport(db: MetadataDb, id: string, key: string, value: Json): boolean {
  const update = db.transaction(() => {
    const row = statement(db, "SELECT reports FROM jobs WHERE id = ?").get(id) as { reports: string } | undefined;
    if (!row) return false;
    const reports = JSON.parse(row.reports) as JsonObject;
    reports[key] = value;
    statement(db, "UPDATE jobs SET reports = ? WHERE id = ?").run(JSON.stringify(reports), id);
    return true;
  });
  return update();
}

/**
 * Delete a finished job: esriJobDeleting, then the record is purged (esriJobDeleted); its
 * outputs stay. Returns the record as it was, with status esriJobDeleted. NotFoundError if
 * there is no such job; JobStateError unless it is terminal (or already being deleted).
 *
 * @example
 * deleteJob(db, id).status; // "esriJobDeleted"
 */
export function deleteJob(db: MetadataDb, id: string): JobRecord {
  const purge = db.transaction((): JobRecord => {
    let job = mustGet(db, id);
    if (job.status !== "esriJobDeleting") job = updateStatus(db, id, "esriJobDeleting");
    assertTransition(job.status, "esriJobDeleted", id);
    statement(db, "DELETE FROM jobs WHERE id = ? AND status = 'esriJobDeleting'").run(id);
    return { ...job, status: "esriJobDeleted" };
  });
  return purge();
}

/**
 * Purge terminal jobs that finished more than `olderThanMs` ago (retention); returns their ids.
 * Their outputs stay, as with deleteJob.
 *
 * @example
 * expireFinished(db, 7 * 24 * 3600_000);
 */
export function expireFinished(db: MetadataDb, olderThanMs: number, now: number = Date.now()): string[] {
  const sql = `DELETE FROM jobs WHERE status IN (${TERMINAL_SQL}) AND finished < ? RETURNING id`;
  return (statement(db, sql).all(now - olderThanMs) as { id: string }[]).map((r) => r.id);
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

function mustGet(db: MetadataDb, id: string): JobRecord {
  const job = getJob(db, id);
  if (!job) throw new NotFoundError(`No job ${JSON.stringify(id.length > 64 ? id.slice(0, 64) + "…" : id)}.`);
  return job;
}

// Progress and messages are written often: prepare each text once per database.
const statements = new WeakMap<MetadataDb, Map<string, Database.Statement>>();

function statement(db: MetadataDb, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}
