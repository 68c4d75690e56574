/**
 * The streamed anomaly's output chunks (tasks/anomalyStreaming.ts streamedChunks): a big grid
 * one time step a chunk, its columns split evenly unless the band's rows fit a 512 × 512
 * tile's values whole; a small grid (no overview levels) several time steps a chunk, a
 * divisor of the runs' length within a tile's values, so each run (one share's) is whole
 * chunks; a raw output of a small grid one chunk a run.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IndexRange, Variable } from "../../src/cube/types.js";
import type { AnomalyStreamPlan } from "../../src/analysis/anomalyStream.js";
import { streamedChunks } from "../../src/tasks/anomalyStreaming.js";

const variable = { name: "tas", dimensions: [{ name: "StdTime" }] } as unknown as Variable;

function plan(height: number, width: number, step: number, slices: number): AnomalyStreamPlan {
  const runs: IndexRange[] = [];
  for (let s = 0; s < slices; s += step) runs.push([s, Math.min(slices, s + step)]);
  return {
    window: { x: 0, y: 0, width, height },
    bandRows: height,
    bandColumns: width,
    runs: { tas: runs },
  } as unknown as AnomalyStreamPlan;
}

describe("streamed anomaly output chunks", () => {
  it("a grid with overview levels: one time step a chunk, columns split evenly", () => {
    assert.deepEqual(streamedChunks(variable, plan(1800, 3600, 8, 1461)), [1, 512, 464], "3600 columns: 8 chunks of 450, rounded up to 16");
    assert.deepEqual(streamedChunks(variable, plan(360, 1100, 8, 1461)), [1, 360, 368], "396,000 values: more than a tile's");
    assert.deepEqual(streamedChunks(variable, plan(360, 720, 8, 1461)), [1, 360, 720], "259,200 values: within a tile's, one chunk a day");
  });

  it("a small grid: the largest divisor of the runs' length within a tile's values", () => {
    assert.deepEqual(streamedChunks(variable, plan(4, 5, 137, 1096)), [137, 4, 5]);
    assert.deepEqual(streamedChunks(variable, plan(90, 180, 129, 1461)), [3, 90, 180], "129 = 3 · 43; 43 slices are too many");
    assert.deepEqual(streamedChunks(variable, plan(64, 96, 7, 40)), [7, 64, 96], "the last run is shorter: it ends at the array's edge");
  });

  it("a raw output of a grid without overview levels: one chunk a run, the band whole", () => {
    assert.deepEqual(streamedChunks(variable, plan(360, 720, 8, 1461), true), [8, 360, 720], "183 chunk files for 1461 days, not 1461");
    assert.deepEqual(
      streamedChunks(variable, plan(90, 180, 129, 1461), true),
      [129, 90, 180],
      "past a tile's values: raw chunks need no decoding",
    );
    assert.deepEqual(streamedChunks(variable, plan(1800, 3600, 8, 1461), true), [1, 512, 464], "with overview levels, as a zstd output");
  });
});
