/**
 * The walk a per-pixel time analysis takes, from how its input is stored: tiles through time
 * when time is stored whole or the input is small, streaming in storage order when the
 * method keeps per-pixel sums, bands of rows when those sums would not fit, and tiles when
 * not even one row's would; transposing for order statistics, in bands of whole chunk rows
 * when a run over the window would be too large, the tile walk's tiles fitted to them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Variable } from "../../src/cube/types.js";
import { chooseWalk, cubeWalk, taskWalk, transposedTile } from "../../src/plan/walkPlan.js";
import { dailyVariable } from "../helpers/dailyVariable.js";

const daily = (chunkShape: number[]): Variable => dailyVariable(chunkShape, 1461);
const WORLD = { x: 0, y: 0, width: 720, height: 360 };
const MONTHLY_MEANS = { bytesPerPixelGroup: 21, groups: 12, outputRows: 512 };
/** The tile walk's tile: 8 × 15 = 120 tiles over WORLD. */
const TILE = { height: 48, width: 48 };

describe("chooseWalk", () => {
  it("streams a cube stored one time step per chunk, in runs of whole chunks, each chunk read once", () => {
    const plan = chooseWalk(daily([1, 360, 720]), WORLD, MONTHLY_MEANS, TILE);
    assert.equal(plan.kind, "stream");
    if (plan.kind !== "stream") return;
    assert.equal(plan.bandRows, 360);
    assert.deepEqual(plan.runs[0], [0, 8]); // 16 MB of float64 per run: 8 slices of 360 × 720
    assert.equal(plan.runs.at(-1)![1], 1461);
    assert.ok(plan.runs.every(([a], i) => i === 0 || a === plan.runs[i - 1][1]) && plan.runs.every(([a, b]) => b > a));
    assert.match(plan.reason, /each chunk is read once per pass/);
  });

  it("walks tiles when time is stored whole or when one tile holds everything, whatever the method", () => {
    for (const shape of [MONTHLY_MEANS, undefined]) {
      assert.equal(chooseWalk(daily([1461, 64, 64]), WORLD, shape, TILE).kind, "tile");
      assert.equal(chooseWalk(daily([1, 360, 720]), { x: 0, y: 0, width: 50, height: 50 }, shape, { height: 50, width: 50 }).kind, "tile");
    }
  });

  it("transposes for order statistics: runs of whole chunks over the whole window, each chunk read once", () => {
    const median = chooseWalk(daily([1, 360, 720]), WORLD, undefined, TILE);
    assert.equal(median.kind, "transpose");
    if (median.kind !== "transpose") return;
    assert.deepEqual(median.runs[0], [0, 8]); // 16 MB of float64 per run: 8 slices of 360 × 720
    assert.equal(median.runs.at(-1)![1], 1461);
    assert.match(median.reason, /whole series: transposing its 1461 time steps once .*each chunk read once.* into 120 time-whole tiles/);
    // Chunks of 5 steps: runs stay whole chunks.
    const five = chooseWalk(daily([5, 360, 720]), WORLD, undefined, TILE);
    assert.ok(five.kind === "transpose" && five.runs.every(([a, b]) => a % 5 === 0 && (b % 5 === 0 || b === 1461)));
  });

  it("makes bands of whole output chunks when the sums do not fit, and says each chunk is read once per band", () => {
    // 366 groups × 21 bytes × 720 pixels = 5.5 MB a row; 1 GB of budget → 194 rows, whole chunks of 64 rows → 192.
    const plan = chooseWalk(daily([1, 360, 720]), WORLD, { bytesPerPixelGroup: 21, groups: 366, outputRows: 64 }, TILE, 1 << 30);
    assert.equal(plan.kind, "stream");
    if (plan.kind === "stream") {
      assert.equal(plan.bandRows, 192);
      assert.match(plan.reason, /accumulators fill 2 bands of 192 rows, so each chunk is read 2 times per pass/);
    }
  });

  it("walks tiles when not one row of sums fits", () => {
    const plan = chooseWalk(daily([1, 360, 720]), WORLD, { bytesPerPixelGroup: 29, groups: 1461, outputRows: 512 }, TILE, 1 << 20);
    assert.equal(plan.kind, "tile");
    assert.match(plan.reason, /would exceed 1 MB/);
  });

  it("walks tiles through time when they hold whole chunks of many time steps: each chunk read once, no sums, no transposing", () => {
    for (const shape of [MONTHLY_MEANS, undefined]) {
      const plan = chooseWalk(daily([365, 60, 60]), WORLD, shape, { height: 60, width: 60 });
      assert.equal(plan.kind, "tile");
      assert.match(plan.reason, /365 × 60 × 60 a chunk, so 72 tiles of 60 × 60 pixels .* hold whole chunks and read each chunk once/);
    }
    // Tiles of 48 × 48 cut across those chunks: they stream (or transpose) instead.
    assert.equal(chooseWalk(daily([365, 60, 60]), WORLD, MONTHLY_MEANS, TILE).kind, "stream");
    assert.equal(chooseWalk(daily([365, 60, 60]), WORLD, undefined, TILE).kind, "transpose");
    // A window that starts within a chunk: 60 × 60 tiles from x = 30 meet two chunks across each.
    assert.equal(
      chooseWalk(daily([365, 60, 60]), { ...WORLD, x: 30, width: 600 }, MONTHLY_MEANS, { height: 60, width: 60 }).kind,
      "stream",
    );
  });

  it("streams chunks of many time steps in blocks of whole chunks, so that a run stays small and each chunk is read once", () => {
    // One chunk of 365 steps over 360 × 720 would be a run of 757 MB, over a row of chunks
    // 126 MB; 16 MB of runs hold one chunk, 60 × 60.
    const plan = chooseWalk(daily([365, 60, 60]), WORLD, MONTHLY_MEANS, TILE);
    assert.equal(plan.kind, "stream");
    if (plan.kind !== "stream") return;
    assert.deepEqual([plan.bandRows, plan.bandColumns], [60, 60]);
    assert.deepEqual(plan.runs, [
      [0, 365],
      [365, 730],
      [730, 1095],
      [1095, 1460],
      [1460, 1461],
    ]);
    assert.match(plan.reason, /would exceed 16 MB: 72 blocks of 60 × 60 pixels, so each chunk is read once per pass/);
    // Blocks no wider than the output's chunks: chunks of 365 × 60 × 20 fit 16 MB of runs 95
    // columns wide (365 × 60 × 8 bytes a column), whole chunks 80; 60 under output chunks of 64.
    const wide = chooseWalk(daily([365, 60, 20]), WORLD, MONTHLY_MEANS, TILE);
    assert.ok(wide.kind === "stream" && wide.bandColumns === 80, wide.reason);
    const narrow = chooseWalk(daily([365, 60, 20]), WORLD, { ...MONTHLY_MEANS, outputRows: 64 }, TILE);
    assert.ok(narrow.kind === "stream" && narrow.bandColumns === 60, narrow.reason);
    // A day a chunk keeps whole-width bands.
    const daily1 = chooseWalk(daily([1, 360, 720]), WORLD, MONTHLY_MEANS, TILE);
    assert.ok(daily1.kind === "stream" && daily1.bandColumns === 720);
  });

  it("transposes chunks of many time steps in blocks of whole chunks, each chunk read once", () => {
    // One chunk of 365 steps over 360 × 720 would be a run of 757 MB (as float64), 3 held at
    // once; over a row of chunks still 126 MB: blocks of 60 × 60, a chunk (10.5 MB) a run.
    const plan = chooseWalk(daily([365, 60, 60]), WORLD, undefined, TILE);
    assert.equal(plan.kind, "transpose");
    if (plan.kind !== "transpose") return;
    assert.deepEqual([plan.bandRows, plan.bandColumns], [60, 60]);
    assert.deepEqual(plan.runs[0], [0, 365]);
    // 48 × 48 tiles cut 60 × 60 blocks: 30 × 30 tiles fill them (12 rows of 24).
    assert.match(
      plan.reason,
      /in 72 blocks of 60 × 60 pixels, as a run of whole chunks over the window would exceed 16 MB \(5 runs a block, each chunk read once\), into 288 time-whole tiles/,
    );
    // Chunks of 5 steps: one block over the window (5 × 360 × 720 × 8 = 10.4 MB a run).
    const five = chooseWalk(daily([5, 60, 60]), WORLD, undefined, TILE);
    assert.ok(five.kind === "transpose" && five.bandRows === 360 && five.bandColumns === 720);
    // A day a chunk keeps one block over the window.
    const daily1 = chooseWalk(daily([1, 360, 720]), WORLD, undefined, TILE);
    assert.ok(daily1.kind === "transpose" && daily1.bandRows === 360 && daily1.bandColumns === 720);
  });
});

describe("cubeWalk and taskWalk", () => {
  it("give a transposition in blocks one tile for every variable, fitted to the blocks, in the task's plan", () => {
    const walks = new Map([
      ["tas", chooseWalk(daily([365, 60, 60]), WORLD, undefined, TILE)],
      ["pr", chooseWalk(daily([365, 60, 60]), WORLD, undefined, { height: 32, width: 32 })],
    ]);
    const walk = taskWalk(cubeWalk(walks, WORLD, "tiles through time"), { tile: 48 });
    assert.ok(walk.kind === "transpose");
    if (walk.kind !== "transpose") return;
    assert.deepEqual([walk.bandRows, walk.bandColumns], [60, 60]);
    assert.deepEqual(walk.plan.tile, { height: 30, width: 30 });
    // A day a chunk: one block, the task's own tile kept.
    const daily1 = taskWalk(cubeWalk(new Map([["tas", chooseWalk(daily([1, 360, 720]), WORLD, undefined, TILE)]]), WORLD, "tiles"), {
      tile: 48,
    });
    assert.ok(daily1.kind === "transpose" && daily1.plan.tile === 48);
  });
});

describe("transposedTile", () => {
  it("fits none over one block or where every tile divides the block; else the smallest tile, each edge the largest that does", () => {
    const fit = (tiles: { height: number; width: number }[], rows: number, columns: number) => transposedTile(tiles, rows, columns, WORLD);
    assert.equal(fit([{ height: 48, width: 48 }], 360, 720), undefined);
    assert.equal(
      fit(
        [
          { height: 30, width: 48 },
          { height: 60, width: 8 },
        ],
        60,
        720,
      ),
      undefined,
    );
    assert.deepEqual(fit([{ height: 48, width: 48 }], 60, 720), { height: 30, width: 48 });
    assert.deepEqual(fit([{ height: 48, width: 48 }], 60, 60), { height: 30, width: 30 });
    assert.deepEqual(
      fit(
        [
          { height: 32, width: 32 },
          { height: 48, width: 48 },
        ],
        60,
        720,
      ),
      { height: 30, width: 32 },
    );
    assert.deepEqual(fit([{ height: 120, width: 16 }], 60, 720), { height: 60, width: 16 });
    assert.deepEqual(fit([{ height: 7, width: 5 }], 61, 720), { height: 1, width: 5 });
  });
});
