/**
 * Trend numerics worked by hand: exact lines, quadratics and harmonics recover their
 * coefficients in the documented basis; a small noisy line reproduces its textbook RMSE, R2
 * and slope p-value; the polynomial back-conversion; nodata rules; the t and normal
 * distributions against closed forms and table values; the tile shape under the memory budget.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { inverseGramDiagonal, qrFactor, qrSolve } from "../../src/analysis/linalg.js";
import { erfc, incompleteBeta, lnGamma, normalCdf, normalTwoSidedP, tCdf, tTwoSidedP } from "../../src/analysis/statDistributions.js";
import { createTileFitter } from "../../src/analysis/trendFit.js";
import {
  type TrendModel,
  bandNames,
  documentedBasis,
  polynomialToRaw,
  readTrendMetadata,
  seasonOf,
  toDocumentedCoefficients,
} from "../../src/analysis/trendModel.js";
import { trendOutputChunk, trendTileShape } from "../../src/analysis/trendRaster.js";

const ALL = { rmse: true, r2: true, slopePValue: true };
const near = (got: number, want: number, rel = 1e-9, abs = 1e-12, what = "") =>
  assert.ok(Math.abs(got - want) <= rel * Math.abs(want) + abs, `${what} got ${got}, want ${want}`);

/** Fit one pixel whose series is y (one value per slice; NaN = nodata). */
function fitOne(model: TrendModel, x: number[], y: number[], opts: { stats?: typeof ALL; ignoreNoData?: boolean; times?: number[] } = {}) {
  const f = createTileFitter({
    model,
    statistics: opts.stats ?? ALL,
    ignoreNoData: opts.ignoreNoData ?? true,
    x,
    ...(opts.times ? { times: opts.times } : {}),
  });
  const out = new Float64Array(f.bands);
  f.fitTile(Float64Array.from(y), 1, undefined, out);
  return Object.fromEntries(f.bandNames.map((b, i) => [b, out[i]]));
}

const range = (n: number, from = 0, step = 1) => Array.from({ length: n }, (_, i) => from + i * step);

describe("least-squares fits recover exact models", () => {
  it("an exact line: Slope, Intercept, RMSE 0, R2 1, SlopePValue 0 (perfect non-constant fit)", () => {
    const x = range(10, 100);
    const b = fitOne(
      { type: "LINEAR" },
      x,
      x.map((v) => 3 + 2 * v),
    );
    near(b.Slope, 2);
    near(b.Intercept, 3, 1e-9, 1e-9);
    assert.ok(b.RMSE < 1e-12, `RMSE ${b.RMSE}`);
    near(b.R2, 1);
    assert.equal(b.SlopePValue, 0);
  });

  it("a textbook noisy line: x 1..5, y 2 4 5 4 5 -> slope 0.6, intercept 2.2, SSE 2.4, R2 0.6, p 0.12403 (df 3)", () => {
    const b = fitOne({ type: "LINEAR" }, [1, 2, 3, 4, 5], [2, 4, 5, 4, 5]);
    near(b.Slope, 0.6);
    near(b.Intercept, 2.2);
    near(b.RMSE, Math.sqrt(2.4 / 5));
    near(b.R2, 0.6);
    near(b.SlopePValue, 0.1240270626575546, 1e-10); // scipy: 2·t.sf(0.6/√(0.8/10), 3)
  });

  it("an exact quadratic and cubic in days since 1970 (StdTime) come back in the raw basis", () => {
    const times = range(40, Date.UTC(2000, 0, 1), 30 * 86_400_000);
    const x = times.map((t) => t / 86_400_000);
    const q = fitOne(
      { type: "POLYNOMIAL", order: 2 },
      x,
      x.map((v) => 1 - 0.5 * v + 2.5e-4 * v * v),
      { stats: { rmse: true, r2: false, slopePValue: false } },
    );
    near(q.Polynomial_2, 2.5e-4, 1e-8);
    near(q.Polynomial_1, -0.5, 1e-8);
    near(q.Polynomial_0, 1, 1e-6);
    const c = fitOne(
      { type: "POLYNOMIAL", order: 3 },
      range(12, -3),
      range(12, -3).map((v) => 2 - v + 0.5 * v * v - 0.125 * v ** 3),
      {
        stats: { rmse: false, r2: false, slopePValue: false },
      },
    );
    near(c.Polynomial_3, -0.125);
    near(c.Polynomial_2, 0.5);
    near(c.Polynomial_1, -1);
    near(c.Polynomial_0, 2);
  });

  it("an exact two-harmonic series (yearly cycle) recovers slope, intercept and every sin/cos coefficient", () => {
    const L = 365.25;
    const x = range(60, 10_000, 30.5); // days since 1970
    const w = (v: number) => (2 * Math.PI * v) / L;
    const y = x.map((v) => 2 + 0.01 * v + 3 * Math.sin(w(v)) - 1.5 * Math.cos(w(v)) + 0.5 * Math.sin(2 * w(v)) + 0.25 * Math.cos(2 * w(v)));
    const b = fitOne({ type: "HARMONIC", harmonics: 2, cycleLengthDays: L }, x, y);
    near(b.Slope, 0.01, 1e-9);
    near(b.Intercept, 2, 1e-8);
    near(b.Harmonic_sin1, 3, 1e-9);
    near(b.Harmonic_cos1, -1.5, 1e-9);
    near(b.Harmonic_sin2, 0.5, 1e-9);
    near(b.Harmonic_cos2, 0.25, 1e-9);
    near(b.R2, 1);
    assert.equal(b.SlopePValue, 0);
  });

  it("a harmonic whose cycle divides the sampling step is rank deficient: nodata", () => {
    const x = range(30); // whole days, cycle 1 day: sin(2πx) = 0 at every slice
    const b = fitOne(
      { type: "HARMONIC", harmonics: 1, cycleLengthDays: 1 },
      x,
      x.map((v) => v % 3),
    );
    assert.ok(Object.values(b).every(Number.isNaN), JSON.stringify(b));
  });
});

describe("least-squares nodata rules", () => {
  const x = range(6);
  const y = [1, 2, NaN, 4, 5, 6];
  it("ignoreNoData=true fits the valid slices", () => {
    const b = fitOne({ type: "LINEAR" }, x, y);
    near(b.Slope, 1);
    near(b.Intercept, 1, 1e-9, 1e-12);
  });
  it("ignoreNoData=false makes a pixel with any nodata slice nodata in every band", () => {
    const b = fitOne({ type: "LINEAR" }, x, y, { ignoreNoData: false });
    assert.ok(Object.values(b).every(Number.isNaN));
  });
  it("n <= p valid slices is nodata (2 values for a line, 3 for a quadratic)", () => {
    assert.ok(Object.values(fitOne({ type: "LINEAR" }, x, [1, NaN, NaN, NaN, 2, NaN])).every(Number.isNaN));
    const three = [1, NaN, 4, NaN, 2, NaN];
    assert.ok(
      Object.values(fitOne({ type: "POLYNOMIAL", order: 2 }, x, three, { stats: { rmse: true, r2: false, slopePValue: false } })).every(
        Number.isNaN,
      ),
    );
    assert.ok(!Number.isNaN(fitOne({ type: "LINEAR" }, x, three).Slope));
  });
  it("a constant series: slope 0, RMSE 0, R2 and SlopePValue nodata (SST = 0, t = 0/0)", () => {
    const b = fitOne(
      { type: "LINEAR" },
      x,
      x.map(() => 2.5),
    );
    near(b.Slope, 0, 0, 1e-15);
    near(b.Intercept, 2.5);
    assert.ok(b.RMSE < 1e-14);
    assert.ok(Number.isNaN(b.R2));
    assert.ok(Number.isNaN(b.SlopePValue));
  });
  it("the input's nodata value counts as nodata, and the fit is per pixel of a tile", () => {
    const f = createTileFitter({
      model: { type: "LINEAR" },
      statistics: { rmse: false, r2: false, slopePValue: false },
      ignoreNoData: true,
      x: [0, 1, 2, 3],
    });
    // 2 pixels, slice-major: pixel 0 = 0, 1, -99, 3; pixel 1 = 10, 8, 6, 4.
    const data = Float32Array.of(0, 10, 1, 8, -99, 6, 3, 4);
    const out = new Float64Array(4);
    f.fitTile(data, 2, -99, out);
    near(out[0], 1); // Slope of pixel 0
    near(out[1], -2); // Slope of pixel 1
    near(out[2], 0, 0, 1e-12); // Intercept of pixel 0
    near(out[3], 10);
  });
  it("complete pixels (one sweep over the tile) and pixels with gaps (one by one) give the same fit", () => {
    const x = range(50, 1000, 7);
    const series = x.map((v, i) => 3 + 0.02 * v + Math.sin(i) + 0.5 * Math.cos((2 * Math.PI * v) / 365.25));
    const model: TrendModel = { type: "HARMONIC", harmonics: 1, cycleLengthDays: 365.25 };
    // Tile of 3 pixels: the series complete; the series plus an extra nodata slice; a constant.
    const xx = [...x, 5000];
    const f = createTileFitter({ model, statistics: ALL, ignoreNoData: true, x: xx });
    const data = new Float64Array(xx.length * 3);
    xx.forEach((_, k) => {
      data[k * 3] = k < x.length ? series[k] : 0;
      data[k * 3 + 1] = k < x.length ? series[k] : NaN;
      data[k * 3 + 2] = 1.5;
    });
    const out = new Float64Array(f.bands * 3);
    f.fitTile(data, 3, undefined, out);
    const alone = fitOne(model, x, series);
    f.bandNames.forEach((b, i) => near(out[i * 3 + 1], alone[b], 1e-9, 1e-12, `${b} (with a gap)`));
    assert.ok(Math.abs(out[0] - alone.Slope) > 1e-6, "the complete pixel includes the slice at 5000");
    const constant = fitOne(
      model,
      xx,
      xx.map(() => 1.5),
    );
    f.bandNames.forEach((b, i) => assert.ok(Object.is(out[i * 3 + 2], constant[b]) || Math.abs(out[i * 3 + 2] - constant[b]) < 1e-12, b));
  });

  it("slices are used in order of x whatever their storage order", () => {
    const b = fitOne({ type: "MANN-KENDALL" }, [3, 0, 2, 1], [4, 1, 3, 2]);
    assert.equal(b.MK_Score, 6);
    near(b.Sens_Slope, 1);
  });
});

describe("basis conversion", () => {
  it("polynomial: 1 + 2(x−10)/5 + 3((x−10)/5)² = 9 − 2x + 0.12x²", () => {
    const b = polynomialToRaw([1, 2, 3], 2, 10, 5);
    near(b[0], 9);
    near(b[1], -2);
    near(b[2], 0.12);
    const out = new Float64Array(3);
    toDocumentedCoefficients({ type: "POLYNOMIAL", order: 2 }, [1, 2, 3], 10, 5, out);
    assert.deepEqual(Array.from(out), [b[2], b[1], b[0]]); // Polynomial_2, _1, _0
  });
  it("polynomial conversion agrees with evaluating the centred polynomial (order 5)", () => {
    const a = [0.3, -1.2, 0.7, 2.1, -0.4, 0.05];
    const [c, h] = [7300, 1800];
    const b = polynomialToRaw(a, 5, c, h);
    for (const x of [5500, 7300, 9100, 12000]) {
      const centred = a.reduce((s, ak, k) => s + ak * ((x - c) / h) ** k, 0);
      const raw = b.reduce((s, bk, k) => s + bk * x ** k, 0);
      near(raw, centred, 1e-6, 1e-6, `x ${x}`);
    }
  });
  it("linear and harmonic: Slope = a1/h, Intercept = a0 − a1·c/h, harmonics unchanged", () => {
    const out = new Float64Array(4);
    toDocumentedCoefficients({ type: "HARMONIC", harmonics: 1, cycleLengthDays: 365.25 }, [1, 2, 0.5, -0.25], 10, 5, out);
    assert.deepEqual(Array.from(out), [0.4, -3, 0.5, -0.25]);
  });
  it("the documented basis evaluates the stored bands", () => {
    const basis = new Float64Array(4);
    documentedBasis({ type: "POLYNOMIAL", order: 3 }, 2, basis);
    assert.deepEqual(Array.from(basis), [8, 4, 2, 1]);
    documentedBasis({ type: "HARMONIC", harmonics: 1, cycleLengthDays: 8 }, 2, basis);
    near(basis[2], 1);
    near(basis[3], 0, 0, 1e-15);
    assert.deepEqual([basis[0], basis[1]], [2, 1]);
  });
  it("band names follow docs/tasks.md", () => {
    assert.deepEqual(bandNames({ type: "LINEAR" }, ALL), ["Slope", "Intercept", "RMSE", "R2", "SlopePValue"]);
    assert.deepEqual(bandNames({ type: "POLYNOMIAL", order: 3 }, { rmse: false, r2: true, slopePValue: false }), [
      "Polynomial_3",
      "Polynomial_2",
      "Polynomial_1",
      "Polynomial_0",
      "R2",
    ]);
    assert.deepEqual(bandNames({ type: "HARMONIC", harmonics: 2, cycleLengthDays: 1 }, { rmse: false, r2: false, slopePValue: false }), [
      "Slope",
      "Intercept",
      "Harmonic_sin1",
      "Harmonic_cos1",
      "Harmonic_sin2",
      "Harmonic_cos2",
    ]);
    assert.deepEqual(bandNames({ type: "SEASONAL-KENDALL" }, ALL), ["Sens_Slope", "P_Value", "MK_Score", "S_Variance", "Z_Score"]);
  });
  it("seasons: day of year counts Feb 29 in leap years (year 0 included), months 1..12", () => {
    assert.equal(seasonOf(Date.UTC(2019, 2, 1), "DAYS"), 60);
    assert.equal(seasonOf(Date.UTC(2020, 2, 1), "DAYS"), 61);
    assert.equal(seasonOf(Date.UTC(2020, 11, 31, 23), "DAYS"), 366);
    const year0March1 = new Date(0);
    year0March1.setUTCFullYear(0, 2, 1);
    assert.equal(seasonOf(year0March1.getTime(), "DAYS"), 61);
    assert.equal(seasonOf(Date.UTC(1999, 11, 15), "MONTHS"), 12);
  });
  it("readTrendMetadata refuses what is not a trend", () => {
    assert.match(String(readTrendMetadata({})), /no strata:trend/);
    assert.match(String(readTrendMetadata({ "strata:trend": { model: "CUBIC" } })), /model/);
    const ok = readTrendMetadata({
      "strata:trend": { dimension: "StdTime", model: "LINEAR", bands: ["Slope", "Intercept", "RMSE"], xCenter: 1, xScale: 2 },
    });
    assert.ok(typeof ok !== "string" && ok.xScale === 2 && ok.xEncoding === "days since 1970-01-01T00:00:00Z");
    assert.match(
      String(readTrendMetadata({ "strata:trend": { dimension: "StdTime", model: "LINEAR", bands: ["Intercept", "Slope"] } })),
      /bands/,
    );
  });
});

describe("Householder QR", () => {
  it("solves a small least-squares problem and gives (AᵀA)⁻¹ diagonals", () => {
    // Columns [1,1,1,1] and [0,1,2,3]; y = 1 + 2x exactly.
    const qr = qrFactor(Float64Array.of(1, 1, 1, 1, 0, 1, 2, 3), 4, 2);
    assert.ok(qr.fullRank);
    const coef = new Float64Array(2);
    qrSolve(qr, Float64Array.of(1, 3, 5, 7), coef);
    near(coef[0], 1);
    near(coef[1], 2);
    // AᵀA = [[4, 6], [6, 14]], inverse diagonal = [14/20, 4/20].
    near(inverseGramDiagonal(qr, 0), 0.7);
    near(inverseGramDiagonal(qr, 1), 0.2);
  });
  it("flags a rank-deficient matrix", () => {
    assert.equal(qrFactor(Float64Array.of(1, 1, 1, 2, 2, 2), 3, 2).fullRank, false);
  });
});

describe("distributions", () => {
  it("Student t, two-sided: table value t = 2.228, df = 10 -> p = 0.05", () => {
    near(tTwoSidedP(2.228138851986, 10), 0.05, 1e-9);
    near(tTwoSidedP(2.228, 10), 0.05001177181711132, 1e-9);
    near(tTwoSidedP(12.706204736174698, 1), 0.05, 1e-9);
  });
  it("Student t against closed forms: df 1 (Cauchy) and df 2", () => {
    for (const t of [0.1, 1, 3, 40]) {
      near(tTwoSidedP(t, 1), 1 - (2 / Math.PI) * Math.atan(t), 1e-10, 1e-15, `df 1 t ${t}`);
      near(tTwoSidedP(t, 2), 1 - t / Math.sqrt(t * t + 2), 1e-10, 1e-15, `df 2 t ${t}`);
    }
    assert.equal(tTwoSidedP(0, 7), 1);
    assert.equal(tTwoSidedP(Infinity, 7), 0);
    near(tCdf(-2.228138851986, 10), 0.025, 1e-9);
    near(tCdf(2.228138851986, 10), 0.975, 1e-9);
  });
  it("Student t with huge df tends to the normal", () => {
    near(tTwoSidedP(1.6448536269514722, 1e7), 0.10000003143098118, 1e-11);
    near(tTwoSidedP(3, 1e5), 0.0027004608840647234, 1e-11); // scipy
  });
  it("incomplete beta and ln Γ", () => {
    near(incompleteBeta(2, 3, 0.4), 0.5248, 1e-12); // 1 − Σ_{k<2} C(4,k)0.4^k 0.6^(4−k)
    near(incompleteBeta(1, 1, 0.3), 0.3, 1e-12);
    near(lnGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-14);
    near(lnGamma(10), Math.log(362880), 1e-14);
  });
  it("erfc and the normal CDF to 1e-12 relative (values from Python's math.erfc / scipy)", () => {
    const table: [number, number][] = [
      [0.3, 0.6713732405408726],
      [1.2, 0.08968602177036465],
      [1.25, 0.07709987174354177],
      [2.5, 0.0004069520174449589],
      [5, 1.5374597944280351e-12],
      [10, 2.088487583762545e-45],
      [-1.5, 1.9661051464753108],
    ];
    for (const [x, want] of table) near(erfc(x), want, 1e-12, 0, `erfc(${x})`);
    near(normalCdf(-1), 0.15865525393145707, 1e-12);
    near(normalCdf(-10), 7.61985302416047e-24, 1e-12);
    near(normalCdf(1.959963984540054), 0.975, 1e-12);
    near(normalCdf(3), 0.9986501019683699, 1e-12);
    assert.equal(normalCdf(0), 0.5);
    near(normalTwoSidedP(-1.959963984540054), 0.05, 1e-12);
  });
});

describe("tiles under the memory budget", () => {
  it("a small cube is one tile", () => {
    assert.deepEqual(trendTileShape(132, 5, { x: 0, y: 0, width: 144, height: 73 }, [1, 73, 144]), { height: 73, width: 144 });
  });
  it("slices stored whole: full-width strips, as many rows as the budget allows", () => {
    const t = trendTileShape(1461, 3, { x: 0, y: 0, width: 1440, height: 720 }, [1, 720, 1440]);
    assert.equal(t.width, 1440);
    assert.ok(t.height >= 2 && t.height * t.width * (1461 + 2 * 3 + 8) * 8 <= 48 * 1024 * 1024, JSON.stringify(t));
    const few = trendTileShape(4, 3, { x: 0, y: 0, width: 4000, height: 4000 }, [1, 4000, 4000]);
    // 48 MiB / 8·(4 + 2·3 + 8) bytes a pixel = 87 rows, down to a multiple of 16 (overview levels)
    assert.deepEqual(few, { height: 80, width: 4000 });
    assert.deepEqual(trendOutputChunk(few), [80, 512]);
  });
  it("chunked inputs: rectangles of whole chunks; tiles beyond 512 are whole output chunks", () => {
    const t = trendTileShape(100, 3, { x: 0, y: 0, width: 4000, height: 4000 }, [1, 100, 100]);
    assert.deepEqual(t, { height: 200, width: 200 });
    const big = trendTileShape(2, 3, { x: 0, y: 0, width: 4000, height: 4000 }, [1, 64, 64]);
    assert.ok(big.height % 512 === 0 && big.width % 512 === 0, JSON.stringify(big));
    assert.deepEqual(trendOutputChunk(big), [512, 512]);
  });
  it("a series too long for one row: squares", () => {
    const t = trendTileShape(1_000_000, 3, { x: 0, y: 0, width: 1440, height: 720 }, [1, 720, 1440]);
    assert.deepEqual(t, { height: 3, width: 2 }); // 6 pixels of 8 MB each
  });
});
