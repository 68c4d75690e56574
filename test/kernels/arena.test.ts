/**
 * The kernel arena places arrays after a module's static data: data a module writes into
 * the memory when it is instantiated (AssemblyScript's Math tables, say) would be
 * overwritten by an array placed over it. A chunk decoded
 * into a kernel's run is unshuffled by the kernel's SIMD loop: against the shuffle filter's
 * definition (byte k of element i stored at k·n + i, bytes past whole elements in place).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { KernelArena, RunInput, chunkStagingBytes, kernelModule, unshuffleIntoKernel } from "../../src/kernels/arena.js";
import { WASM_BASE64 } from "../../src/kernels/kendall.wasm.js";
import { WASM_BASE64 as GROUP_SUMS } from "../../src/kernels/groupSums.wasm.js";
import { WASM_BASE64 as LINEAR_SUMS } from "../../src/kernels/linearSums.wasm.js";

describe("KernelArena", () => {
  it("places arrays after the module's static data, and makes room for them", () => {
    const { arena, placed } = KernelArena.create(new WebAssembly.Module(moduleWithStaticData()), (space) => [
      space.allocate(Float64Array, 1000),
      space.allocate(Int32Array, 70_000),
    ]);
    assert.equal(arena.exports.heapBase(), STATIC_END);
    assert.ok(placed[0].byteOffset >= STATIC_END);
    assert.ok(placed[1].byteOffset >= placed[0].byteOffset + placed[0].byteLength);
    assert.equal(placed[0].byteOffset % 16, 0);
    assert.ok(placed[1].byteOffset + placed[1].byteLength <= placed[1].buffer.byteLength);
    assert.ok(arena.holds(placed[1]));
    placed[0].fill(-1);
    placed[1].fill(-1);
    const data = new Uint8Array(placed[0].buffer, 1024, STATIC_END - 1024);
    assert.ok(
      data.every((b) => b === 0xab),
      "the static data is intact",
    );
    // Our kernels keep none at present: their arrays start at the default 1024.
    const kendall = KernelArena.create(kernelModule("kendall", WASM_BASE64), (space) => space.allocate(Float64Array, 8));
    assert.ok(kendall.placed.byteOffset >= kendall.arena.exports.heapBase());
  });

  it("gives a kernel compiled for a shared memory one (its arrays another thread can write files from), and only that kernel", () => {
    const module = kernelModule("groupSums", GROUP_SUMS);
    const { placed } = KernelArena.create(module, (space) => space.allocate(Float32Array, 64), { sharedMemory: true });
    assert.ok(placed.buffer instanceof SharedArrayBuffer);
    assert.throws(() => KernelArena.create(module, (space) => space.allocate(Float32Array, 64)), WebAssembly.LinkError);
    const linear = KernelArena.create(kernelModule("linearSums", LINEAR_SUMS), (space) => space.allocate(Float32Array, 64));
    assert.ok(linear.placed.buffer instanceof ArrayBuffer);
  });

  it("stages a chunk to unshuffle when it is at most a quarter of the arrays it is read into", () => {
    assert.equal(chunkStagingBytes(5_256_000, 4 * 5_256_000), 5_256_000); // 365 × 60 × 60 float32 into 1460 steps' tile
    assert.equal(chunkStagingBytes(5_256_001, 4 * 5_256_000), 0);
    assert.equal(chunkStagingBytes(0, 1000), 0);
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

/** Where the static data of moduleWithStaticData ends (it fills 1024 up to here with 0xab). */
const STATIC_END = 5120;

/**
 * A WebAssembly module (assembled here, byte by byte) that imports its memory as Strata's
 * kernels do, writes 4096 bytes of static data at offset 1024 when instantiated, and exports
 * heapBase returning where that data ends.
 */
function moduleWithStaticData(): Uint8Array<ArrayBuffer> {
  const name = (text: string) => [text.length, ...Buffer.from(text)];
  const section = (id: number, content: number[]) => [id, ...leb128(content.length), ...content];
  const i32Const = (value: number) => [0x41, ...leb128Signed(value)];
  const data = new Array<number>(STATIC_END - 1024).fill(0xab);
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 0, 1, 0x7f]), // one type: () -> i32
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1]), // env.memory, 1 page at least
    ...section(3, [1, 0]), // one function, of type 0
    ...section(7, [1, ...name("heapBase"), 0x00, 0]),
    ...section(10, [1, ...leb128(1 + i32Const(STATIC_END).length + 1), 0, ...i32Const(STATIC_END), 0x0b]),
    ...section(11, [1, 0, ...i32Const(1024), 0x0b, ...leb128(data.length), ...data]),
  ]);
}

function leb128(value: number): number[] {
  const out: number[] = [];
  do {
    const byte = value & 0x7f;
    value >>>= 7;
    out.push(value ? byte | 0x80 : byte);
  } while (value);
  return out;
}

function leb128Signed(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}
