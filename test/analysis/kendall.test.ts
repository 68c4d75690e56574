/**
 * Mann-Kendall, Seasonal-Kendall and Sen's slope on series small enough to work by hand
 * (docs/tasks.md formulas), including ties, negative trends, the n < 4 rule, and the same
 * tests through the tile fitter with StdTime seasons.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  kendallScore,
  kendallScratch,
  kendallVariance,
  kendallZ,
  mannKendall,
  pairSlopes,
  seasonalKendall,
} from "../../src/analysis/kendall.js";
import { createTileFitter } from "../../src/analysis/trendFit.js";

const near = (got: number, want: number, rel = 1e-12, what = "") =>
  assert.ok(Math.abs(got - want) <= rel * Math.abs(want) + 1e-15, `${what} got ${got}, want ${want}`);

describe("Mann-Kendall by hand", () => {
  it("x 1..4, y 1 3 2 5: S = 4, Var = 4·3·13/18, Z = 3/√Var, Sen = 7/6", () => {
    const r = mannKendall([1, 2, 3, 4], [1, 3, 2, 5], 4, kendallScratch(4))!;
    // pairs: +2, +1, +4, −1, +2, +3 -> S = 5 − 1; slopes 2, 0.5, 4/3, −1, 1, 3 -> median (1 + 4/3)/2
    assert.equal(r.score, 4);
    near(r.variance, (4 * 3 * 13) / 18);
    near(r.z, 3 / Math.sqrt(26 / 3));
    near(r.pValue, 0.308179547467054, 1e-12, "P"); // math.erfc(Z/√2)
    near(r.sensSlope, 7 / 6);
  });

  it("ties: y 1 1 2 2 2 -> S = 6, Var = (300 − 2·1·9 − 3·2·11)/18 = 12, Sen = (1/4 + 1/3)/2", () => {
    const x = [0, 1, 2, 3, 4];
    const y = [1, 1, 2, 2, 2];
    assert.equal(kendallScore(y, 0, 5), 6);
    assert.equal(kendallVariance(y, 0, 5, new Float64Array(5)), 12);
    const r = mannKendall(x, y, 5, kendallScratch(5))!;
    near(r.z, 5 / Math.sqrt(12));
    near(r.pValue, 0.14891467317876567, 1e-12); // math.erfc(5/√12/√2)
    // slopes: 0, 1/2, 1/3, 1/4, 1, 1/2, 1/3, 0, 0, 0 -> sorted middle pair 1/4, 1/3
    near(r.sensSlope, (1 / 4 + 1 / 3) / 2);
  });

  it("a decreasing series: S < 0 uses (S + 1)/√Var", () => {
    const r = mannKendall([0, 1, 2, 3, 4], [9, 7, 8, 4, 1], 5, kendallScratch(5))!;
    // pairs: 7−9 −, 8−9 −, 4−9 −, 1−9 −, 8−7 +, 4−7 −, 1−7 −, 4−8 −, 1−8 −, 1−4 − -> S = −8
    assert.equal(r.score, -8);
    near(r.variance, (5 * 4 * 15) / 18);
    near(r.z, -7 / Math.sqrt(50 / 3));
    // slopes −2, −0.5, −5/3, −2, 1, −1.5, −2, −4, −3.5, −3 -> sorted middle pair −2, −2
    near(r.sensSlope, -2);
  });

  it("all values tied: S = 0, Var = 0, Z = 0, P = 1, Sen = 0", () => {
    const r = mannKendall([0, 1, 2, 3], [5, 5, 5, 5], 4, kendallScratch(4))!;
    assert.deepEqual({ ...r }, { sensSlope: 0, pValue: 1, score: 0, variance: 0, z: 0 });
  });

  it("fewer than 4 values: no test", () => {
    assert.equal(mannKendall([0, 1, 2], [1, 2, 3], 3, kendallScratch(3)), undefined);
  });

  it("Z with the continuity correction", () => {
    assert.equal(kendallZ(0, 10), 0);
    near(kendallZ(5, 16), 1);
    near(kendallZ(-5, 16), -1);
  });

  it("Sen's slope is per unit of x and skips pairs of equal x", () => {
    const out = new Float64Array(6);
    const count = pairSlopes([0, 10, 10, 30], [0, 1, 2, 6], 0, 4, out, 0);
    assert.equal(count, 5); // the (10, 10) pair is left out
    assert.deepEqual(Array.from(out.subarray(0, 5)), [0.1, 0.2, 0.2, 0.25, 0.2]);
  });
});

describe("Seasonal-Kendall by hand", () => {
  it("season A x 0 10 20 y 1 2 3; season B x 5 15 25 y 5 4 6 -> S 3 + 1, Var 2·66/18, Sen 0.1", () => {
    const x = [0, 10, 20, 5, 15, 25];
    const y = [1, 2, 3, 5, 4, 6];
    const r = seasonalKendall(x, y, [0, 3, 6], 2, kendallScratch(6))!;
    assert.equal(r.score, 4);
    near(r.variance, 132 / 18);
    near(r.z, 3 / Math.sqrt(132 / 18));
    near(r.pValue, 0.26793808403417974, 1e-12); // math.erfc(3/√(22/3)/√2)
    // within-season slopes: 0.1, 0.1, 0.1 | −0.1, 0.05, 0.2 -> median (0.1 + 0.1)/2
    near(r.sensSlope, 0.1);
  });

  it("no season with two values: no test; fewer than 4 values in all: no test", () => {
    assert.equal(seasonalKendall([0, 1, 2, 3], [1, 2, 3, 4], [0, 1, 2, 3, 4], 4, kendallScratch(4)), undefined);
    assert.equal(seasonalKendall([0, 1, 2], [1, 2, 3], [0, 3], 1, kendallScratch(3)), undefined);
  });

  it("through the tile fitter: monthly seasons of StdTime, x in days", () => {
    // Jan and Jul of 2000..2003 (8 slices, stored newest first to check the x order).
    const times = [2003, 2002, 2001, 2000].flatMap((y) => [Date.UTC(y, 6, 1), Date.UTC(y, 0, 1)]);
    const value = (t: number) => {
      const d = new Date(t);
      return d.getUTCMonth() === 0 ? d.getUTCFullYear() - 2000 : 10 - (d.getUTCFullYear() - 2000) * 2; // Jan rises by 1, Jul falls by 2
    };
    const f = createTileFitter({
      model: { type: "SEASONAL-KENDALL", seasonalPeriod: "MONTHS" },
      statistics: { rmse: false, r2: false, slopePValue: false },
      ignoreNoData: true,
      x: times.map((t) => t / 86_400_000),
      times,
    });
    assert.deepEqual(f.bandNames, ["Sens_Slope", "P_Value", "MK_Score", "S_Variance", "Z_Score"]);
    const out = new Float64Array(5);
    f.fitTile(Float64Array.from(times, value), 1, undefined, out);
    // January: S = +6, July: S = −6 -> S = 0, Var = 2·(4·3·13/18), Z = 0, P = 1.
    assert.equal(out[2], 0);
    near(out[3], (2 * 4 * 3 * 13) / 18);
    assert.equal(out[4], 0);
    assert.equal(out[1], 1);
    // Pair slopes per day: Jan +1 per year-step, Jul −2 per year-step; 6 of each -> median
    // between the largest Jul slope and the smallest Jan slope.
    const janSlopes: number[] = [];
    const julSlopes: number[] = [];
    for (const [list, month, perYear] of [
      [janSlopes, 0, 1],
      [julSlopes, 6, -2],
    ] as const) {
      for (let a = 2000; a < 2004; a++)
        for (let b = a + 1; b < 2004; b++) list.push(((b - a) * perYear) / ((Date.UTC(b, month, 1) - Date.UTC(a, month, 1)) / 86_400_000));
    }
    near(out[0], (Math.max(...julSlopes) + Math.min(...janSlopes)) / 2);
  });

  it("through the tile fitter: Mann-Kendall with a nodata slice left out", () => {
    const f = createTileFitter({
      model: { type: "MANN-KENDALL" },
      statistics: { rmse: false, r2: false, slopePValue: false },
      ignoreNoData: true,
      x: [0, 1, 2, 3, 4],
    });
    const out = new Float64Array(5);
    f.fitTile(Float64Array.of(1, NaN, 3, 2, 5), 1, undefined, out);
    const r = mannKendall([0, 2, 3, 4], [1, 3, 2, 5], 4, kendallScratch(4))!;
    assert.deepEqual(Array.from(out), [r.sensSlope, r.pValue, r.score, r.variance, r.z]);
    f.fitTile(Float64Array.of(1, NaN, 3, NaN, 5), 1, undefined, out);
    assert.ok(Array.from(out).every(Number.isNaN), "3 valid values: nodata");
  });
});
