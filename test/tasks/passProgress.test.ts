/**
 * Issue 11: progress moves evenly over all passes. A walk's passes take the part of the
 * progress their costs give them (OpenedInput.walk.cost, asked for the job's threads), and a
 * pass found not needed leaves its part to the passes after it; without costs the passes
 * share it equally. A task of three passes that writes nothing reports each pass's start
 * and end.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type OpenedInput, datasetRunners } from "../../src/tasks/common.js";
import type { RunContext } from "../../src/tasks/types.js";
import type { Cube } from "../../src/cube/types.js";
import { SMALL_GRID } from "../helpers/smallOutput.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-pass-progress-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** Each pass's progress as [pass, percentage] at its start and end, and the threads each cost was asked for. */
async function passReports(walk: Partial<NonNullable<OpenedInput["walk"]>>, skipped: readonly number[] = [], threads = 1) {
  const reports: [number, number][] = [];
  const askedThreads = new Set<number>();
  const cost = walk.cost;
  const input: OpenedInput = {
    cube: {} as Cube,
    spec: () => ({ grid: SMALL_GRID, attributes: {}, variables: [] }),
    walk: {
      passes: 3,
      note: "three passes",
      alone: [0, 1, 2],
      ...walk,
      ...(cost && {
        cost: (pass: number, t: number) => {
          askedThreads.add(t);
          return cost(pass, t);
        },
      }),
    },
    needed: async (pass) => !skipped.includes(pass),
    async compute(_sink, options) {
      options.onProgress?.(0);
      options.onProgress?.(1);
      return new Map();
    },
    close: async () => {},
  };
  const runners = datasetRunners({ open: async () => input, describe: () => "Passing" });
  const ctx: RunContext = {
    signal: new AbortController().signal,
    dataDir: join(dir, "data"),
    progress: (percentage, message) => {
      const pass = /pass (\d) of/.exec(message ?? "");
      if (pass) reports.push([Number(pass[1]) - 1, percentage]);
    },
    message: () => {},
    report: () => {},
    threads,
    fanOut: () => Promise.reject(new Error("every pass runs alone")),
  };
  await runners.run!({}, ctx);
  return { reports, askedThreads: [...askedThreads] };
}

describe("progress over a walk's passes", () => {
  it("passes alike share it equally", async () => {
    const { reports } = await passReports({});
    assert.deepEqual(reports, [
      [0, 0],
      [0, 33],
      [1, 33],
      [1, 67],
      [2, 67],
      [2, 100],
    ]);
  });

  it("each pass takes the part its cost gives it, the cost asked for the job's threads", async () => {
    const { reports, askedThreads } = await passReports({ shares: 2, cost: (pass, threads) => [1, 2 * threads, 1][pass] }, [], 2);
    // Costs 1, 4, 1 on two threads.
    assert.deepEqual(reports, [
      [0, 0],
      [0, 17],
      [1, 17],
      [1, 83],
      [2, 83],
      [2, 100],
    ]);
    assert.deepEqual(askedThreads, [2]);
  });

  it("a pass not needed leaves its part to the passes after it, and a last one not needed ends at 100", async () => {
    const costs = { cost: (pass: number) => [1, 2, 1][pass] };
    assert.deepEqual((await passReports(costs, [1])).reports, [
      [0, 0],
      [0, 25],
      [2, 25],
      [2, 100],
    ]);
    assert.deepEqual((await passReports(costs, [2])).reports, [
      [0, 0],
      [0, 25],
      [1, 25],
      [1, 75],
      [2, 100],
    ]);
  });
});
