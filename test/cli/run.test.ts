/**
 * `strata run`: a task on local files with the GP service's parameters and checks, on
 * threads as a job, into a new Zarr store: values against numpy's goldens, the job's
 * messages and plain progress lines on stderr, and bad input refused naming the parameter,
 * with a non-zero exit and nothing written.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { openCube } from "../../src/io/open.js";
import { strata } from "../helpers/cli.js";

const GOLDEN = fileURLToPath(new URL("../golden/analysis/", import.meta.url));
const DAILY_NC4 = join(GOLDEN, "daily_nc4.nc");

interface Sample {
  variable: string;
  index: Record<string, number>;
  row: number;
  col: number;
  value: number | null;
}
const CASES = JSON.parse(readFileSync(join(GOLDEN, "anomaly.json"), "utf8")) as { name: string; samples: Sample[] }[];

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-run-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("strata run", () => {
  it("computes an anomaly on a NetCDF-4 file on 2 threads into a Zarr store, as numpy does", async () => {
    const output = join(dir, "monthly.zarr");
    const r = await strata(
      "run",
      "Anomaly",
      "--input",
      DAILY_NC4,
      "--output",
      output,
      "--method",
      "DIFFERENCE_FROM_MEAN",
      "--calculationInterval",
      "RECURRING_MONTHLY",
      "--threads",
      "2",
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /GenerateMultidimensionalAnomaly: 100% after/);
    assert.match(r.stderr, /Walking tiles through time|Streaming in storage order/, "says which walk and why");
    const cube = await openCube(output);
    try {
      const v = cube.variables[0];
      const slab = await v.read();
      for (const s of CASES.find((c) => c.name === "diff_mean_monthly_daily")!.samples) {
        const got = slab.data[(s.index.StdTime * slab.shape[1] + s.row) * slab.shape[2] + s.col];
        if (s.value === null) assert.ok(Number.isNaN(got), `${JSON.stringify(s)}: got ${got}`);
        else assert.ok(Math.abs(got - s.value) <= 1e-5 * Math.max(1, Math.abs(s.value)), `${JSON.stringify(s)}: got ${got}`);
      }
    } finally {
      await cube.close();
    }
    assert.deepEqual((await readdir(dir)).sort(), ["monthly.zarr"], "nothing but the output is left");
  });

  it("refuses bad input naming it, with a non-zero exit and nothing written", async () => {
    const output = join(dir, "bad.zarr");
    const cases: [string[], RegExp][] = [
      [["Anomaly", "--input", DAILY_NC4, "--output", output, "--method", "BOGUS"], /method must be one of/],
      [
        ["Anomaly", "--input", DAILY_NC4, "--output", output, "--colour", "red"],
        /--colour is not a parameter of GenerateMultidimensionalAnomaly/,
      ],
      [["Anomaly", "--output", output], /give --input/],
      [["Anomaly", "--input", join(dir, "missing.nc"), "--output", output], /inputMultidimensionalRaster/],
      [["Frobnicate", "--input", DAILY_NC4, "--output", output], /no task "Frobnicate"/],
      [["Trend", "--input", DAILY_NC4, "--output", output, "--threads", "0"], /--threads/],
      [["Subset", "--input", DAILY_NC4, "--output", join(dir, "monthly.zarr")], /already exists/],
    ];
    for (const [argv, why] of cases) {
      const r = await strata("run", ...argv);
      assert.equal(r.code, 1, `${argv.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, why);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    }
    assert.deepEqual((await readdir(dir)).sort(), ["monthly.zarr"]);
  });
});
