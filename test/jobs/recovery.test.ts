import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createJob, getJob, listJobsByStatus } from "../../src/jobs/jobStore.js";
import type { JobStatus, JsonObject } from "../../src/jobs/types.js";
import type { MetadataDb } from "../../src/store/metadataDb.js";
import { openTestDb, startService, waitForStatus } from "./helpers.js";

/** A job as a crashed server would have left it, written straight into the table. */
async function leftBehind(
  db: MetadataDb,
  status: JobStatus,
  submitted: number,
  extra: { task?: string; options?: unknown; attempts?: number; reports?: JsonObject } = {},
): Promise<string> {
  const { id } = await createJob(
    db,
    { task: extra.task ?? "echo", owner: "ana", inputs: {}, options: extra.options ?? { n: submitted } },
    submitted,
  );
  await db.run("UPDATE jobs SET status = ?, attempts = ?, reports = ?, started = ? WHERE id = ?", [
    status,
    extra.attempts ?? 0,
    JSON.stringify(extra.reports ?? {}),
    status === "esriJobExecuting" ? submitted + 1 : null,
    id,
  ]);
  return id;
}

describe("job recovery after a restart", () => {
  it("queues, restarts, fails, cancels and purges what a crash left, then runs the queue in order", async (t) => {
    const { db, dispose } = await openTestDb();
    const executingOnce = await leftBehind(db, "esriJobExecuting", 1000, {
      task: "sleep",
      options: { ms: 30 },
      attempts: 1,
      reports: { pendingDataset: "ds-a" },
    });
    const waiting = await leftBehind(db, "esriJobWaiting", 1001, { task: "sleep", options: { ms: 30 } });
    const executingTwice = await leftBehind(db, "esriJobExecuting", 1002, { attempts: 2, reports: { pendingDataset: "ds-b" } });
    const cancelling = await leftBehind(db, "esriJobCancelling", 1003, { reports: { pendingDataset: "ds-c" } });
    const submitted = await leftBehind(db, "esriJobSubmitted", 1004, { task: "sleep", options: { ms: 30 } });
    const deleting = await leftBehind(db, "esriJobDeleting", 1005);
    const succeeded = await leftBehind(db, "esriJobSucceeded", 1006);

    const { service, cleanups } = startService(db, { workers: 1 });
    t.after(async () => {
      await service.close();
      await dispose();
    });
    const report = await service.recover();
    assert.deepEqual(report, {
      queue: [executingOnce, waiting, submitted],
      restarted: [executingOnce],
      failed: [executingTwice],
      cancelled: [cancelling],
      purged: [deleting],
    });
    assert.deepEqual(
      cleanups.map((c) => [c.id, c.reason, c.reports]),
      [
        [executingOnce, "interrupted", { pendingDataset: "ds-a" }],
        [executingTwice, "failed", { pendingDataset: "ds-b" }],
        [cancelling, "cancelled", { pendingDataset: "ds-c" }],
      ],
    );

    const failed = (await getJob(db, executingTwice))!;
    assert.equal(failed.status, "esriJobFailed");
    assert.deepEqual(failed.messages, [
      {
        type: "esriJobMessageTypeError",
        description:
          "The job was interrupted by a server restart 2 times and was not started again. Submit it again; if it is interrupted again, it may need more memory than the server has.",
      },
    ]);
    assert.equal((await getJob(db, cancelling))?.status, "esriJobCancelled");
    assert.equal(await getJob(db, deleting), undefined);
    assert.equal((await getJob(db, succeeded))?.status, "esriJobSucceeded");

    const done = await Promise.all(report.queue.map((id) => waitForStatus(service, id, "esriJobSucceeded")));
    assert.deepEqual(
      [...done].sort((a, b) => a.started! - b.started!).map((j) => j.id),
      report.queue,
    );
    const restarted = done[0];
    assert.equal(restarted.attempts, 2);
    assert.deepEqual(restarted.reports, {}); // the new attempt starts clean
    assert.deepEqual(restarted.messages[0], {
      type: "esriJobMessageTypeInformative",
      description: "The job was restarted after a server restart; it runs again from the start.",
    });
    assert.deepEqual(await listJobsByStatus(db, ["esriJobSubmitted", "esriJobWaiting", "esriJobExecuting", "esriJobCancelling"]), []);
  });

  it("leaves alone the jobs the running service already has", async (t) => {
    const { db, dispose } = await openTestDb();
    const { service, cleanups } = startService(db, { workers: 1 });
    t.after(async () => {
      await service.close();
      await dispose();
    });
    const running = await service.submit("sleep", "ana", {}, { ms: 200 });
    const queued = await service.submit("echo", "ana", {}, {});
    await waitForStatus(service, running.id, "esriJobExecuting");
    const report = await service.recover();
    assert.deepEqual(report.queue, []);
    assert.deepEqual(report.restarted, []);
    assert.equal((await waitForStatus(service, running.id, "esriJobSucceeded")).attempts, 1);
    assert.equal((await waitForStatus(service, queued.id, "esriJobSucceeded")).attempts, 1);
    assert.deepEqual(cleanups, []);
  });
});
