/**
 * The O(n log n) Mann-Kendall / Seasonal-Kendall path against a brute-force reference written
 * here (every pair; slopes sorted; median as the mean of the two middle ones): S, Var(S) and
 * Sen's slope must be the same doubles, on random series long enough to take that path, with
 * ties in y, runs of equal x, many zero slopes, an exactly linear series and large x.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { kendallScratch, mannKendall, seasonalKendall } from "../../src/analysis/kendall.js";

function reference(x: ArrayLike<number>, y: ArrayLike<number>, starts: readonly number[]) {
  let score = 0;
  let variance = 0;
  const slopes: number[] = [];
  for (let g = 0; g + 1 < starts.length; g++) {
    const from = starts[g];
    const to = starts[g + 1];
    if (to - from < 2) continue;
    for (let i = from; i < to; i++)
      for (let j = i + 1; j < to; j++) {
        score += Math.sign(y[j] - y[i]);
        if (x[j] !== x[i]) slopes.push((y[j] - y[i]) / (x[j] - x[i]));
      }
    const counts = new Map<number, number>();
    for (let i = from; i < to; i++) counts.set(y[i], (counts.get(y[i]) ?? 0) + 1);
    let ties = 0;
    for (const t of counts.values()) ties += t * (t - 1) * (2 * t + 5);
    const n = to - from;
    variance += (n * (n - 1) * (2 * n + 5) - ties) / 18;
  }
  slopes.sort((a, b) => a - b);
  const k = slopes.length >> 1;
  const sensSlope = slopes.length === 0 ? NaN : slopes.length % 2 ? slopes[k] : (slopes[k - 1] + slopes[k]) / 2;
  return { score, variance, sensSlope };
}

let seed = 20240611;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;

/** A series of one of several kinds: noise and trend, rounded, mostly zero, two values, linear. */
function series(n: number, kind: number, x: Float64Array): Float64Array {
  const trend = (random() - 0.5) * 0.02;
  return Float64Array.from({ length: n }, (_, i) => {
    const t = x[i] - x[0];
    switch (kind) {
      case 0:
        return 10 + trend * t + random() * 3;
      case 1:
        return Math.round((10 + trend * t + random() * 3) * 10) / 10;
      case 2:
        return random() < 0.6 ? 0 : Math.round(random() * 50) / 10;
      case 3:
        return random() < 0.5 ? 1 : 2;
      case 4:
        return 3 - 0.25 * i;
      default:
        return -Math.round(random() * 4) - trend * t;
    }
  });
}

/** x increasing by 1-3, or with runs of equal x, or epoch milliseconds. */
function xs(n: number, kind: number): Float64Array {
  const x = new Float64Array(n);
  let v = kind === 2 ? 1.7e12 : 10957;
  for (let i = 0; i < n; i++) {
    x[i] = v;
    if (kind === 0) v += 1;
    else if (kind === 1) v += random() < 0.3 ? 0 : 1 + Math.floor(random() * 3);
    else v += 86_400_000;
  }
  return x;
}

function check(got: ReturnType<typeof mannKendall>, want: ReturnType<typeof reference>, what: string) {
  assert.ok(got, what);
  assert.equal(got.score, want.score, `${what} S`);
  assert.equal(got.variance, want.variance, `${what} Var`);
  assert.ok(Object.is(got.sensSlope, want.sensSlope), `${what} Sen's slope ${got.sensSlope} != ${want.sensSlope}`);
}

describe("Kendall fast path against brute force", () => {
  it("Mann-Kendall: random series, n 2..400", () => {
    const scratch = kendallScratch(400);
    for (let trial = 0; trial < 400; trial++) {
      const n = trial < 20 ? 2 + trial : 2 + Math.floor(random() * 399);
      const xKind = trial % 3;
      const yKind = Math.floor(trial / 3) % 6;
      const x = xs(n, xKind);
      const y = series(n, yKind, x);
      const got = mannKendall(x, y, n, scratch);
      if (n < 4) assert.equal(got, undefined);
      else check(got, reference(x, y, [0, n]), `trial ${trial} n ${n} x ${xKind} y ${yKind}`);
    }
  });

  it("Seasonal-Kendall: random seasons, some with equal x, pooled slopes", () => {
    const scratch = kendallScratch(12 * 120);
    for (let trial = 0; trial < 150; trial++) {
      const seasons = 1 + Math.floor(random() * 12);
      const starts = [0];
      const x: number[] = [];
      const y: number[] = [];
      for (let g = 0; g < seasons; g++) {
        const size = Math.floor(random() * 120);
        const sx = xs(size, trial % 3);
        const sy = series(size, (trial + g) % 6, sx);
        x.push(...sx);
        y.push(...sy);
        starts.push(x.length);
      }
      const got = seasonalKendall(x, y, starts, seasons, scratch);
      const want = reference(x, y, starts);
      if (x.length < 4 || starts.every((s, g) => g === 0 || s - starts[g - 1] < 2)) assert.equal(got, undefined);
      else check(got, want, `trial ${trial} seasons ${seasons} n ${x.length}`);
    }
  });

  it("Seasonal-Kendall by day of year: 366 seasons of 1-5 points (a daily cube's DAYS seasons, each sorted by insertion)", () => {
    const scratch = kendallScratch(366 * 5);
    for (let trial = 0; trial < 12; trial++) {
      const starts = [0];
      const x: number[] = [];
      const y: number[] = [];
      for (let g = 0; g < 366; g++) {
        // Years of one calendar day, 365 days apart; day 366 (Feb 29) in one year of four.
        const size = g === 365 ? 1 : 3 + Math.floor(random() * 3);
        for (let k = 0; k < size; k++) x.push(g + 365 * k);
        y.push(...series(size, trial % 6, Float64Array.from(x.slice(-size))));
        starts.push(x.length);
      }
      check(seasonalKendall(x, y, starts, 366, scratch), reference(x, y, starts), `trial ${trial}`);
    }
  });

  it("first cuts far from the median: outliers that pull the least-squares slope away or across 0, steep trends, cycles", () => {
    // The first cut is at the least-squares slope: these put it thousands of pairs from the
    // median, on the other side of 0, or every slope on one side of it.
    const scratch = kendallScratch(900);
    for (let trial = 0; trial < 60; trial++) {
      const n = 300 + Math.floor(random() * 600);
      const x = xs(n, trial % 2);
      const kind = trial % 5;
      const y = Float64Array.from({ length: n }, (_, i) => {
        const noise = random() * 2;
        if (kind === 0) return noise + (i > n - 6 ? 1e4 : 0); // a few huge values at the end
        if (kind === 1) return 0.002 * i + noise + (i < 5 ? 500 : 0); // rising, outliers first: OLS < 0
        if (kind === 2) return 40 * i + noise; // every slope positive
        if (kind === 3) return -3 * i + Math.round(noise); // every slope negative, ties
        return 10 * Math.sin(i / 29) + noise; // a cycle, median near 0
      });
      check(mannKendall(x, y, n, scratch), reference(x, y, [0, n]), `trial ${trial} kind ${kind} n ${n}`);
    }
  });

  it("trends that outweigh the noise: a first cut too far for insertion, a bracket narrowed from a guessed density; float32 lines tied at the median", () => {
    // The cut at the least-squares slope is sorted, not reached from 0 by insertion, so the
    // bracket's density is a floor; slopes crowd around the pivot and the bracket is narrowed.
    // Weak trends between them: a density must not carry over from one series to the next.
    const scratch = kendallScratch(900);
    for (let trial = 0; trial < 40; trial++) {
      const n = 600 + Math.floor(random() * 300);
      const x = xs(n, trial % 3 === 2 ? 1 : 0);
      const kind = trial % 4;
      const c = random();
      const y = Float64Array.from({ length: n }, (_, i) => {
        const t = x[i] - x[0];
        if (kind === 0) return t + 1e-3 * random(); // a line with tiny noise
        if (kind === 1) return 0.05 * t + 10 * random(); // a strong trend
        if (kind === 2) return Math.fround(t + c); // float32 rounding: slopes of exactly 1 in runs
        return 10 * random() + 0.001 * t; // a weak trend
      });
      check(mannKendall(x, y, n, scratch), reference(x, y, [0, n]), `trial ${trial} kind ${kind} n ${n}`);
    }
  });

  it("all values equal, and one long season of a cube's length", () => {
    const n = 1461;
    const x = xs(n, 0);
    const flat = new Float64Array(n).fill(7);
    check(mannKendall(x, flat, n, kendallScratch(n)), reference(x, flat, [0, n]), "flat");
    const y = series(n, 0, x);
    check(mannKendall(x, y, n, kendallScratch(n)), reference(x, y, [0, n]), "n 1461");
  });
});
