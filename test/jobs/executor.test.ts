import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NotFoundError } from "../../src/cube/errors.js";
import { JobServiceClosedError } from "../../src/jobs/errors.js";
import { MAX_TASK_MESSAGES } from "../../src/jobs/executor.js";
import type { JobRecord } from "../../src/jobs/types.js";
import { setUp, sleepMs, startService, waitFor, waitForStatus } from "./helpers.js";

const errors = (job: JobRecord): string[] => job.messages.filter((m) => m.type === "esriJobMessageTypeError").map((m) => m.description);

describe("job service", () => {
  it("runs a job end to end, persisting its progress and messages", async (t) => {
    const { service } = await setUp(t);
    const submitted = await service.submit("sleep", "ana", { inputMultidimensionalRaster: "x" }, { ms: 600, steps: 6 });
    assert.equal(submitted.status, "esriJobWaiting");
    assert.deepEqual(submitted.inputs, { inputMultidimensionalRaster: "x" });

    const running = await waitFor(async () => {
      const job = await service.get(submitted.id);
      return job?.progress ? job : undefined;
    }, "progress");
    assert.equal(running.status, "esriJobExecuting");
    assert.ok(running.progress!.percentage > 0 && running.progress!.percentage < 100, JSON.stringify(running.progress));
    assert.match(running.progress!.message ?? "", /^Step [1-5] of 6$/);

    const done = await waitForStatus(service, submitted.id, "esriJobSucceeded");
    assert.deepEqual(done.results, { slept: 600 });
    assert.deepEqual(done.messages, [{ type: "esriJobMessageTypeInformative", description: "Sleeping 600 ms." }]);
    assert.equal(done.progress, undefined);
    assert.equal(done.attempts, 1);
    assert.ok(done.started! >= done.submitted && done.finished! >= done.started! + 500);
  });

  it("runs jobs in submission order, one at a time, with one worker", async (t) => {
    const { service } = await setUp(t, { workers: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await service.submit("sleep", "ana", {}, { ms: 40 })).id);
    const jobs = await Promise.all(ids.map((id) => waitForStatus(service, id, "esriJobSucceeded")));
    const byStart = [...jobs].sort((a, b) => a.started! - b.started!);
    assert.deepEqual(
      byStart.map((j) => j.id),
      ids,
    );
    for (let i = 1; i < byStart.length; i++) {
      // Each began only once the previous run had taken its 40 ms.
      assert.ok(byStart[i].started! >= byStart[i - 1].started! + 35, `job ${i} overlapped job ${i - 1}`);
    }
    assert.equal((await service.stats()).workers, 1);
  });

  it("starts warm workers with the service: task module loaded and warmed up before the first job", async (t) => {
    const { service } = await setUp(t, { workers: 2, warmWorkers: 1 });
    assert.equal((await service.stats()).workers, 1, "one thread before any job");
    await sleepMs(2000); // the thread loads the task module (from sources, through tsx) and runs its warmUp
    const submitted = Date.now();
    const job = await service.submit("warmth", "ana", {}, {});
    const done = await waitForStatus(service, job.id, "esriJobSucceeded");
    const { loadedAt, warmedAt } = done.results as { loadedAt: number; warmedAt: number | null };
    assert.ok(loadedAt < submitted && warmedAt !== null && warmedAt >= loadedAt, JSON.stringify({ loadedAt, warmedAt, submitted }));
    assert.equal((await service.stats()).workers, 1, "the job ran on the warm thread");

    // Without warm workers, a thread starts with its job and runs no warm-up.
    const { service: cold } = await setUp(t, { workers: 1 });
    assert.equal((await cold.stats()).workers, 0);
    const coldJob = await cold.submit("warmth", "ana", {}, {});
    const coldDone = await waitForStatus(cold, coldJob.id, "esriJobSucceeded");
    assert.equal((coldDone.results as { warmedAt: number | null }).warmedAt, null);
  });

  it("never runs more jobs at once than it has workers", async (t) => {
    const { service } = await setUp(t, { workers: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await service.submit("sleep", "ana", {}, { ms: 150 })).id);
    let most = 0;
    let mostStats = 0;
    const statuses = async () => Promise.all(ids.map(async (id) => (await service.get(id))?.status));
    while ((await statuses()).some((status) => status !== "esriJobSucceeded")) {
      const executing = (await service.list({ task: "sleep" })).jobs.filter((j) => j.status === "esriJobExecuting").length;
      most = Math.max(most, executing);
      mostStats = Math.max(mostStats, (await service.stats()).running);
      assert.ok((await service.stats()).workers <= 2);
      await sleepMs(3);
    }
    assert.equal(most, 2);
    assert.equal(mostStats, 2);
  });

  it("cancels a waiting job at once and a running one once its worker stops", async (t) => {
    const { service, cleanups, logs } = await setUp(t, { workers: 1 });
    const running = await service.submit("sleep", "ana", {}, { ms: 5000, pending: "ds-1" });
    const waiting = await service.submit("echo", "ana", {}, {});
    await waitFor(async () => (await service.get(running.id))?.reports.pendingDataset, "the task to begin");

    const cancelled = await service.cancel(waiting.id);
    assert.equal(cancelled.status, "esriJobCancelled");

    assert.equal((await service.cancel(running.id)).status, "esriJobCancelling");
    await waitForStatus(service, running.id, "esriJobCancelled");
    // It heard the signal: its worker was not terminated.
    assert.ok(!logs.some((l) => /did not stop/.test(l)), logs.join("\n"));
    assert.deepEqual(
      cleanups.map((c) => [c.id, c.reason, c.reports]),
      [[running.id, "cancelled", { pendingDataset: "ds-1" }]],
    );
    assert.equal((await service.get(waiting.id))?.status, "esriJobCancelled"); // never started

    // The worker stopped cleanly and is reused.
    const next = await service.submit("echo", "ana", {}, { ok: true });
    assert.deepEqual((await waitForStatus(service, next.id, "esriJobSucceeded")).results, { ok: true });
    assert.equal((await service.stats()).workers, 1);

    // Finished jobs are answered as they are; unknown ones are 404s.
    assert.equal((await service.cancel(next.id)).status, "esriJobSucceeded");
    await assert.rejects(service.cancel("j00000000000000000000000000000000"), NotFoundError);
  });

  it("stops a job past its time limit: esriJobTimedOut, saying the limit", async (t) => {
    const { service, cleanups, logs } = await setUp(t, { timeLimitMs: 150 });
    const job = await service.submit("sleep", "ana", {}, { ms: 5000, pending: "ds-2" });
    const timedOut = await waitForStatus(service, job.id, "esriJobTimedOut");
    assert.deepEqual(errors(timedOut), [
      "The job ran longer than the time limit of 150 ms and was stopped. Try a smaller extent or time range, or ask the administrator to raise the limit.",
    ]);
    assert.ok(timedOut.finished! - timedOut.started! < 4000); // long before the 5 s sleep ends
    assert.ok(!logs.some((l) => /did not stop/.test(l)), logs.join("\n"));
    assert.deepEqual(
      cleanups.map((c) => [c.id, c.reason]),
      [[job.id, "timedOut"]],
    );
  });

  it("terminates and replaces a worker that ignores cancellation", async (t) => {
    const { service, logs } = await setUp(t, { cancelGraceMs: 100 });
    const stuck = await service.submit("ignoreCancel", "ana", {}, { ms: 20_000 });
    await waitForStatus(service, stuck.id, "esriJobExecuting");
    await sleepMs(50); // let the worker enter its loop
    assert.equal((await service.cancel(stuck.id)).status, "esriJobCancelling");
    await waitForStatus(service, stuck.id, "esriJobCancelled");
    assert.ok(
      logs.some((l) => /did not stop within 100 ms; terminating its worker/.test(l)),
      logs.join("\n"),
    );

    const next = await service.submit("echo", "ana", {}, { after: "stuck" });
    assert.deepEqual((await waitForStatus(service, next.id, "esriJobSucceeded")).results, { after: "stuck" });
    assert.equal((await service.stats()).workers, 1);
  });

  it("times out a stuck job by terminating its worker", async (t) => {
    const { service } = await setUp(t, { cancelGraceMs: 100, timeLimitMs: 100 });
    const stuck = await service.submit("ignoreCancel", "ana", {}, { ms: 20_000 });
    const timedOut = await waitForStatus(service, stuck.id, "esriJobTimedOut");
    assert.match(errors(timedOut)[0], /time limit of 100 ms/);
  });

  it("fails a job whose task throws, with the error's message and no stack", async (t) => {
    const { service, logs, cleanups } = await setUp(t);
    const job = await service.submit("fail", "ana", {}, { message: "The variable t2m is not in the input.", pending: "ds-3" });
    const failed = await waitForStatus(service, job.id, "esriJobFailed");
    assert.deepEqual(failed.messages, [{ type: "esriJobMessageTypeError", description: "The variable t2m is not in the input." }]);
    assert.deepEqual(failed.results, {});
    assert.deepEqual(
      cleanups.map((c) => [c.id, c.output, c.reason, c.reports]),
      [[job.id, undefined, "failed", { pendingDataset: "ds-3" }]],
    );
    assert.ok(logs.some((l) => l.includes("The variable t2m is not in the input.")));
  });

  it("fails a job whose worker crashes, and the pool keeps working", async (t) => {
    const { service, cleanups } = await setUp(t);
    const job = await service.submit("crash", "ana", {}, { code: 3, pending: "ds-4" });
    const failed = await waitForStatus(service, job.id, "esriJobFailed");
    assert.equal(errors(failed).length, 1);
    assert.match(errors(failed)[0], /^The worker running the job stopped unexpectedly \(exit code 3\)/);
    assert.deepEqual(
      cleanups.map((c) => [c.reason, c.reports]),
      [["failed", { pendingDataset: "ds-4" }]],
    );

    const next = await service.submit("echo", "ana", {}, { n: 2 });
    assert.deepEqual((await waitForStatus(service, next.id, "esriJobSucceeded")).results, { n: 2 });
    assert.equal((await service.stats()).workers, 1);
  });

  it("publishes results through finalize, and fails and cleans up when it throws", async (t) => {
    const { service, cleanups } = await setUp(t, {
      finalize: async (job, output) => {
        if ((output as { taken?: boolean }).taken) throw new Error("An image service with that name already exists.");
        return { outputMultidimensionalRaster: { url: `https://x/${job.id}`, itemId: "item1" } };
      },
    });
    const ok = await service.submit("echo", "ana", {}, { taken: false });
    const succeeded = await waitForStatus(service, ok.id, "esriJobSucceeded");
    assert.deepEqual(succeeded.results, { outputMultidimensionalRaster: { url: `https://x/${ok.id}`, itemId: "item1" } });

    const taken = await service.submit("echo", "ana", {}, { taken: true });
    const failed = await waitForStatus(service, taken.id, "esriJobFailed");
    assert.deepEqual(errors(failed), ["An image service with that name already exists."]);
    assert.deepEqual(failed.results, {});
    assert.deepEqual(
      cleanups.map((c) => [c.id, c.output, c.reason]),
      [[taken.id, { taken: true }, "failed"]],
    );
  });

  it("lets a cancel asked during finalize win, cleaning up the output", async (t) => {
    let finalizing = false;
    const { service, cleanups } = await setUp(t, {
      finalize: async () => {
        finalizing = true;
        await sleepMs(200);
        return { r: 1 };
      },
    });
    const job = await service.submit("echo", "ana", {}, { v: 1 });
    await waitFor(() => finalizing || undefined, "finalize");
    assert.equal((await service.cancel(job.id)).status, "esriJobCancelling");
    const cancelled = await waitForStatus(service, job.id, "esriJobCancelled");
    assert.deepEqual(cancelled.results, {});
    assert.deepEqual(
      cleanups.map((c) => [c.output, c.reason]),
      [[{ v: 1 }, "cancelled"]],
    );
  });

  it("keeps at most MAX_TASK_MESSAGES messages from a task", async (t) => {
    const { service } = await setUp(t);
    const job = await service.submit("chatty", "ana", {}, { count: MAX_TASK_MESSAGES + 5 });
    const done = await waitForStatus(service, job.id, "esriJobSucceeded", 10_000);
    assert.equal(done.messages.length, MAX_TASK_MESSAGES + 1);
    assert.equal(done.messages[MAX_TASK_MESSAGES - 1].description, `Warning ${MAX_TASK_MESSAGES}`);
    assert.deepEqual(done.messages[MAX_TASK_MESSAGES], {
      type: "esriJobMessageTypeWarning",
      description: `The task sent more than ${MAX_TASK_MESSAGES} messages; the rest were not kept.`,
    });
  });

  it("on close, hands running jobs back to the queue and refuses new ones", async (t) => {
    const { service, cleanups, db } = await setUp(t, { workers: 1 });
    const running = await service.submit("sleep", "ana", {}, { ms: 5000, pending: "ds-5" });
    const waiting = await service.submit("echo", "ana", {}, {});
    // Once the worker has said what it is writing.
    await waitFor(async () => (await service.get(running.id))?.reports.pendingDataset, "the report");
    await service.close();

    const handedBack = (await service.get(running.id))!;
    assert.equal(handedBack.status, "esriJobWaiting");
    assert.equal(handedBack.attempts, 0); // a shutdown does not count against the job
    assert.equal(handedBack.started, undefined);
    assert.deepEqual(handedBack.messages.at(-1), {
      type: "esriJobMessageTypeInformative",
      description: "The server was shut down while the job was running; it runs again from the start when the server is back.",
    });
    assert.equal((await service.get(waiting.id))?.status, "esriJobWaiting");
    assert.deepEqual(
      cleanups.map((c) => [c.id, c.reason, c.reports]),
      [[running.id, "interrupted", { pendingDataset: "ds-5" }]],
    );
    assert.deepEqual(await service.stats(), { queued: 0, running: 0, workers: 0 });
    await assert.rejects(service.submit("echo", "ana", {}, {}), JobServiceClosedError);

    // The next server picks both up, in order.
    const next = startService(db, { workers: 1 });
    t.after(() => next.service.close());
    const report = await next.service.recover();
    assert.deepEqual(report.queue, [running.id, waiting.id]);
    const again = await waitForStatus(next.service, running.id, "esriJobExecuting");
    assert.equal(again.attempts, 1);
    assert.equal((await next.service.get(waiting.id))?.status, "esriJobWaiting");
    await next.service.cancel(running.id);
    await waitForStatus(next.service, waiting.id, "esriJobSucceeded");
  });

  it("on close, ends a run already past its time limit as esriJobTimedOut", async (t) => {
    const { service, cleanups } = await setUp(t, { timeLimitMs: 100, cancelGraceMs: 10_000 });
    const stuck = await service.submit("ignoreCancel", "ana", {}, { ms: 20_000 });
    await waitForStatus(service, stuck.id, "esriJobExecuting");
    await sleepMs(300); // past the limit, inside the grace period
    await service.close();
    const timedOut = (await service.get(stuck.id))!;
    assert.equal(timedOut.status, "esriJobTimedOut");
    assert.match(errors(timedOut)[0], /time limit of 100 ms/);
    assert.deepEqual(
      cleanups.map((c) => c.reason),
      ["timedOut"],
    );
  });

  it("purges finished jobs after the retention time", async (t) => {
    const { service } = await setUp(t, { retentionMs: 100 });
    const job = await service.submit("echo", "ana", {}, {});
    await waitForStatus(service, job.id, "esriJobSucceeded");
    await waitFor(async () => ((await service.get(job.id)) === undefined ? true : undefined), "the job to be purged");
  });
});
