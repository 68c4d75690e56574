/**
 * The app's reading of trend bands (web/src/chart/trendFit.ts) and its date ticks
 * (web/src/chart/timeTicks.ts), on small cases worked by hand from SPEC §8's models.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TrendAttribute } from "../../web/src/api/types.js";
import { fittedLine, slopeBandOf } from "../../web/src/chart/trendFit.js";
import { timeStep, timeTickLabel, timeTicks } from "../../web/src/chart/timeTicks.js";

const DAY = 86_400_000;
const utc = (y: number, m: number, d: number) => {
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return t.getTime();
};

describe("fittedLine", () => {
  it("LINEAR: Intercept + Slope × days since 1970 for StdTime", () => {
    const trend: TrendAttribute = { dimension: "StdTime", model: "LINEAR", bands: ["Slope", "Intercept", "RMSE"] };
    // Day 0 is 1970-01-01, day 10 957 is 2000-01-01: 3 + 0.5·10957 = 5481.5.
    assert.deepEqual(fittedLine(trend, [0.5, 3, 9], [0, 10957 * DAY], [null, null]), [3, 5481.5]);
    assert.equal(slopeBandOf(trend), "Slope");
  });

  it("LINEAR along a non-time dimension uses the value itself", () => {
    const trend: TrendAttribute = { dimension: "depth", model: "LINEAR", bands: ["Slope", "Intercept"] };
    assert.deepEqual(fittedLine(trend, [-2, 10], [0, 5], []), [10, 0]);
  });

  it("POLYNOMIAL: bands highest order first", () => {
    const trend: TrendAttribute = {
      dimension: "x",
      model: "POLYNOMIAL",
      order: 2,
      bands: ["Polynomial_2", "Polynomial_1", "Polynomial_0"],
    };
    // y = 2x² − 3x + 1 at x = 0, 1, 2, 3: 1, 0, 3, 10.
    assert.deepEqual(fittedLine(trend, [2, -3, 1], [0, 1, 2, 3], []), [1, 0, 3, 10]);
  });

  it("HARMONIC: the line plus sin and cos terms over the cycle length", () => {
    const trend: TrendAttribute = {
      dimension: "x",
      model: "HARMONIC",
      harmonics: 1,
      cycleLengthDays: 4,
      bands: ["Slope", "Intercept", "Harmonic_sin1", "Harmonic_cos1"],
    };
    // y = 1 + 0·x + 2 sin(πx/2) + 3 cos(πx/2) at x = 0, 1, 2, 3: 4, 3, −2, −1.
    const y = fittedLine(trend, [0, 1, 2, 3], [0, 1, 2, 3], [])!;
    [4, 3, -2, -1].forEach((v, i) => assert.ok(Math.abs(y[i] - v) < 1e-12, `x=${i}: ${y[i]}`));
  });

  it("MANN-KENDALL: Sen's line through the median of y − slope·x", () => {
    const trend: TrendAttribute = {
      dimension: "x",
      model: "MANN-KENDALL",
      bands: ["Sens_Slope", "P_Value", "MK_Score", "S_Variance", "Z_Score"],
    };
    // slope 2; y − 2x over the valid points: 1, 5, 3 (x=3 is nodata) → median 3.
    assert.deepEqual(fittedLine(trend, [2, 0.1, 3, 4, 1], [0, 1, 2, 3], [1, 7, 7, null]), [3, 5, 7, 9]);
    assert.equal(slopeBandOf(trend), "Sens_Slope");
  });

  it("gives no line when a band it needs is nodata", () => {
    const trend: TrendAttribute = { dimension: "x", model: "LINEAR", bands: ["Slope", "Intercept"] };
    assert.equal(fittedLine(trend, [null, 1], [0, 1], []), undefined);
  });
});

describe("timeTicks", () => {
  it("ticks ten years of days on 1 January of each year", () => {
    const ticks = timeTicks(utc(2000, 1, 1), utc(2009, 12, 31), 10);
    assert.deepEqual(
      ticks,
      Array.from({ length: 10 }, (_, k) => utc(2000 + k, 1, 1)),
    );
    assert.deepEqual(
      ticks.slice(0, 2).map((t) => timeTickLabel(t, timeStep(utc(2000, 1, 1), utc(2009, 12, 31), 10))),
      ["2000", "2001"],
    );
  });

  it("ticks fifteen months on every third month, labelled year-month", () => {
    const [min, max] = [utc(2003, 2, 10), utc(2004, 5, 20)];
    const step = timeStep(min, max, 6);
    assert.deepEqual(step, { unit: "month", count: 3 });
    assert.deepEqual(
      timeTicks(min, max, 6).map((t) => timeTickLabel(t, step)),
      ["2003-04", "2003-07", "2003-10", "2004-01", "2004-04"],
    );
  });

  it("ticks weeks on days 1, 8, 15 and 22 of each month", () => {
    const [min, max] = [utc(2001, 1, 30), utc(2001, 3, 2)];
    const step = timeStep(min, max, 6);
    assert.deepEqual(step, { unit: "day", count: 7 });
    assert.deepEqual(
      timeTicks(min, max, 6).map((t) => timeTickLabel(t, step)),
      ["2001-02-01", "2001-02-08", "2001-02-15", "2001-02-22", "2001-03-01"],
    );
  });

  it("keeps years 0-99 (climatologies) as themselves", () => {
    const [min, max] = [utc(1, 1, 1), utc(1, 12, 31)];
    const step = timeStep(min, max, 12);
    assert.deepEqual(
      timeTicks(min, max, 12).map((t) => timeTickLabel(t, step)),
      Array.from({ length: 12 }, (_, k) => `0001-${String(k + 1).padStart(2, "0")}`),
    );
  });
});
