/**
 * The transpose into time-whole tiles (analysis/transpose.ts) on a made-up cube whose every
 * value says where it is (v = 1000·t + 100·z + 10·row + col): two shares write alternate runs
 * into the same tile files, over the whole window or in blocks of whole tiles (short at the
 * window's edges), then any window and slice range read back from the tiles is the formula,
 * time whole or not, across tile edges, with partial edge tiles.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { streamUnits } from "../../src/analysis/runs.js";
import { type TileScratch, transposeUnit, transposedCube } from "../../src/analysis/transpose.js";
import type { Cube, Dimension, IndexRange, Selection, Variable } from "../../src/cube/types.js";
import { scratchIn } from "../../src/store/scratch.js";

const T = 7;
const Z = 2;
const H = 5;
const W = 3;
const value = (t: number, z: number, row: number, col: number) => 1000 * t + 100 * z + 10 * row + col;

const dim = (name: string, n: number): Dimension => ({
  name,
  sourceName: name,
  description: name,
  unit: "",
  values: Array.from({ length: n }, (_, i) => i),
});

/** Depth outermost, then time, as some files store it; reads record their selections. */
function madeUp(reads: Selection[]): Cube {
  const v: Variable = {
    name: "temp",
    description: "",
    unit: "",
    pixelType: "F32",
    dimensions: [dim("StdZ", Z), dim("StdTime", T)],
    chunkShape: [1, 1, H, W],
    attributes: {},
    async read(selection: Selection = {}) {
      reads.push(selection);
      const [[z0, z1], [t0, t1]] = selection.dims ?? [
        [0, Z],
        [0, T],
      ];
      const w = selection.window ?? { x: 0, y: 0, width: W, height: H };
      const data = new Float32Array((z1 - z0) * (t1 - t0) * w.height * w.width);
      let i = 0;
      for (let z = z0; z < z1; z++)
        for (let t = t0; t < t1; t++)
          for (let r = 0; r < w.height; r++) for (let c = 0; c < w.width; c++) data[i++] = value(t, z, w.y + r, w.x + c);
      return { data, shape: [z1 - z0, t1 - t0, w.height, w.width] };
    },
  };
  return {
    grid: { width: W, height: H } as Cube["grid"],
    variables: [v],
    attributes: {},
    skipped: [],
    close: async () => {},
  };
}

/** The whole grid in 2 × 2 tiles, time in runs of 3, 3 and 1. */
const window = { x: 0, y: 0, width: W, height: H };
const runs: Record<string, readonly IndexRange[]> = {
  temp: [
    [0, 3],
    [3, 6],
    [6, 7],
  ],
};
const layout = { window, tiles: { temp: { height: 2, width: 2 } }, runs, bandRows: H, bandColumns: W };

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-transpose-"));
});
after(() => rm(dir, { recursive: true, force: true }));

describe("transposing into time-whole tiles", () => {
  for (const [bandRows, bandColumns] of [
    [H, W],
    [2, W],
    [2, 2],
  ]) {
    const blocks = Math.ceil(H / bandRows) * Math.ceil(W / bandColumns);
    const how = blocks === 1 ? "over the whole window" : `in blocks of ${bandRows} × ${bandColumns}`;
    it(`two shares write alternate runs ${how}; every selection reads back the formula; each run is read once`, async () => {
      const reads: Selection[] = [];
      const cube = madeUp(reads);
      const scratch = scratchIn(join(dir, `blocks${bandRows}x${bandColumns}`));
      const blocked = { ...layout, bandRows, bandColumns };
      const units = streamUnits(cube, { variables: ["temp"], window, bandRows, bandColumns, runs });
      assert.equal(units.length, Z * blocks);
      for (const index of [1, 0]) {
        for (const unit of units) await transposeUnit(cube, blocked, unit, scratch, { share: { index, count: 2 } });
      }
      assert.equal(reads.length, Z * 3 * blocks, "each run of each depth and block read once");
      assert.equal(
        (await readdir(join(dir, `blocks${bandRows}x${bandColumns}`, "strata-scratch"))).length,
        Z,
        "a depth's tiles in one file",
      );
      const edge = (at: number, size: number, whole: number) => Math.min(size, whole - at);
      assert.ok(
        reads.every((r) => r.window!.width === edge(r.window!.x, bandColumns, W) && r.window!.height === edge(r.window!.y, bandRows, H)),
      );
      await readsBack(transposedCube(cube, blocked, scratch).variables[0]);
      await scratch.remove();
    });
  }

  it("refuses a block that cuts tiles", async () => {
    const cube = madeUp([]);
    for (const [bandRows, bandColumns] of [
      [3, W],
      [2, 1],
    ]) {
      const [unit] = streamUnits(cube, { variables: ["temp"], window, bandRows, bandColumns, runs });
      await assert.rejects(
        transposeUnit(cube, { ...layout, bandRows, bandColumns }, unit, scratchIn(join(dir, "cut")), {}),
        /whole tiles of the window/,
      );
    }
  });

  /** Every case of selection reads back the formula. */
  async function readsBack(transposed: Variable): Promise<void> {
    assert.deepEqual(transposed.chunkShape, [1, T, 2, 2]);
    const cases: { dims: IndexRange[]; window: { x: number; y: number; width: number; height: number } }[] = [
      {
        dims: [
          [1, 2],
          [0, T],
        ],
        window: { x: 0, y: 2, width: 2, height: 2 },
      }, // one tile, as the tile walk reads
      {
        dims: [
          [0, 1],
          [0, T],
        ],
        window: { x: 2, y: 4, width: 1, height: 1 },
      }, // the corner's partial tile
      {
        dims: [
          [0, 2],
          [2, 5],
        ],
        window: { x: 1, y: 1, width: 2, height: 3 },
      }, // across four tiles, both depths, a time range
      {
        dims: [
          [0, Z],
          [0, T],
        ],
        window,
      }, // everything
    ];
    for (const c of cases) {
      const slab = await transposed.read(c);
      const [[z0, z1], [t0, t1]] = c.dims;
      assert.deepEqual(slab.shape, [z1 - z0, t1 - t0, c.window.height, c.window.width]);
      let i = 0;
      for (let z = z0; z < z1; z++)
        for (let t = t0; t < t1; t++)
          for (let r = 0; r < c.window.height; r++)
            for (let col = 0; col < c.window.width; col++) {
              assert.equal(
                slab.data[i++],
                value(t, z, c.window.y + r, c.window.x + col),
                `t${t} z${z} r${c.window.y + r} c${c.window.x + col}`,
              );
            }
    }
    await assert.rejects(transposed.read({ window: { x: 0, y: 0, width: W + 1, height: 1 } }), /analysis window/);
  }

  it("writes a run's parts while the next run is read, and waits for them before cutting the next", async () => {
    const events: string[] = [];
    const reads: Selection[] = [];
    const made = madeUp(reads);
    const temp = made.variables[0];
    const cube: Cube = {
      ...made,
      variables: [{ ...temp, read: (selection) => (events.push(`read ${selection!.dims![1][0]}`), temp.read(selection)) }],
    };
    const scratch = scratchIn(join(dir, "slow"));
    let failAfter = Infinity;
    let writes = 0;
    let closed = 0;
    /** Writes that take 30 ms, logged as they end (those after the first failAfter fail). */
    const slow: TileScratch = {
      async openAt(name, access) {
        const file = await scratch.openAt(name, access);
        return {
          readAt: (into, position) => file.readAt(into, position),
          close: () => (closed++, file.close()),
          async writeAt(array, position) {
            await new Promise((resolve) => setTimeout(resolve, 30));
            if (++writes > failAfter) throw new Error("disk full");
            await file.writeAt(array, position);
            if (!events.at(-1)?.startsWith("written")) events.push("written");
          },
        };
      },
    };
    const [unit] = streamUnits(cube, { variables: ["temp"], window, bandRows: H, bandColumns: W, runs });
    await transposeUnit(cube, layout, unit, slow, {});
    // Run 6 was read before run 0's parts were written (awaited in turn, each run's writes would
    // come between its read and the next run's: read 0, read 3, written, read 6, written).
    assert.deepEqual(events, ["read 0", "read 3", "read 6", "written"]);
    const back = await transposedCube(cube, layout, scratch).variables[0].read({
      dims: [
        [0, 1],
        [0, T],
      ],
      window,
    });
    // Every value in place: no cut overwrote parts still being written.
    let i = 0;
    for (let t = 0; t < T; t++) for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) assert.equal(back.data[i++], value(t, 0, r, c));

    failAfter = 6; // run 3's parts fail: run 0 has 6 tiles
    [writes, closed] = [0, 0];
    await assert.rejects(transposeUnit(cube, layout, unit, slow, {}), /disk full/);
    assert.equal(closed, 1, "the file closed once its writes had settled");
    await scratch.remove();
  });
});
