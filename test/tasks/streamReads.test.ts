/**
 * The streamed walks read each stored chunk once per pass (issue 11), and the transposed ones
 * (medians, Kendall) once in all: on a NetCDF-4 input stored one time step per chunk, every
 * read the anomaly and the trend make is counted by
 * wrapping the variable; each time step's chunk must be read exactly once per pass, whole
 * (the full window), and never as part of a tile.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Cube, Selection } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { writeAnomaly } from "../../src/tasks/anomaly.js";
import { writeTrend } from "../../src/tasks/trend.js";

const DAILY_NC4 = fileURLToPath(new URL("../golden/analysis/daily_nc4.nc", import.meta.url));

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-stream-reads-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The cube with its variables' reads recorded. */
function counted(cube: Cube): { cube: Cube; reads: Selection[] } {
  const reads: Selection[] = [];
  const variables = cube.variables.map((v) => ({
    ...v,
    read: (selection?: Selection) => {
      reads.push(selection ?? {});
      return v.read(selection);
    },
  }));
  return { cube: { ...cube, variables }, reads };
}

/** How many times each time step was read, and whether every read covered the whole window. */
function timesRead(reads: Selection[], steps: number, width: number, height: number) {
  const count = new Array<number>(steps).fill(0);
  for (const r of reads) {
    const [t0, t1] = r.dims![0];
    for (let t = t0; t < t1; t++) count[t]++;
    assert.deepEqual(r.window, { x: 0, y: 0, width, height }, "a read covers the whole window (every chunk whole)");
  }
  return count;
}

describe("streamed walks read each chunk once per pass", () => {
  it("the anomaly: twice (sums, then anomalies)", async () => {
    const source = await openCube(DAILY_NC4);
    try {
      const { cube, reads } = counted(source);
      const window = { x: 0, y: 0, width: 5, height: 4 };
      const plan = {
        variables: ["tas"],
        method: "DIFFERENCE_FROM_MEAN",
        calculationInterval: "RECURRING_MONTHLY",
        ignoreNoData: true,
        window,
        tile: 2,
      } as const;
      await writeAnomaly(cube, plan, join(dir, "anomaly.zarr"));
      const count = timesRead(reads, 1096, 5, 4);
      assert.ok(
        count.every((c) => c === 2),
        `reads per time step: ${[...new Set(count)].join(", ")}`,
      );
    } finally {
      await source.close();
    }
  });

  it("the LINEAR trend with RMSE: twice (sums, then residuals); without statistics: once", async () => {
    for (const [rmse, passes] of [
      [true, 2],
      [false, 1],
    ] as const) {
      const source = await openCube(DAILY_NC4);
      try {
        const { cube, reads } = counted(source);
        const plan = {
          variables: ["tas"],
          dimension: "StdTime",
          model: { type: "LINEAR" },
          statistics: { rmse, r2: false, slopePValue: false },
          ignoreNoData: true,
          window: { x: 0, y: 0, width: 5, height: 4 },
          tile: { height: 2, width: 2 },
        } as const;
        await writeTrend(cube, plan, join(dir, `trend_${rmse}.zarr`));
        const count = timesRead(reads, 1096, 5, 4);
        assert.ok(
          count.every((c) => c === passes),
          `rmse ${rmse}: reads per time step ${[...new Set(count)].join(", ")}`,
        );
      } finally {
        await source.close();
      }
    }
  });

  it("the median anomaly and Mann-Kendall: once, to transpose; the tiles then come from the scratch", async () => {
    const window = { x: 0, y: 0, width: 5, height: 4 };
    const anomaly = {
      variables: ["tas"],
      method: "DIFFERENCE_FROM_MEDIAN",
      calculationInterval: "RECURRING_MONTHLY",
      ignoreNoData: true,
      window,
      tile: 2,
    } as const;
    const kendall = {
      variables: ["tas"],
      dimension: "StdTime",
      model: { type: "MANN-KENDALL" },
      statistics: { rmse: false, r2: false, slopePValue: false },
      ignoreNoData: true,
      window,
      tile: { height: 2, width: 2 },
    } as const;
    for (const [name, write] of [
      ["median", (cube: Cube, path: string) => writeAnomaly(cube, anomaly, path)],
      ["kendall", (cube: Cube, path: string) => writeTrend(cube, kendall, path)],
    ] as const) {
      const source = await openCube(DAILY_NC4);
      try {
        const { cube, reads } = counted(source);
        await write(cube, join(dir, `${name}.zarr`));
        const count = timesRead(reads, 1096, 5, 4);
        assert.ok(
          count.every((c) => c === 1),
          `${name}: reads per time step ${[...new Set(count)].join(", ")}`,
        );
      } finally {
        await source.close();
      }
    }
  });
});
