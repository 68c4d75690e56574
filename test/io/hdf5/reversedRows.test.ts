/**
 * Reading with each plane's rows last to first (a south-up grid read north-up): against the
 * values h5py read, with the rows reversed here. Whole-plane chunk windows reverse the rows as
 * the chunks decode (into a kernel's run, by its SIMD unshuffle), other windows are flipped
 * once read; every fixture dataset of two dimensions or more, every storage.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TypedArray } from "../../../src/cube/types.js";
import { Hdf5UnsupportedError, openHdf5Chunks } from "../../../src/io/hdf5/index.js";
import { KernelArena, RunInput, kernelModule } from "../../../src/kernels/arena.js";
import { WASM_BASE64 } from "../../../src/kernels/linearSums.wasm.js";
import { EXPECTED, FIXTURES, expectedValues, window } from "./expected.js";

/** The C-order window with each plane's rows (the last two dimensions) last to first. */
function reversedWindow(all: TypedArray, shape: number[], start: number[], count: number[]): number[] {
  const values = window(all, shape, start, count);
  const [rows, columns] = count.slice(-2);
  const out: number[] = [];
  for (let p = 0; p < values.length; p += rows * columns)
    for (let r = rows - 1; r >= 0; r--) out.push(...values.slice(p + r * columns, p + (r + 1) * columns));
  return out;
}

describe("chunk reader, rows reversed", () => {
  it("reads every dataset's windows with their rows last to first, into the heap and into a kernel's run", async () => {
    const { placed: runs } = KernelArena.create(kernelModule("linearSums", WASM_BASE64), (space) => new RunInput(space, 4096, "F32"));
    const kernelRun = runs.runArray(4096)!;
    let fused = 0;
    for (const [file, datasets] of Object.entries(EXPECTED)) {
      const h5 = await openHdf5Chunks(FIXTURES + file);
      for (const [path, entry] of Object.entries(datasets)) {
        if (entry.shape.length < 2) continue;
        const all = expectedValues(entry);
        const ds = (await h5.dataset(path))!;
        // A chunk that skipped its filters is h5wasm's to read (behaviour.test.ts).
        if (
          await ds
            .read(
              entry.shape.map(() => 0),
              entry.shape,
            )
            .then(
              () => false,
              (e) => e instanceof Hdf5UnsupportedError,
            )
        )
          continue;
        const rank = entry.shape.length;
        const chunk = entry.chunks ?? entry.shape;
        const windows: [number[], number[]][] = [[entry.shape.map(() => 0), entry.shape.slice()]];
        // A whole-plane chunk window (rows and columns one chunk's, aligned), when it fits.
        const start = entry.shape.map((n, d) => (d >= rank - 2 && chunk[d] < n ? chunk[d] : 0));
        const count = entry.shape.map((n, d) => (d >= rank - 2 ? chunk[d] : 1));
        if (start.every((s, d) => s + count[d] <= entry.shape[d])) windows.push([start, count]);
        // And one that is not (a row short).
        windows.push([entry.shape.map(() => 0), entry.shape.map((n, d) => (d === rank - 2 ? Math.max(1, n - 1) : n))]);
        for (const [s, c] of windows) {
          const want = reversedWindow(all, entry.shape, s, c);
          assert.deepEqual([...(await ds.read(s, c, undefined, undefined, true))], want, `${file} ${path} [${s}] + [${c}]`);
          const total = c.reduce((a, b) => a * b, 1);
          if (entry.dtype === "<f4" && total <= 4096) {
            const into = kernelRun.subarray(0, total);
            const got = await ds.read(s, c, undefined, into, true);
            assert.deepEqual([...got], want, `${file} ${path} [${s}] + [${c}] into a kernel's run`);
            if (got.buffer === into.buffer && ds.storage === "chunked") fused++;
          }
        }
      }
      await h5.close();
    }
    assert.ok(fused > 0, "some reads went into a kernel's run");
  });
});
