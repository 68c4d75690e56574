/**
 * The streamed walks read each stored chunk once per pass (issue 11), the least-squares trend
 * once in all unless a fit is too close to perfect for its sums, and the transposed ones
 * (medians, Kendall) once in all: on a NetCDF-4 input stored one time step per chunk, every
 * read the anomaly and the trend make is counted by
 * wrapping the variable; each time step's chunk must be read exactly once per pass, whole
 * (the full window), and never as part of a tile.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Cube, Selection } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { writeAnomaly } from "../../src/tasks/anomaly.js";
import { writeTrend } from "../../src/tasks/trend.js";
import { countedReads } from "../helpers/countedReads.js";

const DAILY_NC4 = fileURLToPath(new URL("../golden/analysis/daily_nc4.nc", import.meta.url));

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-stream-reads-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Two stores' values of tas, byte for byte, and their statistics. */
async function sameOutputs(pathA: string, pathB: string): Promise<void> {
  const [a, b] = [await openCube(pathA), await openCube(pathB)];
  try {
    const [x, y] = [await a.variables[0].read(), await b.variables[0].read()];
    assert.deepEqual(
      Buffer.from(x.data.buffer, x.data.byteOffset, x.data.byteLength),
      Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength),
    );
    assert.deepEqual(a.attributes["strata:statistics"], b.attributes["strata:statistics"]);
  } finally {
    await a.close();
    await b.close();
  }
}

function linearPlan(rmse: boolean) {
  return {
    variables: ["tas"],
    dimension: "StdTime",
    model: { type: "LINEAR" },
    statistics: { rmse, r2: false, slopePValue: false },
    ignoreNoData: true,
    window: { x: 0, y: 0, width: 5, height: 4 },
    tile: { height: 2, width: 2 },
  } as const;
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
  const anomalyPlan = {
    variables: ["tas"],
    method: "Z_SCORE",
    calculationInterval: "RECURRING_MONTHLY",
    ignoreNoData: true,
    window: { x: 0, y: 0, width: 5, height: 4 },
    tile: 2,
  } as const;

  it("the anomaly: once, the input's values kept beside the output between its passes, whatever the output's codec; the same output", async () => {
    const source = await openCube(DAILY_NC4);
    try {
      for (const compression of ["NONE", "ZSTD"] as const) {
        const { cube, reads } = countedReads(source);
        const path = join(dir, `anomaly_${compression}.zarr`);
        await writeAnomaly(cube, { ...anomalyPlan, compression }, path);
        const count = timesRead(reads, 1096, 5, 4);
        assert.ok(
          count.every((c) => c === 1),
          `${compression}: reads per time step: ${[...new Set(count)].join(", ")}`,
        );
        assert.equal(existsSync(join(path, "strata-kept")), false, `${compression}: nothing kept is left`);
      }
      await sameOutputs(join(dir, "anomaly_NONE.zarr"), join(dir, "anomaly_ZSTD.zarr"));
    } finally {
      await source.close();
    }
  });

  it("the anomaly whose pass 2 finds kept values gone (taken by a run of it that failed): those read from the input, the same output", async () => {
    const source = await openCube(DAILY_NC4);
    try {
      const path = join(dir, "anomaly_retaken.zarr");
      const kept = join(path, "strata-kept", "tas");
      let removed = 0;
      // When the first pass reads the last time step, its earlier blocks are kept: half of them go.
      const { cube, reads } = countedReads(source, (selection) => {
        if (removed > 0 || selection.dims![0][1] !== 1096) return;
        const files = readdirSync(kept).sort();
        for (const f of files.slice(0, files.length >> 1)) rmSync(join(kept, f));
        removed = files.length >> 1;
      });
      await writeAnomaly(cube, anomalyPlan, path);
      const count = timesRead(reads, 1096, 5, 4);
      assert.ok(removed > 0);
      assert.ok(
        count.some((c) => c === 2) && count.every((c) => c === 1 || c === 2),
        `reads per time step: ${[...new Set(count)].join(", ")}`,
      );
      await sameOutputs(path, join(dir, "anomaly_ZSTD.zarr"));
    } finally {
      await source.close();
    }
  });

  it("the LINEAR trend with RMSE: once (SSE and SST from the sums), as without statistics", async () => {
    for (const rmse of [true, false]) {
      const source = await openCube(DAILY_NC4);
      try {
        const { cube, reads } = countedReads(source);
        await writeTrend(cube, linearPlan(rmse), join(dir, `trend_${rmse}.zarr`));
        const count = timesRead(reads, 1096, 5, 4);
        assert.ok(
          count.every((c) => c === 1),
          `rmse ${rmse}: reads per time step ${[...new Set(count)].join(", ")}`,
        );
      } finally {
        await source.close();
      }
    }
  });

  it("the LINEAR trend of exact lines: twice, the residuals read again (the sums cannot tell SSE from 0)", async () => {
    const source = await openCube(DAILY_NC4);
    try {
      // Every pixel y = 250 + t + pixel index, exact in float32: a perfect fit.
      const { cube, reads } = countedReads(source, (selection, values) => {
        const [t0, t1] = selection.dims![0];
        const pixels = values.length / (t1 - t0);
        for (let t = t0; t < t1; t++) for (let i = 0; i < pixels; i++) values[(t - t0) * pixels + i] = 250 + t + i;
      });
      const path = join(dir, "trend_exact.zarr");
      await writeTrend(cube, linearPlan(true), path);
      const count = timesRead(reads, 1096, 5, 4);
      assert.ok(
        count.every((c) => c === 2),
        `reads per time step ${[...new Set(count)].join(", ")}`,
      );
      const out = await openCube(path);
      try {
        const v = out.variables[0];
        const bands = await v.read({ dims: v.dimensions.map((d) => [0, d.values.length] as const) });
        const rmse = Array.from(bands.data.subarray(2 * 20, 3 * 20));
        assert.ok(
          rmse.every((x) => Math.abs(x) < 1e-9),
          `RMSE of exact lines: ${rmse.join(", ")}`,
        );
      } finally {
        await out.close();
      }
    } finally {
      await source.close();
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
        const { cube, reads } = countedReads(source);
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
