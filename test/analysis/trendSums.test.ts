/**
 * Pass-0 sums of the streamed trend (TrendSums): a hand-worked pixel, and the four-slice
 * kernel against slice-by-slice addition: the same doubles, whatever is missing where.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { TrendSums } from "../../src/analysis/trendStream.js";

/** Basis rows (1, x′) of `slices` slices, x′ centred and scaled as the fit does. */
const linearBasis = (slices: number) =>
  Float64Array.from({ length: 2 * slices }, (_, j) => (j % 2 === 0 ? 1 : ((j >> 1) - (slices - 1) / 2) / 3));

const arrays = (s: TrendSums) => ({
  count: [...s.count],
  bad: [...s.bad],
  ymin: [...s.ymin],
  ymax: [...s.ymax],
  sumY: [...s.sumY],
  shift: [...s.shift],
  syy: [...s.syy],
  xty: [...s.xty],
  missing: [...s.missing],
});

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

  it("four slices at a time give the sums of one at a time, with values missing anywhere", () => {
    let seed = 11;
    const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
    for (const [slices, pixels, kind] of [
      [13, 37, "float"],
      [8, 64, "nodata"],
      [22, 5, "int"],
      [4, 9, "infinite"],
    ] as const) {
      const nodata = kind === "int" ? -1 : -9999;
      const values = kind === "int" ? new Int16Array(slices * pixels) : new Float32Array(slices * pixels);
      for (let i = 0; i < values.length; i++) {
        const r = random();
        const pixel = i % pixels;
        // Pixel 0 starts missing (K comes late), pixel 1 is missing throughout.
        const missing = pixel === 1 || (pixel === 0 && i < 3 * pixels) || r < 0.1;
        values[i] = missing
          ? kind === "float"
            ? NaN
            : nodata
          : kind === "infinite" && r > 0.95
            ? Infinity
            : kind === "int"
              ? Math.floor(r * 1000)
              : 280 + 30 * r;
      }
      const phi = linearBasis(slices);
      const together = new TrendSums(pixels, 2);
      together.addRun(values, slices, phi, nodata);
      const oneByOne = new TrendSums(pixels, 2);
      for (let k = 0; k < slices; k++) oneByOne.addRun(values.subarray(k * pixels, (k + 1) * pixels), 1, phi.subarray(2 * k), nodata);
      assert.deepEqual(arrays(together), arrays(oneByOne), `${kind}: ${slices} slices of ${pixels} pixels`);
    }
  });
});
