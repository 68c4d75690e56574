/**
 * Issue 15: every task says what it is doing while it runs, and its percentage moves. The
 * trend task (Mann-Kendall, a tile walk of several tiles) and Subset run with a context that
 * records every progress report: each has a message, the first says the input is being
 * opened, the walk's reports name the task's work, the percentage never goes back and takes
 * many values on the way, and the last reports say the statistics and the output are being
 * written.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openLocation } from "../../src/io/open.js";
import { subsetTask } from "../../src/tasks/subset.js";
import { trendTask } from "../../src/tasks/trend.js";
import type { ParseEnv, RunContext, TaskDefinition } from "../../src/tasks/types.js";
import { REAL } from "../helpers/subsetCases.js";

const NAVY = "monthly_navy_winds.cdf";

const env: ParseEnv = {
  resolveInput: async (descriptor) => {
    const uri = (descriptor as { uri: string }).uri;
    return { location: { path: isAbsolute(uri) ? uri : REAL + uri }, warnings: [] };
  },
  resolveOutput: async () => ({ kind: "create", serviceName: "progress_out", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-progress-"));
});
after(() => rm(dir, { recursive: true, force: true }));

interface Report {
  percentage: number;
  message?: string;
}

async function reportsOf<O>(task: TaskDefinition<O>, options: O): Promise<Report[]> {
  const reports: Report[] = [];
  const ctx: RunContext = {
    signal: new AbortController().signal,
    dataDir: join(dir, "data"),
    progress: (percentage, message) => reports.push({ percentage, message }),
    message: () => {},
    report: () => {},
    threads: 1,
    fanOut: () => Promise.reject(new Error("one thread")),
  };
  await task.run(options, ctx);
  return reports;
}

function assertSaysAndMoves(reports: readonly Report[], work: RegExp): void {
  assert.ok(
    reports.every((r) => typeof r.message === "string" && r.message.trim() !== ""),
    `a report without a message: ${JSON.stringify(reports.find((r) => !r.message))}`,
  );
  assert.deepEqual(reports[0], { percentage: 0, message: "Opening the input" });
  const walking = reports.filter((r) => work.test(r.message!));
  assert.ok(walking.length >= 4, `reports of the walk: ${JSON.stringify(reports)}`);
  for (let i = 1; i < reports.length; i++)
    assert.ok(reports[i].percentage >= reports[i - 1].percentage, `went back at ${i}: ${JSON.stringify(reports.slice(i - 1, i + 1))}`);
  const values = new Set(walking.map((r) => r.percentage));
  assert.ok(values.size >= 4, `the percentage moved through ${[...values].join(", ")}`);
  assert.ok(
    [...values].some((v) => v > 0 && v < 100),
    "the percentage passes between 0 and 100",
  );
  assert.deepEqual(
    reports.slice(-2).map((r) => r.message),
    ["Writing statistics", "Saving the output"],
  );
  assert.equal(reports[reports.length - 1].percentage, 100);
}

describe("progress reports of a run", () => {
  it("Mann-Kendall trend: every report says what it does, the percentage moves tile by tile", async () => {
    const { options } = await trendTask.parse(
      {
        inputMultidimensionalRaster: JSON.stringify({ uri: NAVY }),
        outputName: '{"serviceProperties":{"name":"progress_out"}}',
        variables: "UWND",
        dimension: "StdTime",
        trendLineType: "MANN-KENDALL",
      },
      env,
    );
    const reports = await reportsOf(trendTask, { ...options, tile: { height: 4, width: 8 } });
    assertSaysAndMoves(reports, /^Fitting MANN-KENDALL trends along StdTime for UWND/);
  });

  it("Subset: the same", async () => {
    const { options } = await subsetTask.parse(
      {
        inputMultidimensionalRaster: JSON.stringify({ uri: NAVY }),
        outputName: '{"serviceProperties":{"name":"progress_out"}}',
      },
      env,
    );
    const reports = await reportsOf(subsetTask, options);
    assertSaysAndMoves(reports, /^Writing \d+ variable\(s\), \d+ slice\(s\) in all/);
  });
});
