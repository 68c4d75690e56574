/**
 * Pass-0 sums of the streamed trend (TrendSums): a hand-worked pixel, and whole runs across
 * cache blocks against the sums written out in the test, whatever is missing where.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { TrendSums } from "../../src/analysis/trendStream.js";

/** Basis rows (1, x′) of `slices` slices, x′ centred and scaled as the fit does. */
const linearBasis = (slices: number) =>
  Float64Array.from({ length: 2 * slices }, (_, j) => (j % 2 === 0 ? 1 : ((j >> 1) - (slices - 1) / 2) / 3));

describe("TrendSums", () => {
  it("sums a pixel of four values by hand", () => {
    const sums = new TrendSums(1, 2);
    sums.addRun(Float32Array.of(1, 2, 3, 4), 4, Float64Array.of(1, -1.5, 1, -0.5, 1, 0.5, 1, 1.5), NaN);
    assert.equal(sums.count[0], 4);
    assert.equal(sums.sumY[0], 10);
    assert.equal(sums.shift[0], 1); // K: the first value
    assert.equal(sums.syy[0], 0 + 1 + 4 + 9);
    assert.deepEqual([...sums.xty], [10, -1.5 - 1 + 1.5 + 6]);
    assert.deepEqual([sums.ymin[0], sums.ymax[0]], [1, 4]);
  });

  it("whole runs over more pixels than a cache block: the sums written out here, value by value", () => {
    // 8200 pixels cross TrendSums' cache blocks (8192); the reference below is the definition
    // in plain loops (count, K = first valid value, Σy, Σ(y−K)², Xᵀy, extremes, Σφφᵀ of the
    // slices a pixel lacks), added in time order as a stream must.
    let seed = 11;
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
    const slices = 6;
    const pixels = 8200;
    const nodata = -9999;
    const values = new Float32Array(slices * pixels);
    for (let i = 0; i < values.length; i++) {
      const pixel = i % pixels;
      const r = random();
      const missing = pixel === 1 || (pixel === 0 && i < 3 * pixels) || r < 0.1;
      values[i] = missing ? (r < 0.05 ? NaN : nodata) : 280 + 30 * r;
    }
    const phi = linearBasis(slices);
    const sums = new TrendSums(pixels, 2);
    sums.addRun(values, slices, phi, nodata);

    for (const p of [0, 1, 2, 8191, 8192, 8199]) {
      let count = 0;
      let k = NaN;
      let sumY = 0;
      let syy = 0;
      let x1 = 0;
      let lo = Infinity;
      let hi = -Infinity;
      const lack = [0, 0, 0];
      for (let t = 0; t < slices; t++) {
        const y = values[t * pixels + p];
        const f = phi[2 * t + 1];
        if (Number.isNaN(y) || y === nodata) {
          lack[0] += 1;
          lack[1] += f;
          lack[2] += f * f;
          continue;
        }
        if (Number.isNaN(k)) k = y;
        count++;
        sumY += y;
        syy += (y - k) * (y - k);
        x1 += f * y;
        lo = Math.min(lo, y);
        hi = Math.max(hi, y);
      }
      const what = `pixel ${p}`;
      assert.equal(sums.count[p], count, what);
      assert.equal(sums.bad[p], count < slices ? 1 : 0, what);
      assert.ok(Object.is(sums.shift[p], k), what);
      assert.equal(sums.sumY[p], sumY, what);
      assert.equal(sums.syy[p], syy, what);
      assert.deepEqual([sums.xty[2 * p], sums.xty[2 * p + 1]], [sumY, x1], what);
      assert.deepEqual([sums.ymin[p], sums.ymax[p]], [lo, hi], what);
      assert.deepEqual([...sums.missing.subarray(3 * p, 3 * p + 3)], lack, what);
    }
  });
});
