/**
 * The kernel arena places arrays after a module's static data: the kendall kernel's Math
 * tables (log and exp, for its selection's sample bounds) are written into the memory when
 * the module is instantiated, and an array over them would overwrite them. A chunk decoded
 * into a kernel's run is unshuffled by the kernel's SIMD loop: against the shuffle filter's
 * definition (byte k of element i stored at k·n + i, bytes past whole elements in place).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { KernelArena, RunInput, kernelModule, unshuffleIntoKernel } from "../../src/kernels/arena.js";
import { WASM_BASE64 } from "../../src/kernels/kendall.wasm.js";
import { WASM_BASE64 as LINEAR_SUMS } from "../../src/kernels/linearSums.wasm.js";

describe("KernelArena", () => {
  it("places arrays after the module's static data, and makes room for them", () => {
    const { arena, placed } = KernelArena.create(kernelModule("kendall", WASM_BASE64), (space) => [
      space.allocate(Float64Array, 1000),
      space.allocate(Int32Array, 70_000),
    ]);
    const staticEnd: number = arena.exports.heapBase();
    assert.ok(staticEnd > 1024, `the kendall kernel has static data (ends at ${staticEnd})`);
    assert.ok(placed[0].byteOffset >= staticEnd);
    assert.ok(placed[1].byteOffset >= placed[0].byteOffset + placed[0].byteLength);
    assert.equal(placed[0].byteOffset % 16, 0);
    assert.ok(placed[1].byteOffset + placed[1].byteLength <= placed[1].buffer.byteLength);
    assert.ok(arena.holds(placed[1]));
  });

  it("unshuffles into a kernel's run with its SIMD loop, as the filter defines, and declines what it cannot", () => {
    const { placed } = KernelArena.create(kernelModule("linearSums", LINEAR_SUMS), (space) => new RunInput(space, 5000, "F32"));
    const run = placed.runArray(5000)!;
    const bytes = new Uint8Array(run.buffer, run.byteOffset, run.byteLength);
    let seed = 3;
    for (const size of [2, 4]) {
      for (const n of [0, 1, 15, 16, 17, 31, 32, 33, 1000, 4099]) {
        for (const tail of [0, 1]) {
          const src = Uint8Array.from({ length: n * size + tail }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
          const expected = new Uint8Array(src.length);
          for (let i = 0; i < n; i++) for (let k = 0; k < size; k++) expected[i * size + k] = src[k * n + i];
          expected.set(src.subarray(n * size), n * size);
          const into = bytes.subarray(0, src.length);
          assert.equal(unshuffleIntoKernel(src, size, into), true);
          assert.deepEqual(into, expected, `${n} elements of ${size} bytes, ${tail} past them`);
        }
      }
    }
    // Rows reversed as it goes: 2 planes of 3 rows of 20 elements (rows of 16 and a tail of 4).
    for (const size of [2, 4]) {
      const [planes, rows, columns] = [2, 3, 20];
      const n = planes * rows * columns;
      const src = Uint8Array.from({ length: n * size }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
      const expected = new Uint8Array(src.length);
      for (let i = 0; i < n; i++) {
        const [p, r, c] = [Math.floor(i / (rows * columns)), Math.floor(i / columns) % rows, i % columns];
        const o = (p * rows + rows - 1 - r) * columns + c;
        for (let k = 0; k < size; k++) expected[o * size + k] = src[k * n + i];
      }
      const into = bytes.subarray(0, src.length);
      assert.equal(unshuffleIntoKernel(src, size, into, { rows, rowBytes: columns * size }), true);
      assert.deepEqual(into, expected, `rows reversed, ${size}-byte elements`);
      // Rows that do not divide the chunk: declined.
      assert.equal(unshuffleIntoKernel(src, size, into, { rows: 7, rowBytes: columns * size }), false);
    }
    // Element sizes its loop does not take, an array on the heap, and more than the staging holds.
    assert.equal(unshuffleIntoKernel(new Uint8Array(24), 8, bytes.subarray(0, 24)), false);
    assert.equal(unshuffleIntoKernel(new Uint8Array(24), 4, new Uint8Array(24)), false);
    assert.equal(unshuffleIntoKernel(new Uint8Array(20_004), 4, bytes.subarray(0, 20_004)), false);
  });
});
