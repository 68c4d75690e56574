/**
 * Tiles of whole chunks through time read each stored chunk once (issue 11): daily_t100.nc
 * holds daily.nc (1096 days of 4 × 5 cells) 100 days × 2 rows × 5 columns a chunk, zlib and
 * shuffle. With a tile budget below one chunk's 2 × 5 cells through time, the planner takes
 * tiles of exactly one chunk's cells rather than streaming or transposing; every read the
 * anomaly and the trend make is counted by wrapping the variable, and each of the 11 × 2
 * chunks must be met by exactly one read, whatever the method (means, medians, least
 * squares, Mann-Kendall).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Selection } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { writeAnomaly } from "../../src/tasks/anomaly.js";
import { chooseAnomalyWalk } from "../../src/tasks/anomalyStreaming.js";
import { writeTrend } from "../../src/tasks/trend.js";
import { chooseTrendWalk } from "../../src/tasks/trendStreaming.js";
import { chunksMet, countedReads } from "../helpers/countedReads.js";

const FILE = fileURLToPath(new URL("../golden/analysis/daily_t100.nc", import.meta.url));
const WINDOW = { x: 0, y: 0, width: 5, height: 4 };
/** Below one chunk's 10 cells through 1096 days (88 KB counted as float64). */
const BUDGET = 36 * 1024;

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-tile-chunk-reads-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function assertEachOnce(reads: readonly Selection[], what: string): void {
  const count = chunksMet(reads, 100, 2);
  assert.equal(count.size, 11 * 2, `${what}: every chunk read`);
  assert.deepEqual([...new Set(count.values())], [1], `${what}: each chunk read once`);
}

describe("tiles of whole chunks through time read each chunk once", () => {
  for (const method of ["DIFFERENCE_FROM_MEAN", "DIFFERENCE_FROM_MEDIAN"] as const) {
    it(`the anomaly, ${method}`, async () => {
      const source = await openCube(FILE);
      try {
        const plan = {
          variables: ["tas"],
          method,
          calculationInterval: "RECURRING_MONTHLY",
          ignoreNoData: true,
          window: WINDOW,
          tileBudgetBytes: BUDGET,
        } as const;
        const walk = chooseAnomalyWalk(source, plan);
        assert.equal(walk.kind, "tile", walk.note);
        assert.match(
          walk.note,
          /100 × 2 × 5 a chunk, so 2 tiles of 2 × 5 pixels through its 1096 time steps hold whole chunks and read each chunk once/,
        );
        const { cube, reads } = countedReads(source);
        await writeAnomaly(cube, plan, join(dir, `anomaly_${method}.zarr`));
        assertEachOnce(reads, method);
      } finally {
        await source.close();
      }
    });
  }

  for (const type of ["LINEAR", "MANN-KENDALL"] as const) {
    it(`the trend, ${type}`, async () => {
      const source = await openCube(FILE);
      try {
        const plan = {
          variables: ["tas"],
          dimension: "StdTime",
          model: { type },
          statistics: { rmse: type === "LINEAR", r2: false, slopePValue: false },
          ignoreNoData: true,
          window: WINDOW,
          tileBudgetBytes: BUDGET,
        } as const;
        const walk = chooseTrendWalk(source, plan, 1);
        assert.equal(walk.kind, "tile", walk.note);
        const { cube, reads } = countedReads(source);
        await writeTrend(cube, plan, join(dir, `trend_${type}.zarr`));
        assertEachOnce(reads, type);
      } finally {
        await source.close();
      }
    });
  }
});
