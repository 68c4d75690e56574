/**
 * Fanning a job out over threads (TaskContext.fanOut): shards run on distinct threads at
 * once and their results come back in order; progress is theirs; one shard's failure fails
 * the job with its message and stops the others; cancelling stops every shard promptly.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setUp, sleepMs, waitFor, waitForStatus } from "./helpers.js";

describe("fanOut", () => {
  it("runs shards at once on distinct threads and returns their results in order", async (t) => {
    const { service } = await setUp(t, { threadsPerJob: 3 });
    const started = Date.now();
    const job = await service.submit("fanOut", "ana", {}, { count: 3, ms: 800 });
    const running = await waitFor(async () => {
      const j = await service.get(job.id);
      return j?.progress && j.progress.percentage > 0 ? j : undefined;
    }, "progress from the shards");
    assert.ok(running.progress!.percentage < 100);
    const done = await waitForStatus(service, job.id, "esriJobSucceeded", 20_000);
    const { results, threads } = done.results as {
      results: { task: string; index: number; count: number; threadId: number }[];
      threads: number;
    };
    assert.equal(threads, 3);
    assert.deepEqual(
      results.map((r) => [r.task, r.index, r.count]),
      [
        ["fanOut", 0, 3],
        ["fanOut", 1, 3],
        ["fanOut", 2, 3],
      ],
    );
    assert.equal(new Set(results.map((r) => r.threadId)).size, 3, "three threads");
    // Three 800 ms shards one after another would take 2.4 s.
    assert.ok(Date.now() - started < 2300, `took ${Date.now() - started} ms`);
  });

  it("fails the job with a failing shard's message, stopping the other shards", async (t) => {
    const { service, logs } = await setUp(t, { threadsPerJob: 4 });
    const started = Date.now();
    const job = await service.submit("fanOut", "ana", {}, { count: 4, ms: 10_000, failShard: 2 });
    const failed = await waitForStatus(service, job.id, "esriJobFailed", 20_000);
    assert.deepEqual(failed.messages, [{ type: "esriJobMessageTypeError", description: "Shard 2 found no data in its tiles." }]);
    assert.ok(Date.now() - started < 8000, `the other shards were not stopped (${Date.now() - started} ms)`);
    assert.ok(logs.some((l) => l.includes("Shard 2 found no data")));
  });

  it("fails the job when shard 0 (on the job's own thread) fails", async (t) => {
    const { service } = await setUp(t, { threadsPerJob: 2 });
    const job = await service.submit("fanOut", "ana", {}, { count: 2, ms: 10_000, failShard: 0 });
    const failed = await waitForStatus(service, job.id, "esriJobFailed", 20_000);
    assert.equal(failed.messages[0].description, "Shard 0 found no data in its tiles.");
  });

  it("cancelling the job stops every shard promptly", async (t) => {
    const { service, cleanups } = await setUp(t, { threadsPerJob: 3 });
    const job = await service.submit("fanOut", "ana", {}, { count: 3, ms: 60_000, pending: "ds-fan" });
    await waitForStatus(service, job.id, "esriJobExecuting");
    await sleepMs(1500); // the shard threads have started
    const asked = Date.now();
    await service.cancel(job.id);
    await waitForStatus(service, job.id, "esriJobCancelled", 10_000);
    assert.ok(Date.now() - asked < 3000, `took ${Date.now() - asked} ms`);
    assert.deepEqual(
      cleanups.map((c) => [c.reason, c.reports]),
      [["cancelled", { pendingDataset: "ds-fan" }]],
    );
  });

  it("refuses a shard count that is not a whole number >= 1", async (t) => {
    const { service } = await setUp(t);
    const job = await service.submit("fanOut", "ana", {}, { count: 0 });
    const failed = await waitForStatus(service, job.id, "esriJobFailed");
    assert.match(failed.messages[0].description, /whole number of shards/);
  });
});
