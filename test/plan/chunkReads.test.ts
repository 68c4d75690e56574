/** How often a walk's pieces read each stored chunk, worked by hand on small layouts. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Variable } from "../../src/cube/types.js";
import { readsPerChunk } from "../../src/plan/chunkReads.js";

const cube = (chunkShape: number[], depths = 0): Variable => ({
  name: "t",
  description: "",
  unit: "",
  pixelType: "F32",
  dimensions: [
    { name: "StdTime", sourceName: "time", description: "", unit: "ISO8601", values: [0, 1, 2, 3] },
    ...(depths > 0
      ? [{ name: "StdZ", sourceName: "depth", description: "", unit: "m", values: Array.from({ length: depths }, (_, i) => i) }]
      : []),
  ],
  chunkShape,
  attributes: {},
  read: () => Promise.reject(new Error("not read here")),
});
const WINDOW = { x: 0, y: 0, width: 12, height: 8 };

describe("readsPerChunk", () => {
  it("is 1 when each piece holds whole chunks", () => {
    assert.equal(readsPerChunk(cube([2, 4, 6]), WINDOW, { height: 4, width: 6 }), 1);
    assert.equal(readsPerChunk(cube([2, 4, 6]), WINDOW, { height: 8, width: 12 }), 1);
    assert.equal(readsPerChunk(cube([2, 4, 6]), WINDOW, { height: 4, width: 12 }), 1);
  });

  it("counts a chunk once for each piece that meets it", () => {
    // Columns 0-4, 5-9, 10-11 against chunks 0-5, 6-11: 1 + 2 + 1 reads of 2 chunks across.
    assert.equal(readsPerChunk(cube([2, 4, 6]), WINDOW, { height: 4, width: 5 }), 2);
    // Rows in bands of 3: 0-2, 3-5, 6-7 meet 1, 2, 1 chunks of the 2 down: 2; columns whole: 1.
    assert.equal(readsPerChunk(cube([2, 4, 6]), WINDOW, { height: 3, width: 12 }), 2);
  });

  it("counts a window that starts within a chunk", () => {
    // Columns 3-8 of chunks 0-5 and 6-11, one piece 6 wide: it meets both, each once.
    assert.equal(readsPerChunk(cube([2, 4, 6]), { x: 3, y: 0, width: 6, height: 8 }, { height: 8, width: 6 }), 1);
    // Columns 3-14 in pieces of 6: 3-8 meets 2 chunks, 9-14 meets 2, of the 3 chunks (0-5, 6-11, 12-17): 4 / 3.
    assert.equal(readsPerChunk(cube([2, 4, 6]), { x: 3, y: 0, width: 12, height: 8 }, { height: 8, width: 6 }), 4 / 3);
  });

  it("reads a chunk once for each index of another dimension it spans", () => {
    assert.equal(readsPerChunk(cube([2, 5, 4, 6], 10), WINDOW, { height: 4, width: 6 }), 5);
    assert.equal(readsPerChunk(cube([2, 1, 4, 6], 10), WINDOW, { height: 4, width: 6 }), 1);
  });
});
