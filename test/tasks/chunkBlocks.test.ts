/**
 * An input stored many time steps per chunk whose chunks are too large for the tile walk
 * through time (1200 × 60 × 120 float32 values a chunk's footprint: 69 MB as float64) and
 * whose runs over the window, or over a row of chunks, would be too large (a chunk of 300
 * steps over 120 × 240: 69 MB; over 60 × 240, 35 MB) is walked in blocks of whole chunks
 * (plan/walkPlan.ts): the median anomaly and Mann-Kendall transpose in blocks
 * (analysis/transpose.ts, the tile walk's tiles fitted to them), the mean anomaly and LINEAR
 * stream in blocks (their outputs written at each block's column, in chunks no wider). Each
 * writes what it writes from the same values stored one time step per chunk (whole-window
 * walks, those the goldens check): every value the same, bit for bit, and each chunk of the
 * blocked input read once; and at five pixels (blocks' corners and one inside) what their
 * definitions give, worked out here (monthly medians and means, least squares, S, Var(S) and
 * Sen's slope pair by pair).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { gridFromTransform } from "../../src/cube/grid.js";
import type { Cube, Selection } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { writeAnomaly } from "../../src/tasks/anomaly.js";
import { chooseAnomalyWalk } from "../../src/tasks/anomalyStreaming.js";
import { writeTrend } from "../../src/tasks/trend.js";
import { chooseTrendWalk } from "../../src/tasks/trendStreaming.js";
import { chunksMet, countedReads } from "../helpers/countedReads.js";
import { dailyVariable } from "../helpers/dailyVariable.js";

const [T, H, W] = [1200, 120, 240];
const DAY = 86_400_000;
const window = { x: 0, y: 0, width: W, height: H };

/** A value that says little of its neighbours' (so medians and Sen's slopes vary), with a gap now and then. */
function value(t: number, row: number, col: number): number {
  const h = Math.imul(t + 1, 73856093) ^ Math.imul(row + 7, 19349663) ^ Math.imul(col + 13, 83492791);
  const u = (h >>> 0) % 100_000;
  return u === 0 ? NaN : 280 + u / 10_000 + t / 1000;
}

/** The cube of `value`, stored `chunkShape` a chunk. */
function cube(chunkShape: number[]): Cube {
  const v = dailyVariable(chunkShape, T, {
    start: Date.UTC(2000, 0, 1),
    read: async (selection) => {
      const [t0, t1] = selection.dims?.[0] ?? [0, T];
      const w = selection.window ?? window;
      const data = selection.into instanceof Float32Array ? selection.into : new Float32Array((t1 - t0) * w.height * w.width);
      let i = 0;
      for (let t = t0; t < t1; t++)
        for (let r = 0; r < w.height; r++) for (let c = 0; c < w.width; c++) data[i++] = value(t, w.y + r, w.x + c);
      return { data, shape: [t1 - t0, w.height, w.width] };
    },
  });
  return {
    grid: gridFromTransform(W, H, [0, 1, 0, H, 0, -1], { epsg: 4326 }),
    variables: [v],
    attributes: {},
    skipped: [],
    close: async () => {},
  };
}

const BLOCKED = [300, 60, 120];
const DAILY = [1, H, W];

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-transpose-blocks-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** The two stores' tas, bit for bit, compared 300 steps (or all its bands) at a time. */
async function sameValues(a: string, b: string): Promise<void> {
  const [x, y] = [await openCube(a), await openCube(b)];
  try {
    const [va, vb] = [x.variables[0], y.variables[0]];
    const first = va.dimensions[0];
    for (let s = 0; s < first.values.length; s += 300) {
      const dims = va.dimensions.map((d, i): [number, number] =>
        i === 0 ? [s, Math.min(first.values.length, s + 300)] : [0, d.values.length],
      );
      const [p, q] = [await va.read({ dims }), await vb.read({ dims })];
      assert.deepEqual(
        Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength),
        Buffer.from(q.data.buffer, q.data.byteOffset, q.data.byteLength),
      );
    }
  } finally {
    await x.close();
    await y.close();
  }
}

/** Each stored chunk of BLOCKED met by exactly one read, which covers it whole in space. */
function eachChunkOnce(reads: Selection[]): void {
  for (const { window: w } of reads)
    assert.ok(
      w!.x % BLOCKED[2] === 0 && w!.y % BLOCKED[1] === 0 && w!.width === BLOCKED[2] && w!.height === BLOCKED[1],
      "a read is whole chunks",
    );
  const met = chunksMet(reads, BLOCKED[0], BLOCKED[1], BLOCKED[2]);
  assert.equal(met.size, (T / BLOCKED[0]) * (H / BLOCKED[1]) * (W / BLOCKED[2]));
  assert.ok(
    [...met.values()].every((n) => n === 1),
    "each chunk read once",
  );
}

/** `write` of the blocked cube and of the daily one: each chunk of the blocked read once, and every value the same. */
async function sameAsDaily(name: string, write: (input: Cube, path: string) => Promise<unknown>): Promise<void> {
  const { cube: blocked, reads } = countedReads(cube(BLOCKED));
  await write(blocked, join(dir, `${name}-blocked.zarr`));
  await write(cube(DAILY), join(dir, `${name}-daily.zarr`));
  eachChunkOnce(reads);
  await sameValues(join(dir, `${name}-blocked.zarr`), join(dir, `${name}-daily.zarr`));
}

/** Pixels [row, column] checked against the methods' definitions: corners of blocks and one inside. */
const SAMPLES = [
  [0, 0],
  [59, 119],
  [60, 120],
  [119, 239],
  [37, 201],
];
/** A pixel's stored values (float32, as the cube hands them over), in time order. */
const seriesAt = (row: number, col: number) => Array.from({ length: T }, (_, t) => Math.fround(value(t, row, col)));
const monthOf = (t: number) => new Date(Date.UTC(2000, 0, 1) + t * DAY).getUTCMonth();
const valid = (x: number) => !Number.isNaN(x);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const near = (got: number, want: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(got - want) <= tolerance * Math.max(1, Math.abs(want)), `${what}: ${got} against ${want}`);

/** The anomaly `path` holds at the sample pixels against x − the month's median or mean (docs/tasks.md), worked out here. */
async function anomaliesByDefinition(path: string, centre: (xs: number[]) => number): Promise<void> {
  const out = await openCube(path);
  try {
    for (const [row, col] of SAMPLES) {
      const got = (await out.variables[0].read({ dims: [[0, T]], window: { x: col, y: row, width: 1, height: 1 } })).data;
      const x = seriesAt(row, col);
      const reference = Array.from({ length: 12 }, (_, m) => centre(x.filter((v, t) => monthOf(t) === m && valid(v))));
      x.forEach((v, t) => near(got[t], v - reference[monthOf(t)], 1e-6, `pixel ${row},${col} day ${t}`));
    }
  } finally {
    await out.close();
  }
}

/** The trend bands `path` holds at the sample pixels, [band][pixel]. */
async function bandsAt(path: string): Promise<number[][]> {
  const out = await openCube(path);
  try {
    const { data, shape } = await out.variables[0].read();
    return Array.from({ length: shape[0] }, (_, b) => SAMPLES.map(([row, col]) => data[(b * H + row) * W + col]));
  } finally {
    await out.close();
  }
}

/** x of each time step: days since 1970 (docs/tasks.md). */
const X = Array.from({ length: T }, (_, t) => (Date.UTC(2000, 0, 1) + t * DAY) / DAY);

/** A monthly anomaly's plan over the whole grid. */
const anomalyPlan = (method: "DIFFERENCE_FROM_MEDIAN" | "DIFFERENCE_FROM_MEAN") =>
  ({ variables: ["tas"], method, calculationInterval: "RECURRING_MONTHLY", ignoreNoData: true, window }) as const;

/** A trend's plan along StdTime over the whole grid, with all its statistics or none. */
const trendPlan = (type: "MANN-KENDALL" | "LINEAR", statistics: boolean) =>
  ({
    variables: ["tas"],
    dimension: "StdTime",
    model: { type },
    statistics: { rmse: statistics, r2: statistics, slopePValue: statistics },
    ignoreNoData: true,
    window,
  }) as const;

/** Whether a walk goes `kind` in the blocks of 60 × 120 pixels BLOCKED's chunks allow. */
const inBlocks = (kind: "transpose" | "stream", chosen: { kind: string; bandRows?: number; bandColumns?: number; plan?: object }) => {
  const blocks = chosen.kind === "stream" ? (chosen.plan as { bandRows: number; bandColumns: number }) : chosen;
  return chosen.kind === kind && blocks.bandRows === 60 && blocks.bandColumns === 120;
};

describe("walking in blocks of whole chunks", () => {
  it("the median anomaly: as defined, and as from a day a chunk, each chunk read once", async () => {
    const plan = anomalyPlan("DIFFERENCE_FROM_MEDIAN");
    const chosen = chooseAnomalyWalk(cube(BLOCKED), plan);
    assert.ok(inBlocks("transpose", chosen), chosen.note);
    assert.match(chosen.note, /in 4 blocks of 60 × 120 pixels/);
    await sameAsDaily("median", (input, path) => writeAnomaly(input, plan, path));
    await anomaliesByDefinition(join(dir, "median-blocked.zarr"), median);
  });

  it("Mann-Kendall: as defined, and as from a day a chunk, each chunk read once", async () => {
    const plan = trendPlan("MANN-KENDALL", false);
    const chosen = chooseTrendWalk(cube(BLOCKED), plan, 1);
    assert.ok(inBlocks("transpose", chosen), chosen.note);
    await sameAsDaily("kendall", (input, path) => writeTrend(input, plan, path));
    // Sens_Slope, P_Value, MK_Score, S_Variance, Z_Score; S, Var(S) and Sen's slope pair by pair.
    const [slope, , score, variance] = await bandsAt(join(dir, "kendall-blocked.zarr"));
    SAMPLES.forEach(([row, col], i) => {
      const y = seriesAt(row, col);
      const at = y.flatMap((v, t) => (valid(v) ? [t] : []));
      let s = 0;
      const slopes: number[] = [];
      for (let a = 0; a < at.length; a++)
        for (let b = a + 1; b < at.length; b++) {
          s += Math.sign(y[at[b]] - y[at[a]]);
          slopes.push((y[at[b]] - y[at[a]]) / (X[at[b]] - X[at[a]]));
        }
      const n = at.length;
      const runs = new Map<number, number>();
      for (const t of at) runs.set(y[t], (runs.get(y[t]) ?? 0) + 1);
      const ties = [...runs.values()].reduce((sum, g) => sum + g * (g - 1) * (2 * g + 5), 0);
      assert.equal(score[i], s, `S at ${row},${col}`);
      near(variance[i], (n * (n - 1) * (2 * n + 5) - ties) / 18, 1e-12, `Var(S) at ${row},${col}`);
      near(slope[i], median(slopes), 1e-12, `Sen's slope at ${row},${col}`);
    });
  });

  it("the mean anomaly, streamed: as defined, and as from a day a chunk, each chunk read once", async () => {
    const plan = anomalyPlan("DIFFERENCE_FROM_MEAN");
    const chosen = chooseAnomalyWalk(cube(BLOCKED), plan);
    assert.ok(inBlocks("stream", chosen), chosen.note);
    assert.match(chosen.note, /4 blocks of 60 × 120 pixels, so each chunk is read once per pass/);
    await sameAsDaily("mean", (input, path) => writeAnomaly(input, plan, path));
    await anomaliesByDefinition(join(dir, "mean-blocked.zarr"), (xs) => xs.reduce((a, b) => a + b, 0) / xs.length);
  });

  it("LINEAR, streamed: as defined, and as from a day a chunk, each chunk read once", async () => {
    const plan = trendPlan("LINEAR", true);
    const chosen = chooseTrendWalk(cube(BLOCKED), plan, 1);
    assert.ok(inBlocks("stream", chosen), chosen.note);
    await sameAsDaily("linear", (input, path) => writeTrend(input, plan, path));
    // Slope, Intercept, RMSE, R2 (then SlopePValue) by ordinary least squares on the valid values.
    const [slope, intercept, rmse, r2] = await bandsAt(join(dir, "linear-blocked.zarr"));
    SAMPLES.forEach(([row, col], i) => {
      const y = seriesAt(row, col);
      const at = y.flatMap((v, t) => (valid(v) ? [t] : []));
      const xm = at.reduce((a, t) => a + X[t], 0) / at.length;
      const ym = at.reduce((a, t) => a + y[t], 0) / at.length;
      const b1 = at.reduce((a, t) => a + (X[t] - xm) * (y[t] - ym), 0) / at.reduce((a, t) => a + (X[t] - xm) ** 2, 0);
      const b0 = ym - b1 * xm;
      const sse = at.reduce((a, t) => a + (y[t] - b0 - b1 * X[t]) ** 2, 0);
      const sst = at.reduce((a, t) => a + (y[t] - ym) ** 2, 0);
      near(slope[i], b1, 1e-9, `slope at ${row},${col}`);
      near(intercept[i], b0, 1e-9, `intercept at ${row},${col}`);
      near(rmse[i], Math.sqrt(sse / at.length), 1e-9, `RMSE at ${row},${col}`);
      near(r2[i], 1 - sse / sst, 1e-9, `R2 at ${row},${col}`);
    });
  });
});
