/**
 * Tests of the stretches (src/services/render/stretch.ts) on small hand-worked cases. Index of a
 * value v in [lo, hi]: floor((v - lo) / (hi - lo) * 256), clamped to 0..255 (matplotlib's bins).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  computeStatistics,
  percentClipRange,
  stretchNeedsPixels,
  stretchRange,
  stretchToBytes,
  symmetricRange,
  type StretchStatistics,
} from "../../../src/services/render/stretch.js";

const STATS: StretchStatistics = { min: 0, max: 10, mean: 5, stddev: 1 };

test("min-max maps the three values 0, 1, 2 over [0, 2] to 0, 128, 255; NaN and nodata are invalid", () => {
  const { indices, valid, range } = stretchToBytes(
    new Float32Array([0, 1, 2, NaN, -9999]),
    -9999,
    { type: "minMax" },
    { min: 0, max: 2, mean: 1, stddev: 1 },
  );
  assert.deepEqual([...indices], [0, 128, 255, 0, 0]);
  assert.deepEqual([...valid], [1, 1, 1, 0, 0]);
  assert.deepEqual(range, { min: 0, max: 2 });
});

test("min-max with explicit bounds clamps values outside them to 0 and 255", () => {
  const { indices } = stretchToBytes([-5, 0, 0.5, 1, 7], undefined, { type: "minMax", min: 0, max: 1 });
  // 0.5 -> floor(0.5 * 256) = 128; 1 -> 255 (top clamp)
  assert.deepEqual([...indices], [0, 0, 128, 255, 255]);
});

test("min-max takes a missing bound from the statistics", () => {
  assert.deepEqual(stretchRange([], undefined, { type: "minMax", max: 4 }, STATS), { min: 0, max: 4 });
});

test("standard deviation stretch spans mean ± k·stddev (k = 2 by default)", () => {
  assert.deepEqual(stretchRange([], undefined, { type: "standardDeviation" }, STATS), { min: 3, max: 7 });
  assert.deepEqual(stretchRange([], undefined, { type: "standardDeviation", numberOfStandardDeviations: 2.5 }, STATS), {
    min: 2.5,
    max: 7.5,
  });
  const { indices } = stretchToBytes(new Float64Array([2, 3, 4, 5, 6, 7, 8]), undefined, { type: "standardDeviation" }, STATS);
  // over [3, 7]: 4 -> 0.25 * 256 = 64, 5 -> 128, 6 -> 192
  assert.deepEqual([...indices], [0, 0, 64, 128, 192, 255, 255]);
});

test("percent clip of 0..99 by 2% at each end gives [2, 97], exactly", () => {
  const values = Float64Array.from({ length: 100 }, (_, i) => i);
  assert.deepEqual(percentClipRange(values, undefined, 2, 2), { min: 2, max: 97 });
  assert.deepEqual(percentClipRange(values, undefined, 0, 0), { min: 0, max: 99 });
  assert.deepEqual(percentClipRange(values, undefined, 10, 0), { min: 10, max: 99 });
  // Order does not matter and invalid values do not count.
  const shuffled = Float32Array.from([...values].reverse().concat([NaN, -1, -1]));
  assert.deepEqual(percentClipRange(shuffled, -1, 2, 2), { min: 2, max: 97 });
  const { indices } = stretchToBytes(values, undefined, { type: "percentClip", minPercent: 2, maxPercent: 2 });
  assert.equal(indices[1], 0);
  assert.equal(indices[2], 0);
  assert.equal(indices[3], Math.floor((1 / 95) * 256));
  assert.equal(indices[97], 255);
});

test("percent clip equals the sorted-rank definition on skewed random data", () => {
  let seed = 7;
  const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) ** 3 * 1000 - 3;
  const values = Float32Array.from({ length: 5003 }, rand);
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  for (const [lo, hi] of [
    [0.25, 0.25],
    [1, 3],
    [10, 40],
  ]) {
    assert.deepEqual(percentClipRange(values, undefined, lo, hi), {
      min: sorted[Math.floor((n * lo) / 100)],
      max: sorted[n - 1 - Math.floor((n * hi) / 100)],
    });
  }
});

test("percent clip of a constant or empty band is degenerate, not an error", () => {
  assert.deepEqual(percentClipRange([4, 4, 4], undefined, 2, 2), { min: 4, max: 4 });
  assert.deepEqual(percentClipRange([NaN], undefined, 2, 2), { min: 0, max: 0 });
});

test("gamma bends the stretched fraction by t^(1/gamma)", () => {
  // t = 0.25 with gamma 2 -> 0.5 -> index 128; gamma 0.5 -> 0.0625 -> 16
  const values = [0, 0.25, 1];
  assert.deepEqual([...stretchToBytes(values, undefined, { type: "minMax", min: 0, max: 1, gamma: 2 }).indices], [0, 128, 255]);
  assert.deepEqual([...stretchToBytes(values, undefined, { type: "minMax", min: 0, max: 1, gamma: 0.5 }).indices], [0, 16, 255]);
  assert.deepEqual([...stretchToBytes(values, undefined, { type: "minMax", min: 0, max: 1, gamma: 1 }).indices], [0, 64, 255]);
});

test("an output range (ArcGIS Min/Max) narrows the indices", () => {
  const { indices } = stretchToBytes([0, 1, 2, 5], undefined, { type: "minMax", min: 0, max: 2, outputMin: 100, outputMax: 199 });
  // 100 bins: 1 -> 100 + floor(0.5 * 100) = 150
  assert.deepEqual([...indices], [100, 150, 199, 199]);
});

test("a degenerate range puts values on the middle index and the rest at the ends", () => {
  const { indices } = stretchToBytes([-1, 0, 1], undefined, { type: "minMax", min: 0, max: 0 });
  assert.deepEqual([...indices], [0, 128, 255]);
});

test("no stretch uses the value as the index, truncated and clamped", () => {
  const { indices, valid, range } = stretchToBytes(new Int16Array([-5, 0, 3, 255, 300, -32768]), -32768, { type: "none" });
  assert.deepEqual([...indices], [0, 0, 3, 255, 255, 0]);
  assert.deepEqual([...valid], [1, 1, 1, 1, 1, 0]);
  assert.equal(range, undefined);
  assert.equal(stretchToBytes([3.7], undefined, { type: "none" }).indices[0], 3);
});

test("statistics come from the spec, else the dataset, else (and always with DRA) the values", () => {
  const values = [0, 1, 2, 3, 4];
  const own: StretchStatistics = { min: -10, max: 10, mean: 0, stddev: 5 };
  assert.deepEqual(stretchRange(values, undefined, { type: "minMax" }, STATS), { min: 0, max: 10 });
  assert.deepEqual(stretchRange(values, undefined, { type: "minMax", statistics: own }, STATS), { min: -10, max: 10 });
  assert.deepEqual(stretchRange(values, undefined, { type: "minMax", dra: true, statistics: own }, STATS), { min: 0, max: 4 });
  assert.deepEqual(stretchRange(values, undefined, { type: "minMax" }), { min: 0, max: 4 });
  // DRA standard deviation: mean 2, population stddev sqrt(2)
  const r = stretchRange(values, undefined, { type: "standardDeviation", numberOfStandardDeviations: 1, dra: true }, STATS);
  assert.ok(Math.abs(r.min - (2 - Math.SQRT2)) < 1e-12 && Math.abs(r.max - (2 + Math.SQRT2)) < 1e-12, JSON.stringify(r));
});

test("symmetricRange centres the range on zero and covers both ends", () => {
  assert.deepEqual(symmetricRange({ min: -1, max: 3 }), { min: -3, max: 3 });
  assert.deepEqual(symmetricRange({ min: -4, max: 2 }), { min: -4, max: 4 });
  assert.deepEqual(symmetricRange({ min: 1, max: 2 }), { min: -2, max: 2 });
  const { indices } = stretchToBytes([-2, 0, 1], undefined, { type: "minMax", symmetric: true }, { min: -2, max: 1, mean: 0, stddev: 1 });
  assert.deepEqual([...indices], [0, 128, 192]);
});

test("computeStatistics skips nodata and NaN, and answers zeros for an empty band", () => {
  const s = computeStatistics(new Float32Array([1, 2, 3, NaN, -9999]), -9999);
  assert.equal(s.min, 1);
  assert.equal(s.max, 3);
  assert.equal(s.mean, 2);
  assert.ok(Math.abs(s.stddev - Math.sqrt(2 / 3)) < 1e-12);
  assert.deepEqual(computeStatistics([NaN], undefined), { min: 0, max: 0, mean: 0, stddev: 0 });
});

test("standard deviation ranges stay within the data's min and max", () => {
  // mean 5 ± 2·1 = [3, 7], cut to the data's [4, 10]
  assert.deepEqual(stretchRange([], undefined, { type: "standardDeviation" }, { min: 4, max: 10, mean: 5, stddev: 1 }), { min: 4, max: 7 });
});

/** Statistics whose stored fine histogram has one value in each unit bin [j, j + 1), j = 0..255 (256 bins over [0, 256] are the same bins). */
const UNIT_STATS: StretchStatistics = {
  min: 0,
  max: 256,
  mean: 128,
  stddev: 74,
  histogram: { exponent: 0, first: 0, counts: new Array<number>(256).fill(1) },
};

test("percent clip uses the stored histogram unless DRA: bin edges of the clipped ranks", () => {
  // n = 256: rank floor(256 · 2%) = 5 lies in bin 5 -> 5; rank 255 - floor(256 · 3%) = 248 in bin 248 -> its top, 249.
  const spec = { type: "percentClip", minPercent: 2, maxPercent: 3 } as const;
  const drawn = [0, 5, 127, 249, 1000];
  assert.deepEqual(stretchRange(drawn, undefined, spec, UNIT_STATS), { min: 5, max: 249 });
  // (127 - 5) / 244 = 0.5 -> 128
  assert.deepEqual([...stretchToBytes(drawn, undefined, spec, UNIT_STATS).indices], [0, 0, 128, 255, 255]);
  // DRA: the drawn five values, exactly: ranks floor(5 · 2%) = 0 and 4 - floor(5 · 3%) = 4
  assert.deepEqual(stretchRange(drawn, undefined, { ...spec, dra: true }, UNIT_STATS), { min: 0, max: 1000 });
  // A Histograms argument stands in for the dataset's: 4 bins over [0, 8], counts 1 1 1 1, clip 25% / 25% -> bins 1..2 -> [2, 6]
  const given = { min: 0, max: 8, counts: [1, 1, 1, 1] };
  assert.deepEqual(stretchRange(drawn, undefined, { type: "percentClip", minPercent: 25, maxPercent: 25, histogram: given }, UNIT_STATS), {
    min: 2,
    max: 6,
  });
  // The ArcGIS defaults when a rule names no percents: 0.25 and 0.5 -> ranks 0 and 255 - 1 = 254 -> [0, 255]
  assert.deepEqual(stretchRange(drawn, undefined, { type: "percentClip" }, UNIT_STATS), { min: 0, max: 255 });
});

test("histogram equalization: the index is 256 × the share of values at or below the value's bin", () => {
  // Histogram 4 bins over [0, 4]: counts 1 0 2 1 -> shares 0.25 0.25 0.75 1 -> 64 64 192 255 (capped)
  const histogram = { min: 0, max: 4, counts: [1, 0, 2, 1] };
  const { indices, range } = stretchToBytes([0.5, 1.5, 2.5, 3.5, -3, 9], undefined, { type: "histogramEqualization", histogram });
  assert.deepEqual([...indices], [64, 64, 192, 255, 64, 255]);
  assert.deepEqual(range, { min: 0, max: 4 });
  // DRA: 256 bins over the drawn [1, 4]: 1, 2, 3, 4 fall in bins 0, 85, 170, 255, a quarter each -> 64, 128, 192, 255
  const dra = stretchToBytes([1, 2, 3, 4, NaN], undefined, { type: "histogramEqualization", dra: true, histogram }, UNIT_STATS);
  assert.deepEqual([...dra.indices], [64, 128, 192, 255, 0]);
  assert.deepEqual([...dra.valid], [1, 1, 1, 1, 0]);
  // The stored histogram (one value per unit bin): value 63.5 is in bin 63 -> share 64/256 -> 64
  assert.equal(stretchToBytes([63.5], undefined, { type: "histogramEqualization" }, UNIT_STATS).indices[0], 64);
});

test("sigmoid: 256 / (1 + e^(-2·level·(t - 1/2))) over the min-max range", () => {
  // level 2 (the default): t = 0 -> 256 / (1 + e^2) = 30.52 -> 30; t = 1/2 -> 128; t = 1 -> 225.48 -> 225
  const stats = { min: 0, max: 10, mean: 5, stddev: 1 };
  assert.deepEqual([...stretchToBytes([0, 5, 10, -4, 14], undefined, { type: "sigmoid" }, stats).indices], [30, 128, 225, 30, 225]);
  // level 6: t = 0 -> 256 / (1 + e^6) = 0.63 -> 0; t = 1 -> 255.37 -> 255; t = 0.25 -> 256 / (1 + e^3) = 12.11 -> 12
  assert.deepEqual([...stretchToBytes([0, 2.5, 10], undefined, { type: "sigmoid", sigmoidStrengthLevel: 6 }, stats).indices], [0, 12, 255]);
});

test("stretchNeedsPixels: only when nothing fixes the range before the pixels are read", () => {
  const stats: StretchStatistics = { min: 0, max: 1, mean: 0.5, stddev: 0.1 };
  assert.equal(stretchNeedsPixels({ type: "none" }, undefined), false);
  assert.equal(stretchNeedsPixels({ type: "minMax", min: 0, max: 1 }, undefined), false);
  assert.equal(stretchNeedsPixels({ type: "minMax" }, stats), false);
  assert.equal(stretchNeedsPixels({ type: "minMax" }, undefined), true);
  assert.equal(stretchNeedsPixels({ type: "sigmoid", dra: true }, stats), true);
  assert.equal(stretchNeedsPixels({ type: "percentClip" }, stats), true);
  assert.equal(stretchNeedsPixels({ type: "percentClip" }, UNIT_STATS), false);
  assert.equal(stretchNeedsPixels({ type: "histogramEqualization", histogram: { min: 0, max: 1, counts: [1] } }, undefined), false);
});
