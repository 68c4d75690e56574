/**
 * HDF5's shuffle filter undone (io/hdf5/filters.ts unshuffle) against the filter's
 * definition written out here: byte k of element i is stored at k·n + i, and bytes past whole
 * elements stay where they are. Every element size HDF5 files use, counts either side of the
 * word loop's 4-element steps, and an output that is not word-aligned (the byte loop).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { unshuffle } from "../../../src/io/hdf5/filters.js";

describe("unshuffle", () => {
  for (const size of [1, 2, 3, 4, 8]) {
    it(`elements of ${size} byte(s)`, () => {
      let seed = size;
      for (const n of [0, 1, 2, 15, 16, 17, 31, 32, 33, 1000, 4099]) {
        for (const tail of [0, 1]) {
          const src = Uint8Array.from({ length: n * size + tail }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
          const expected = new Uint8Array(src.length);
          for (let i = 0; i < n; i++) for (let k = 0; k < size; k++) expected[i * size + k] = src[k * n + i];
          expected.set(src.subarray(n * size), n * size);
          for (const offset of [0, 1]) {
            const dst = new Uint8Array(src.length + offset).subarray(offset);
            assert.equal(unshuffle(src, size, dst), dst);
            assert.deepEqual(dst, expected, `${n} elements, ${tail} byte(s) past them, output at offset ${offset}`);
          }
        }
      }
    });
  }
});
