/**
 * The statistics kernel (kernels/statistics.ts) against its definition in plain loops:
 * counts, extremes and bins exactly; sums to rounding (the kernel adds in four lanes). Blocks
 * of every length modulo 4 (the lanes' tail), NaN and the nodata value anywhere, float32,
 * float64 and int16 values, and blocks larger than the last (the arena made again).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PIXEL_ARRAYS } from "../../src/cube/types.js";
import { stageBlock } from "../../src/kernels/statistics.js";

let seed = 5;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;

describe("the statistics kernel", () => {
  for (const type of ["F32", "F64", "S16"] as const) {
    it(`sums and bins ${type} blocks as plain loops do`, () => {
      const nodata = -9999;
      for (const length of [0, 1, 2, 3, 4, 5, 6, 7, 1001, 20_003, 100_002]) {
        const data = new PIXEL_ARRAYS[type](length);
        for (let i = 0; i < length; i++) {
          const r = random();
          data[i] = r < 0.05 && type !== "S16" ? NaN : r < 0.1 ? nodata : 250 + 100 * random();
        }
        const k = 300;
        let [n, s1, s2, lo, hi] = [0, 0, 0, Infinity, -Infinity];
        const scale = 2 ** 3; // bins 1/8 wide from 200
        const origin = 200 * scale;
        const expected = new Float64Array(4096);
        for (const x of data) {
          if (Number.isNaN(x) || x === nodata) continue;
          n++;
          s1 += x - k;
          s2 += (x - k) ** 2;
          lo = Math.min(lo, x);
          hi = Math.max(hi, x);
          expected[Math.trunc(x * scale - origin)]++;
        }
        const block = stageBlock(data);
        const out = new Float64Array(5);
        block.sums(nodata, k, out);
        const what = `${type}, ${length} values`;
        assert.equal(out[0], n, what);
        assert.ok(Math.abs(out[1] - s1) <= 1e-9 * Math.max(1, Math.abs(s2)), `${what}: Σ(x−k) ${out[1]} vs ${s1}`);
        assert.ok(Math.abs(out[2] - s2) <= 1e-12 * Math.max(1, s2), `${what}: Σ(x−k)² ${out[2]} vs ${s2}`);
        assert.deepEqual([out[3], out[4]], [lo, hi], what);
        const counts = new Float64Array(4096).fill(1);
        block.bin(nodata, scale, origin, counts);
        assert.deepEqual(
          Array.from(counts, (c) => c - 1),
          Array.from(expected),
          what,
        );
      }
    });
  }

  it("refuses more bins than its tally holds", () => {
    assert.throws(() => stageBlock(Float32Array.of(1)).bin(NaN, 1, 0, new Float64Array(5000)), /5000 bins/);
  });
});
