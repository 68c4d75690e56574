/**
 * A subset's output chunks (analysis/tiles.ts, sliceChunk): a slice whole when it holds
 * at most tile × tile values, else tile × tile tiles; the values read back are the small
 * cube's, worked out from its formula (test/helpers/smallCube.ts), either way.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sliceChunk } from "../../src/analysis/tiles.js";
import { openCube } from "../../src/io/open.js";
import { writeSubset } from "../../src/tasks/subset.js";
import { smallCubeValue, writeSmallCube } from "../helpers/smallCube.js";

describe("subset output chunks", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-subset-chunks-"));
    await writeSmallCube(join(dir, "small.nc"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps a slice whole when it holds at most tile × tile values", () => {
    assert.deepEqual(sliceChunk({ x: 0, y: 0, width: 720, height: 360 }, 512), { height: 360, width: 720 });
    assert.deepEqual(sliceChunk({ x: 5, y: 5, width: 512, height: 512 }, 512), { height: 512, width: 512 });
    assert.deepEqual(sliceChunk({ x: 0, y: 0, width: 1440, height: 720 }, 512), { height: 512, width: 512 });
  });

  for (const [tile, chunk] of [
    [5, [1, 4, 5]],
    [4, [1, 4, 4]],
  ] as const) {
    it(`writes a 4 × 5 grid with tile ${tile} in chunks ${chunk.join(" × ")}, every value in place`, async () => {
      const cube = await openCube(join(dir, "small.nc"));
      const out = join(dir, `tile${tile}.zarr`);
      try {
        const a = cube.variables.find((v) => v.name === "a")!;
        const indices = a.dimensions.map((d) => d.values.map((_, i) => i));
        await writeSubset(cube, { variables: [{ name: "a", indices }], window: { x: 0, y: 0, width: 5, height: 4 }, tile }, out);
      } finally {
        await cube.close();
      }
      const meta = JSON.parse(await readFile(join(out, "a", "zarr.json"), "utf8"));
      assert.deepEqual(meta.chunk_grid.configuration.chunk_shape, chunk);
      const back = await openCube(out);
      try {
        const slab = await back.variables.find((v) => v.name === "a")!.read();
        const want = [];
        for (let t = 0; t < 3; t++)
          for (let row = 0; row < 4; row++) for (let col = 0; col < 5; col++) want.push(smallCubeValue(t, 3 - row, col) ?? -999);
        assert.deepEqual(Array.from(slab.data), want);
      } finally {
        await back.close();
      }
    });
  }
});
