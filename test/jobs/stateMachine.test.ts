import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { JobStateError } from "../../src/jobs/errors.js";
import { TERMINAL_STATUSES, assertTransition, canTransition, isTerminal, statusChange } from "../../src/jobs/stateMachine.js";
import { JOB_STATUSES, type JobRecord, type JobStatus } from "../../src/jobs/types.js";

// SPEC §2, plus Executing -> Waiting (the restart rule: run again from the start).
const ALLOWED: [JobStatus, JobStatus][] = [
  ["esriJobSubmitted", "esriJobWaiting"],
  ["esriJobWaiting", "esriJobExecuting"],
  ["esriJobExecuting", "esriJobSucceeded"],
  ["esriJobExecuting", "esriJobFailed"],
  ["esriJobExecuting", "esriJobTimedOut"],
  ["esriJobSubmitted", "esriJobCancelling"],
  ["esriJobWaiting", "esriJobCancelling"],
  ["esriJobExecuting", "esriJobCancelling"],
  ["esriJobCancelling", "esriJobCancelled"],
  ["esriJobSucceeded", "esriJobDeleting"],
  ["esriJobFailed", "esriJobDeleting"],
  ["esriJobTimedOut", "esriJobDeleting"],
  ["esriJobCancelled", "esriJobDeleting"],
  ["esriJobDeleting", "esriJobDeleted"],
  ["esriJobExecuting", "esriJobWaiting"],
];

const key = ([from, to]: [JobStatus, JobStatus]): string => `${from}->${to}`;

describe("job state machine", () => {
  it("allows every transition of SPEC §2", () => {
    for (const [from, to] of ALLOWED) assert.ok(canTransition(from, to), `${from} -> ${to}`);
  });

  it("refuses every other pair (all 100 checked)", () => {
    const allowed = new Set(ALLOWED.map(key));
    let refused = 0;
    for (const from of JOB_STATUSES) {
      for (const to of JOB_STATUSES) {
        if (allowed.has(key([from, to]))) continue;
        assert.equal(canTransition(from, to), false, `${from} -> ${to}`);
        assert.throws(() => assertTransition(from, to), JobStateError);
        refused++;
      }
    }
    assert.equal(refused, 100 - ALLOWED.length);
  });

  it("refuses a sample of tempting shortcuts with a readable error", () => {
    const samples: [JobStatus, JobStatus][] = [
      ["esriJobSubmitted", "esriJobExecuting"],
      ["esriJobWaiting", "esriJobSucceeded"],
      ["esriJobSucceeded", "esriJobExecuting"],
      ["esriJobCancelling", "esriJobExecuting"],
      ["esriJobCancelled", "esriJobWaiting"],
      ["esriJobExecuting", "esriJobDeleting"],
      ["esriJobWaiting", "esriJobDeleting"],
      ["esriJobDeleted", "esriJobSubmitted"],
      ["esriJobFailed", "esriJobSucceeded"],
    ];
    for (const [from, to] of samples) {
      assert.throws(
        () => assertTransition(from, to, "j1"),
        (err: unknown) =>
          err instanceof JobStateError &&
          err.from === from &&
          err.to === to &&
          err.message === `Job j1 that is ${from} cannot become ${to}.`,
      );
    }
  });

  it("knows the terminal statuses", () => {
    assert.deepEqual([...TERMINAL_STATUSES].sort(), ["esriJobCancelled", "esriJobFailed", "esriJobSucceeded", "esriJobTimedOut"]);
    for (const status of JOB_STATUSES) assert.equal(isTerminal(status), TERMINAL_STATUSES.includes(status));
    for (const status of TERMINAL_STATUSES) {
      assert.deepEqual(
        JOB_STATUSES.filter((to) => canTransition(status, to)),
        ["esriJobDeleting"],
      );
    }
  });

  it("computes what changes with the status", () => {
    const job: JobRecord = {
      id: "j1",
      task: "t",
      owner: "o",
      status: "esriJobWaiting",
      inputs: {},
      options: null,
      results: {},
      messages: [],
      submitted: 1,
      attempts: 0,
      reports: { pendingDataset: "old" },
    };
    const executing = statusChange(job, "esriJobExecuting", 10);
    assert.deepEqual(executing, {
      status: "esriJobExecuting",
      started: 10,
      finished: undefined,
      progress: undefined,
      attempts: 1,
      reports: {},
    });

    const running: JobRecord = { ...job, status: "esriJobExecuting", started: 10, attempts: 1, progress: { percentage: 40 } };
    assert.deepEqual(statusChange(running, "esriJobCancelling", 20).progress, { percentage: 40 });
    const failed = statusChange(running, "esriJobFailed", 30);
    assert.equal(failed.finished, 30);
    assert.equal(failed.progress, undefined);
    assert.equal(failed.started, 10);
    const requeued = statusChange(running, "esriJobWaiting", 40);
    assert.equal(requeued.started, undefined);
    assert.equal(requeued.attempts, 1);
    assert.throws(() => statusChange({ ...job, status: "esriJobSucceeded" }, "esriJobExecuting", 50), JobStateError);
  });
});
