/**
 * The transposition's cut of a run into tile parts (kernels/tileParts.ts) against the layout
 * worked out value by value: a run of 2 slices of 3 × 5 whose every value says where it is,
 * cut into 2 × 3 tiles (partial ones at the right and bottom), float32 read into the kernel's
 * own array and int16 staged from the heap.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TilePartsKernel } from "../../src/kernels/tileParts.js";

const [STEPS, H, W, TH, TW] = [2, 3, 5, 2, 3];
const at = (s: number, r: number, c: number) => 100 * s + 10 * r + c;

/** Tiles row by row; in each, slice by slice, row by row. */
function expected(): number[] {
  const out: number[] = [];
  for (let ty = 0; ty < H; ty += TH)
    for (let tx = 0; tx < W; tx += TW)
      for (let s = 0; s < STEPS; s++)
        for (let r = ty; r < Math.min(ty + TH, H); r++) for (let c = tx; c < Math.min(tx + TW, W); c++) out.push(at(s, r, c));
  return out;
}

function fill(values: Float32Array | Int16Array): void {
  for (let s = 0; s < STEPS; s++) for (let r = 0; r < H; r++) for (let c = 0; c < W; c++) values[(s * H + r) * W + c] = at(s, r, c);
}

describe("tile parts kernel", () => {
  it("cuts a float32 run read into its own array, tile after tile", () => {
    const kernel = new TilePartsKernel(STEPS * H * W, "F32");
    const run = kernel.runArray(STEPS * H * W) as Float32Array;
    assert.ok(run instanceof Float32Array);
    fill(run);
    const parts = kernel.cut(run, { steps: STEPS, height: H, width: W }, TH, TW);
    assert.deepEqual([...new Float32Array(parts.buffer, parts.byteOffset, parts.length / 4)], expected());
  });

  it("cuts an int16 run from the heap (copied in), twice over", () => {
    const kernel = new TilePartsKernel(STEPS * H * W, "S16");
    assert.equal(kernel.runArray(STEPS * H * W), undefined, "integer runs are read where the reader puts them");
    const run = new Int16Array(STEPS * H * W);
    fill(run);
    for (let k = 0; k < 2; k++) {
      const parts = kernel.cut(run, { steps: STEPS, height: H, width: W }, TH, TW);
      assert.deepEqual([...new Int16Array(parts.slice().buffer)], expected(), `run ${k}`);
    }
    assert.throws(() => kernel.cut(new Int16Array(STEPS * H * W + 1), { steps: STEPS + 1, height: H, width: W }, TH, TW), /sized for/);
  });
});
