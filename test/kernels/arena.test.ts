/**
 * The kernel arena places arrays after a module's static data: the kendall kernel's Math
 * tables (log and exp, for its selection's sample bounds) are written into the memory when
 * the module is instantiated, and an array over them would overwrite them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { KernelArena, kernelModule } from "../../src/kernels/arena.js";
import { WASM_BASE64 } from "../../src/kernels/kendall.wasm.js";

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
});
