import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { NotFoundError } from "../../src/cube/errors.js";
import { JobStateError } from "../../src/jobs/errors.js";
import { isJobId } from "../../src/jobs/jobId.js";
import {
  appendMessage,
  createJob,
  deleteJob,
  expireFinished,
  getJob,
  listJobs,
  listJobsByStatus,
  migrateJobs,
  setProgress,
  setReport,
  setResults,
  updateStatus,
} from "../../src/jobs/jobStore.js";
import type { JobStatus } from "../../src/jobs/types.js";
import { openMetadataDb, type MetadataDb } from "../../src/store/metadataDb.js";
import { openTestDb } from "./helpers.js";

let db: MetadataDb;
let path: string;
let dispose: () => void;

beforeEach(() => {
  ({ db, path, dispose } = openTestDb());
});
afterEach(() => dispose());

const newJob = (owner = "ana", task = "echo", submitted = Date.now()) =>
  createJob(db, { task, owner, inputs: { token: undefined as never, x: 1 }, options: { n: 1 } }, submitted);

/** Walk a fresh job to `status` along allowed transitions. */
function jobIn(status: JobStatus, owner = "ana"): string {
  const { id } = newJob(owner);
  const path: Record<JobStatus, JobStatus[]> = {
    esriJobSubmitted: [],
    esriJobWaiting: ["esriJobWaiting"],
    esriJobExecuting: ["esriJobWaiting", "esriJobExecuting"],
    esriJobSucceeded: ["esriJobWaiting", "esriJobExecuting", "esriJobSucceeded"],
    esriJobFailed: ["esriJobWaiting", "esriJobExecuting", "esriJobFailed"],
    esriJobTimedOut: ["esriJobWaiting", "esriJobExecuting", "esriJobTimedOut"],
    esriJobCancelling: ["esriJobWaiting", "esriJobCancelling"],
    esriJobCancelled: ["esriJobWaiting", "esriJobCancelling", "esriJobCancelled"],
    esriJobDeleting: ["esriJobWaiting", "esriJobExecuting", "esriJobSucceeded", "esriJobDeleting"],
    esriJobDeleted: [],
  };
  for (const step of path[status]) updateStatus(db, id, step);
  return id;
}

describe("job store", () => {
  it("creates and reads a job", () => {
    const job = newJob("ana", "echo", 1000);
    assert.ok(isJobId(job.id), job.id);
    assert.equal(job.id.length, 33);
    assert.deepEqual(getJob(db, job.id), {
      id: job.id,
      task: "echo",
      owner: "ana",
      status: "esriJobSubmitted",
      inputs: { x: 1 }, // JSON drops undefined
      options: { n: 1 },
      results: {},
      messages: [],
      submitted: 1000,
      attempts: 0,
      reports: {},
    });
    assert.equal(getJob(db, "jnope"), undefined);
    migrateJobs(db); // idempotent
  });

  it("moves through the state machine, with timestamps and attempts", () => {
    const { id } = newJob();
    updateStatus(db, id, "esriJobWaiting", { now: 5 });
    const executing = updateStatus(db, id, "esriJobExecuting", { now: 10 });
    assert.equal(executing.started, 10);
    assert.equal(executing.attempts, 1);
    const done = updateStatus(db, id, "esriJobSucceeded", { now: 20, results: { out: { url: "u", itemId: "i" } } });
    assert.equal(done.status, "esriJobSucceeded");
    assert.equal(done.finished, 20);
    assert.deepEqual(done.results, { out: { url: "u", itemId: "i" } });
    assert.throws(() => updateStatus(db, id, "esriJobExecuting"), JobStateError);
    assert.throws(() => updateStatus(db, "j0", "esriJobWaiting"), NotFoundError);
  });

  it("lets only one of two actors move a job (optimistic check)", () => {
    const id = jobIn("esriJobExecuting");
    // Two connections, as two server nodes would have.
    const other = openMetadataDb(path);
    try {
      updateStatus(other, id, "esriJobCancelling", { from: "esriJobExecuting" });
      assert.throws(
        () => updateStatus(db, id, "esriJobSucceeded", { from: "esriJobExecuting", results: { a: 1 } }),
        (err: unknown) => err instanceof JobStateError && /is esriJobCancelling, not esriJobExecuting/.test(err.message),
      );
      const job = getJob(db, id);
      assert.equal(job?.status, "esriJobCancelling");
      assert.deepEqual(job?.results, {});
    } finally {
      other.close();
    }
  });

  it("appends a message in the same write as the status", () => {
    const id = jobIn("esriJobExecuting");
    appendMessage(db, id, { type: "esriJobMessageTypeInformative", description: "one" });
    const failed = updateStatus(db, id, "esriJobFailed", { message: { type: "esriJobMessageTypeError", description: "two" } });
    assert.deepEqual(failed.messages, [
      { type: "esriJobMessageTypeInformative", description: "one" },
      { type: "esriJobMessageTypeError", description: "two" },
    ]);
    assert.equal(appendMessage(db, "j0", { type: "esriJobMessageTypeInformative", description: "x" }), false);
  });

  it("keeps progress only while running", () => {
    const id = jobIn("esriJobWaiting");
    assert.equal(setProgress(db, id, { percentage: 10 }), false);
    updateStatus(db, id, "esriJobExecuting");
    assert.equal(setProgress(db, id, { percentage: 50, message: "half" }), true);
    assert.deepEqual(getJob(db, id)?.progress, { percentage: 50, message: "half" });
    assert.deepEqual(updateStatus(db, id, "esriJobCancelling").progress, { percentage: 50, message: "half" });
    assert.equal(updateStatus(db, id, "esriJobCancelled").progress, undefined);
  });

  it("stores results only while executing, and reports", () => {
    const id = jobIn("esriJobExecuting");
    assert.equal(setResults(db, id, { r: 1 }), true);
    assert.equal(setReport(db, id, "pendingDataset", "ds1"), true);
    assert.equal(setReport(db, id, "other", { a: [1, 2] }), true);
    assert.deepEqual(getJob(db, id)?.reports, { pendingDataset: "ds1", other: { a: [1, 2] } });
    updateStatus(db, id, "esriJobFailed");
    assert.equal(setResults(db, id, { r: 2 }), false);
    assert.equal(setReport(db, "j0", "k", 1), false);
  });

  it("deletes only finished jobs, purging the record", () => {
    const done = jobIn("esriJobSucceeded");
    const deleted = deleteJob(db, done);
    assert.equal(deleted.status, "esriJobDeleted");
    assert.equal(getJob(db, done), undefined);
    const running = jobIn("esriJobExecuting");
    assert.throws(() => deleteJob(db, running), JobStateError);
    assert.equal(getJob(db, running)?.status, "esriJobExecuting");
    assert.throws(() => deleteJob(db, done), NotFoundError);
    // A delete interrupted half-way is finished.
    const half = jobIn("esriJobDeleting");
    assert.equal(deleteJob(db, half).status, "esriJobDeleted");
    assert.equal(getJob(db, half), undefined);
  });

  it("lists a task's jobs newest first, by owner, paged", () => {
    const ids: Record<string, string[]> = { ana: [], bo: [] };
    for (let i = 0; i < 7; i++) {
      const owner = i % 3 === 0 ? "bo" : "ana";
      ids[owner].push(newJob(owner, "echo", 1000 + i).id);
    }
    newJob("ana", "sleep", 2000);
    const deleting = jobIn("esriJobDeleting", "ana");
    const anaNewestFirst = [...ids.ana].reverse();

    const page1 = listJobs(db, { task: "echo", owner: "ana", offset: 0, limit: 3 });
    assert.equal(page1.total, 4);
    assert.deepEqual(
      page1.jobs.map((j) => j.id),
      anaNewestFirst.slice(0, 3),
    );
    const page2 = listJobs(db, { task: "echo", owner: "ana", offset: 3, limit: 3 });
    assert.deepEqual(
      page2.jobs.map((j) => j.id),
      anaNewestFirst.slice(3),
    );
    assert.deepEqual(listJobs(db, { task: "echo", owner: "ana", offset: 10, limit: 3 }).jobs, []);

    const bo = listJobs(db, { task: "echo", owner: "bo" });
    assert.deepEqual(
      bo.jobs.map((j) => j.id),
      [...ids.bo].reverse(),
    );
    assert.equal(listJobs(db, { task: "echo", owner: "nobody" }).total, 0);

    // Everyone's (administrators), without the job being deleted.
    const all = listJobs(db, { task: "echo" });
    assert.equal(all.total, 7);
    assert.deepEqual(
      all.jobs.map((j) => j.submitted),
      [1006, 1005, 1004, 1003, 1002, 1001, 1000],
    );
    assert.ok(!all.jobs.some((j) => j.id === deleting));
    assert.equal(listJobs(db, { task: "sleep" }).total, 1);

    // Ties in submission time keep submission order (newest first).
    const a = newJob("cy", "echo", 5000).id;
    const b = newJob("cy", "echo", 5000).id;
    assert.deepEqual(
      listJobs(db, { task: "echo", owner: "cy" }).jobs.map((j) => j.id),
      [b, a],
    );
    // Nonsense paging is clamped rather than refused.
    assert.equal(listJobs(db, { task: "echo", offset: -5, limit: 0 }).jobs.length, 1);
  });

  it("lists jobs by status in submission order", () => {
    const a = jobIn("esriJobWaiting");
    const b = jobIn("esriJobExecuting");
    jobIn("esriJobSucceeded");
    const c = jobIn("esriJobWaiting");
    assert.deepEqual(
      listJobsByStatus(db, ["esriJobWaiting", "esriJobExecuting"]).map((j) => j.id),
      [a, b, c],
    );
    assert.deepEqual(listJobsByStatus(db, []), []);
  });

  it("expires finished jobs past the retention time, only those", () => {
    const old = ["esriJobSucceeded", "esriJobFailed", "esriJobTimedOut", "esriJobCancelled"].map((s) => jobIn(s as JobStatus));
    const running = jobIn("esriJobExecuting");
    const waiting = jobIn("esriJobWaiting");
    const now = Date.now();
    assert.deepEqual(expireFinished(db, 60_000, now), []);
    const setFinished = db.prepare("UPDATE jobs SET finished = ? WHERE id = ?");
    for (const id of old) setFinished.run(now - 120_000, id);
    const fresh = jobIn("esriJobSucceeded");
    setFinished.run(now - 30_000, fresh);
    const expired = expireFinished(db, 60_000, now);
    assert.deepEqual([...expired].sort(), [...old].sort());
    for (const id of old) assert.equal(getJob(db, id), undefined);
    for (const id of [running, waiting, fresh]) assert.ok(getJob(db, id));
  });
});
