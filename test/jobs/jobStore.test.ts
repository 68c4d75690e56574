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
import { openMetadataDb, type MetadataDatabase } from "../../src/store/metadataDb.js";
import { BACKENDS, openTestDb } from "./helpers.js";

for (const backend of BACKENDS)
  describe(`job store (${backend})`, () => {
    let db: MetadataDatabase;
    let target: string;
    let dispose: () => Promise<void>;

    beforeEach(async () => {
      ({ db, target, dispose } = await openTestDb(backend));
    });
    afterEach(() => dispose());

    const newJob = (owner = "ana", task = "echo", submitted = Date.now()) =>
      createJob(db, { task, owner, inputs: { token: undefined as never, x: 1 }, options: { n: 1 } }, submitted);

    /** Walk a fresh job to `status` along allowed transitions. */
    async function jobIn(status: JobStatus, owner = "ana"): Promise<string> {
      const { id } = await newJob(owner);
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
      for (const step of path[status]) await updateStatus(db, id, step);
      return id;
    }

    describe("records", () => {
      it("creates and reads a job", async () => {
        const job = await newJob("ana", "echo", 1000);
        assert.ok(isJobId(job.id), job.id);
        assert.equal(job.id.length, 33);
        assert.deepEqual(await getJob(db, job.id), {
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
        assert.equal(await getJob(db, "jnope"), undefined);
        await migrateJobs(db); // idempotent
      });

      it("moves through the state machine, with timestamps and attempts", async () => {
        const { id } = await newJob();
        await updateStatus(db, id, "esriJobWaiting", { now: 5 });
        const executing = await updateStatus(db, id, "esriJobExecuting", { now: 10 });
        assert.equal(executing.started, 10);
        assert.equal(executing.attempts, 1);
        const done = await updateStatus(db, id, "esriJobSucceeded", { now: 20, results: { out: { url: "u", itemId: "i" } } });
        assert.equal(done.status, "esriJobSucceeded");
        assert.equal(done.finished, 20);
        assert.deepEqual(done.results, { out: { url: "u", itemId: "i" } });
        await assert.rejects(updateStatus(db, id, "esriJobExecuting"), JobStateError);
        await assert.rejects(updateStatus(db, "j0", "esriJobWaiting"), NotFoundError);
      });

      it("lets only one of two actors move a job (optimistic check)", async () => {
        const id = await jobIn("esriJobExecuting");
        // Two connections, as two server nodes would have.
        const other = await openMetadataDb(target);
        try {
          await updateStatus(other, id, "esriJobCancelling", { from: "esriJobExecuting" });
          await assert.rejects(
            updateStatus(db, id, "esriJobSucceeded", { from: "esriJobExecuting", results: { a: 1 } }),
            (err: unknown) => err instanceof JobStateError && /is esriJobCancelling, not esriJobExecuting/.test(err.message),
          );
          const job = await getJob(db, id);
          assert.equal(job?.status, "esriJobCancelling");
          assert.deepEqual(job?.results, {});
        } finally {
          await other.close();
        }
      });

      it("appends a message in the same write as the status", async () => {
        const id = await jobIn("esriJobExecuting");
        await appendMessage(db, id, { type: "esriJobMessageTypeInformative", description: "one" });
        const failed = await updateStatus(db, id, "esriJobFailed", { message: { type: "esriJobMessageTypeError", description: "two" } });
        assert.deepEqual(failed.messages, [
          { type: "esriJobMessageTypeInformative", description: "one" },
          { type: "esriJobMessageTypeError", description: "two" },
        ]);
        assert.equal(await appendMessage(db, "j0", { type: "esriJobMessageTypeInformative", description: "x" }), false);
      });

      it("keeps progress only while running", async () => {
        const id = await jobIn("esriJobWaiting");
        assert.equal(await setProgress(db, id, { percentage: 10 }), false);
        await updateStatus(db, id, "esriJobExecuting");
        assert.equal(await setProgress(db, id, { percentage: 50, message: "half" }), true);
        assert.deepEqual((await getJob(db, id))?.progress, { percentage: 50, message: "half" });
        assert.deepEqual((await updateStatus(db, id, "esriJobCancelling")).progress, { percentage: 50, message: "half" });
        assert.equal((await updateStatus(db, id, "esriJobCancelled")).progress, undefined);
      });

      it("stores results only while executing, and reports", async () => {
        const id = await jobIn("esriJobExecuting");
        assert.equal(await setResults(db, id, { r: 1 }), true);
        assert.equal(await setReport(db, id, "pendingDataset", "ds1"), true);
        assert.equal(await setReport(db, id, "other", { a: [1, 2] }), true);
        assert.deepEqual((await getJob(db, id))?.reports, { pendingDataset: "ds1", other: { a: [1, 2] } });
        await updateStatus(db, id, "esriJobFailed");
        assert.equal(await setResults(db, id, { r: 2 }), false);
        assert.equal(await setReport(db, "j0", "k", 1), false);
      });

      it("deletes only finished jobs, purging the record", async () => {
        const done = await jobIn("esriJobSucceeded");
        const deleted = await deleteJob(db, done);
        assert.equal(deleted.status, "esriJobDeleted");
        assert.equal(await getJob(db, done), undefined);
        const running = await jobIn("esriJobExecuting");
        await assert.rejects(deleteJob(db, running), JobStateError);
        assert.equal((await getJob(db, running))?.status, "esriJobExecuting");
        await assert.rejects(deleteJob(db, done), NotFoundError);
        // A delete interrupted half-way is finished.
        const half = await jobIn("esriJobDeleting");
        assert.equal((await deleteJob(db, half)).status, "esriJobDeleted");
        assert.equal(await getJob(db, half), undefined);
      });

      it("lists a task's jobs newest first, by owner, paged", async () => {
        const ids: Record<string, string[]> = { ana: [], bo: [] };
        for (let i = 0; i < 7; i++) {
          const owner = i % 3 === 0 ? "bo" : "ana";
          ids[owner].push((await newJob(owner, "echo", 1000 + i)).id);
        }
        await newJob("ana", "sleep", 2000);
        const deleting = await jobIn("esriJobDeleting", "ana");
        const anaNewestFirst = [...ids.ana].reverse();

        const page1 = await listJobs(db, { task: "echo", owner: "ana", offset: 0, limit: 3 });
        assert.equal(page1.total, 4);
        assert.deepEqual(
          page1.jobs.map((j) => j.id),
          anaNewestFirst.slice(0, 3),
        );
        const page2 = await listJobs(db, { task: "echo", owner: "ana", offset: 3, limit: 3 });
        assert.deepEqual(
          page2.jobs.map((j) => j.id),
          anaNewestFirst.slice(3),
        );
        assert.deepEqual((await listJobs(db, { task: "echo", owner: "ana", offset: 10, limit: 3 })).jobs, []);

        const bo = await listJobs(db, { task: "echo", owner: "bo" });
        assert.deepEqual(
          bo.jobs.map((j) => j.id),
          [...ids.bo].reverse(),
        );
        assert.equal((await listJobs(db, { task: "echo", owner: "nobody" })).total, 0);

        // Everyone's (administrators), without the job being deleted.
        const all = await listJobs(db, { task: "echo" });
        assert.equal(all.total, 7);
        assert.deepEqual(
          all.jobs.map((j) => j.submitted),
          [1006, 1005, 1004, 1003, 1002, 1001, 1000],
        );
        assert.ok(!all.jobs.some((j) => j.id === deleting));
        assert.equal((await listJobs(db, { task: "sleep" })).total, 1);

        // Ties in submission time keep submission order (newest first).
        const a = (await newJob("cy", "echo", 5000)).id;
        const b = (await newJob("cy", "echo", 5000)).id;
        assert.deepEqual(
          (await listJobs(db, { task: "echo", owner: "cy" })).jobs.map((j) => j.id),
          [b, a],
        );
        // Nonsense paging is clamped rather than refused.
        assert.equal((await listJobs(db, { task: "echo", offset: -5, limit: 0 })).jobs.length, 1);
      });

      it("lists jobs by status in submission order", async () => {
        const a = await jobIn("esriJobWaiting");
        const b = await jobIn("esriJobExecuting");
        await jobIn("esriJobSucceeded");
        const c = await jobIn("esriJobWaiting");
        assert.deepEqual(
          (await listJobsByStatus(db, ["esriJobWaiting", "esriJobExecuting"])).map((j) => j.id),
          [a, b, c],
        );
        assert.deepEqual(await listJobsByStatus(db, []), []);
      });

      it("expires finished jobs past the retention time, only those", async () => {
        const old: string[] = [];
        for (const s of ["esriJobSucceeded", "esriJobFailed", "esriJobTimedOut", "esriJobCancelled"]) old.push(await jobIn(s as JobStatus));
        const running = await jobIn("esriJobExecuting");
        const waiting = await jobIn("esriJobWaiting");
        const now = Date.now();
        assert.deepEqual(await expireFinished(db, 60_000, now), []);
        const setFinished = (finished: number, id: string) => db.run("UPDATE jobs SET finished = ? WHERE id = ?", [finished, id]);
        for (const id of old) await setFinished(now - 120_000, id);
        const fresh = await jobIn("esriJobSucceeded");
        await setFinished(now - 30_000, fresh);
        const expired = await expireFinished(db, 60_000, now);
        assert.deepEqual([...expired].sort(), [...old].sort());
        for (const id of old) assert.equal(await getJob(db, id), undefined);
        for (const id of [running, waiting, fresh]) assert.ok(await getJob(db, id));
      });
    });
  });
