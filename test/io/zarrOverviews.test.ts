/**
 * Overview levels (io/zarrOverviews.ts): the 2 × 2 reduction by hand-worked cases, the levels
 * a grid and its chunks get, and a store written in blocks (as the tasks write, across two
 * writers as threads do) whose levels hold the block means of the full grid, read back with
 * zarrita alone, each level a store of its own that Strata's reader also opens, and invisible
 * to a reader of the root.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";
import { gridFromTransform } from "../../src/cube/grid.js";
import type { Dimension } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { alignedFactors, halveBlock, levelChunks, overviewFactors } from "../../src/io/zarrOverviews.js";
import { createZarrWriter, openBlockWriter } from "../../src/io/zarrWrite.js";

describe("the 2 × 2 reduction", () => {
  it("averages the valid values of each cell, an odd edge's one or two", () => {
    // 3 × 3: cells [1 2 / 4 5], [3 / 6], [7 8], [9].
    const data = Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9);
    const { start, slab } = halveBlock([0, 0], { data, shape: [3, 3] }, [3, 3], undefined);
    assert.deepEqual(start, [0, 0]);
    assert.deepEqual(slab.shape, [2, 2]);
    assert.deepEqual([...slab.data], [3, 4.5, 7.5, 9]);
  });

  it("skips NaN and the nodata value; a cell with none valid is nodata", () => {
    const data = Float64Array.of(NaN, 2, -9, NaN, 4, -9, -9, -9);
    const { slab } = halveBlock([0, 4, 8], { data, shape: [1, 2, 4] }, [2, 12], -9);
    assert.deepEqual([...slab.data], [(2 + 4) / 2, -9]);
    const nan = halveBlock([0, 0], { data: Float32Array.of(NaN, NaN, NaN, NaN), shape: [2, 2] }, [2, 2], undefined);
    assert.ok(Number.isNaN(nan.slab.data[0]));
  });

  it("takes the upper-left value of integers (classes are not averaged)", () => {
    const data = Int16Array.of(1, 2, 3, 4, 5, 6, 7, 8);
    const { slab } = halveBlock([0, 0], { data, shape: [2, 4] }, [2, 4], undefined);
    assert.deepEqual([...slab.data], [1, 3]);
    assert.ok(slab.data instanceof Int16Array);
  });

  it("reduces every slice of a block and halves only the spatial start", () => {
    const data = Float32Array.from({ length: 2 * 2 * 2 }, (_, i) => i);
    const { start, slab } = halveBlock([5, 2, 6], { data, shape: [2, 2, 2] }, [4, 8], undefined);
    assert.deepEqual(start, [5, 1, 3]);
    assert.deepEqual([...slab.data], [1.5, 5.5]);
  });

  it("refuses a block that starts on an odd row or is odd-sized inside the grid", () => {
    assert.throws(() => halveBlock([1, 0], { data: new Float32Array(4), shape: [2, 2] }, [8, 8], undefined), /even rows/);
    assert.throws(() => halveBlock([0, 0], { data: new Float32Array(6), shape: [2, 3] }, [8, 8], undefined), /even rows/);
  });
});

describe("the levels of a grid", () => {
  it("halves down to the level nearest 512 pixels on the longer side (by ratio)", () => {
    assert.deepEqual(overviewFactors(3600, 7200), [2, 4, 8, 16]); // 3600 ... 450 (nearer 512 than 900 is)
    assert.deepEqual(overviewFactors(360, 720), []); // 360 is further from 512 than 720 is
    assert.deepEqual(overviewFactors(512, 512), []);
    assert.deepEqual(overviewFactors(10, 725), [2]); // 363
    assert.deepEqual(overviewFactors(1024, 100), [2]); // 512
  });

  it("keeps the levels a variable's chunks divide into", () => {
    assert.deepEqual(alignedFactors([1, 512, 512], [3600, 7200], [2, 4, 8, 16]), [2, 4, 8, 16]);
    assert.deepEqual(alignedFactors([1, 360, 720], [360, 720], [2]), [2]);
    assert.deepEqual(alignedFactors([1, 24, 512], [3600, 7200], [2, 4, 8, 16]), [2, 4, 8]);
    assert.deepEqual(alignedFactors([1, 61, 61], [3600, 7200], [2, 4]), []);
    assert.deepEqual(levelChunks([3, 512, 720], [1000, 720], 4), [3, 128, 180]);
  });
});

describe("a store written in blocks", () => {
  const HEIGHT = 1100;
  const WIDTH = 1500;
  const STEPS = 2;
  let dir: string;
  /** The full grid's values, [step][row * WIDTH + col]; NaN at a scatter of cells. */
  const full = Array.from({ length: STEPS }, (_, t) =>
    Float32Array.from({ length: HEIGHT * WIDTH }, (_, i) => {
      const r = Math.floor(i / WIDTH);
      const c = i % WIDTH;
      return (r * 31 + c * 17 + t) % 11 === 0 ? NaN : 4 * (r + 7 * c) + t;
    }),
  );
  const time: Dimension = {
    name: "StdTime",
    sourceName: "time",
    description: "time",
    unit: "ISO8601",
    values: [Date.UTC(2000, 0, 1), Date.UTC(2000, 0, 2)],
    calendar: "standard",
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-overviews-"));
    const grid = gridFromTransform(WIDTH, HEIGHT, [-130, 0.2, 0, 110, 0, -0.2], { epsg: 4326 });
    const writer = await createZarrWriter(join(dir, "out.zarr"), {
      grid,
      attributes: {},
      variables: [{ name: "v", description: "v", unit: "K", pixelType: "F32", dimensions: [time], attributes: {} }],
    });
    // Blocks of whole 512 × 512 chunks (edge ones shorter), half written by a second writer as a thread would.
    const other = await openBlockWriter(join(dir, "out.zarr"));
    let k = 0;
    for (let t = 0; t < STEPS; t++) {
      for (let r = 0; r < HEIGHT; r += 512) {
        for (let c = 0; c < WIDTH; c += 512) {
          const rows = Math.min(512, HEIGHT - r);
          const cols = Math.min(512, WIDTH - c);
          const data = new Float32Array(rows * cols);
          for (let y = 0; y < rows; y++) data.set(full[t].subarray((r + y) * WIDTH + c, (r + y) * WIDTH + c + cols), y * cols);
          await (k++ % 2 ? other : writer).writeBlock("v", [t, r, c], { data, shape: [1, rows, cols] });
        }
      }
    }
    await other.flush();
    await writer.finish();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** Block means of `values` (h × w) over f × f cells, valid values only, as float32. */
  function blockMeans(values: ArrayLike<number>, h: number, w: number): Float32Array {
    const out = new Float32Array(Math.ceil(h / 2) * Math.ceil(w / 2));
    for (let r = 0; r < h; r += 2) {
      for (let c = 0; c < w; c += 2) {
        const cell = [values[r * w + c], values[r * w + c + 1], values[(r + 1) * w + c], values[(r + 1) * w + c + 1]].filter(
          (_, i) => (i % 2 === 0 || c + 1 < w) && (i < 2 || r + 1 < h),
        );
        const valid = cell.filter((x) => !Number.isNaN(x));
        out[(r / 2) * Math.ceil(w / 2) + c / 2] = valid.length ? valid.reduce((a, b) => a + b, 0) / valid.length : NaN;
      }
    }
    return out;
  }

  it("lists its levels in the root, each with its factor", async () => {
    const root = await zarr.open.v3(zarr.root(new FileSystemStore(join(dir, "out.zarr"))), { kind: "group" });
    assert.deepEqual(root.attrs["strata:overviews"], [
      { path: "overviews/2", factor: 2, variables: ["v"] },
      { path: "overviews/4", factor: 4, variables: ["v"] },
    ]);
  });

  it("holds at each level the means of the level before, read with zarrita alone", async () => {
    let expected: Float32Array[] = full.map((x) => Float32Array.from(x));
    let [h, w] = [HEIGHT, WIDTH];
    for (const f of [2, 4]) {
      expected = expected.map((x) => blockMeans(x, h, w));
      [h, w] = [Math.ceil(h / 2), Math.ceil(w / 2)];
      const level = zarr.root(new FileSystemStore(join(dir, "out.zarr", `overviews/${f}`)));
      const arr = await zarr.open.v3(level.resolve("v"), { kind: "array" });
      assert.deepEqual(arr.shape, [STEPS, h, w]);
      const got = await zarr.get(arr);
      for (let t = 0; t < STEPS; t++) {
        const slice = (got.data as Float32Array).subarray(t * h * w, (t + 1) * h * w);
        assert.deepEqual(slice, expected[t], `level ${f}, step ${t}`);
      }
    }
  });

  it("is a georeferenced store of its own, and the root's readers see none of it", async () => {
    const level = await openCube(join(dir, "out.zarr", "overviews", "4"), "level");
    try {
      assert.deepEqual([level.grid.width, level.grid.height], [375, 275]);
      // The transform is fitted to the stored cell centres: equal to rounding.
      [-130, 0.8, 0, 110, 0, -0.8].forEach((t, i) => assert.ok(Math.abs(level.grid.transform[i] - t) < 1e-9, `transform[${i}]`));
      assert.equal(level.grid.crs.epsg, 4326);
    } finally {
      await level.close();
    }
    const root = await openCube(join(dir, "out.zarr"), "root");
    try {
      assert.deepEqual(
        root.variables.map((v) => v.name),
        ["v"],
      );
      assert.equal(root.grid.width, WIDTH);
    } finally {
      await root.close();
    }
  });
});
