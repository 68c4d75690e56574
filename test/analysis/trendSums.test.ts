/**
 * Pass-0 sums of the streamed trend (TrendSums), through LINEAR's WebAssembly kernel and the
 * plain loops: a hand-worked pixel, and runs of each value type against the sums written
 * out in the test, whatever is missing where.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { TrendSums } from "../../src/analysis/trendStream.js";
import { PIXEL_ARRAYS, type PixelType } from "../../src/cube/types.js";

/** Basis rows (1, x′) of `slices` slices, x′ centred and scaled as the fit does. */
const linearBasis = (slices: number) =>
  Float64Array.from({ length: 2 * slices }, (_, j) => (j % 2 === 0 ? 1 : ((j >> 1) - (slices - 1) / 2) / 3));

/** A kernel-backed TrendSums (sized for runs) and a plain one (sized for merging only) must agree. */
const sized = (pixels: number, values: number, pixelType: PixelType) => [
  { what: "kernel", sums: new TrendSums(pixels, 2, { values, pixelType }) },
  { what: "plain", sums: new TrendSums(pixels, 2) },
];

describe("TrendSums", () => {
  for (const { what, sums } of sized(1, 4, "F32")) {
    it(`sums a pixel of four values by hand (${what})`, () => {
      sums.addRun(Float32Array.of(1, 2, 3, 4), 4, Float64Array.of(1, -1.5, 1, -0.5, 1, 0.5, 1, 1.5), NaN);
      assert.equal(sums.count[0], 4);
      assert.equal(sums.sumY[0], 10);
      assert.equal(sums.shift[0], 1); // K: the first value
      assert.equal(sums.syy[0], 0 + 1 + 4 + 9);
      assert.deepEqual([...sums.xty], [10, -1.5 - 1 + 1.5 + 6]);
      assert.deepEqual([sums.ymin[0], sums.ymax[0]], [1, 4]);
    });
  }

  // An odd pixel count (the kernel takes pixels in pairs), runs of two slices (a pixel's first
  // value and its gaps fall in any run), every pixel against the definition in plain loops
  // (count, K = first valid value, Σy, Σ(y−K)², Xᵀy, extremes, Σφφᵀ of the slices a pixel
  // lacks), added in time order as a stream must.
  for (const pixelType of ["F32", "F64", "S16"] as const) {
    for (const { what, sums } of sized(8201, 2 * 8201, pixelType)) {
      it(`runs of ${pixelType} values, gaps anywhere: every pixel's sums as written out here (${what})`, () => {
        let seed = 11;
        const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
        const slices = 6;
        const pixels = 8201;
        const nodata = -9999;
        const values = new PIXEL_ARRAYS[pixelType](slices * pixels);
        for (let i = 0; i < values.length; i++) {
          const pixel = i % pixels;
          const r = random();
          const missing = pixel === 1 || (pixel === 0 && i < 3 * pixels) || r < 0.1;
          values[i] = missing ? (r < 0.05 && pixelType !== "S16" ? NaN : nodata) : 280 + 30 * r;
        }
        const phi = linearBasis(slices);
        for (let t = 0; t < slices; t += 2) {
          const run = values.subarray(t * pixels, (t + 2) * pixels);
          // The first run through an array of the kernel's own, as a walk reads it.
          const own = t === 0 ? sums.runArray(run.length) : undefined;
          own?.set(run);
          sums.addRun(own ?? run, 2, phi.subarray(2 * t), nodata);
        }
        for (let p = 0; p < pixels; p++) {
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
          const at = `pixel ${p}`;
          assert.equal(sums.count[p], count, at);
          assert.equal(sums.bad[p], count < slices ? 1 : 0, at);
          assert.ok(Object.is(sums.shift[p], k), at);
          assert.equal(sums.sumY[p], sumY, at);
          assert.equal(sums.syy[p], syy, at);
          assert.deepEqual([sums.xty[2 * p], sums.xty[2 * p + 1]], [sumY, x1], at);
          assert.deepEqual([sums.ymin[p], sums.ymax[p]], [lo, hi], at);
          assert.deepEqual([...sums.missing.subarray(3 * p, 3 * p + 3)], lack, at);
        }
      });
    }
  }

  it("hands out run arrays for float input only, and refuses a run longer than it was sized for", () => {
    assert.ok(new TrendSums(10, 2, { values: 20, pixelType: "F32" }).runArray(20) instanceof Float32Array);
    assert.equal(new TrendSums(10, 2, { values: 20, pixelType: "S16" }).runArray(20), undefined);
    assert.equal(new TrendSums(10, 3, { values: 20, pixelType: "F32" }).runArray(20), undefined);
    const sums = new TrendSums(10, 2, { values: 20, pixelType: "F32" });
    assert.throws(() => sums.addRun(new Float32Array(30), 3, linearBasis(3), NaN), /sized for 20/);
  });
});
