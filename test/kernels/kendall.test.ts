/**
 * The Kendall kernel's loops against their definitions: the sort's count is every pair
 * counted by hand and its result a comparison sort with the stated order of equal keys; an
 * insertion to a cut counts the pairs whose key decreases there; a listing gives the slopes of
 * exactly the pairs that change order between two cuts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { KendallKernel } from "../../src/kernels/kendall.js";

let seed = 7;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;

function checkSort(values: number[], from: number, to: number, strict: boolean): void {
  const k = new KendallKernel(values.length, 0);
  k.key.set(values);
  k.order.set(values.map((_, i) => 100 + i));
  let pairs = 0;
  for (let i = from; i < to; i++) for (let j = i + 1; j < to; j++) if (strict ? values[j] < values[i] : values[j] <= values[i]) pairs++;
  const expected = values
    .slice(from, to)
    .map((v, i) => ({ v, o: 100 + from + i }))
    .sort((a, b) => a.v - b.v || (strict ? a.o - b.o : b.o - a.o));

  assert.equal(k.sortCount(from, to, strict), pairs);
  assert.deepEqual(
    [...k.key.subarray(from, to)],
    expected.map((e) => e.v),
  );
  assert.deepEqual(
    [...k.order.subarray(from, to)],
    expected.map((e) => e.o),
  );
  // Outside the range nothing moves.
  for (let i = 0; i < values.length; i++) if (i < from || i >= to) assert.equal(k.order[i], 100 + i);
}

/** The points (x = 0, 1, 2, ...) in order of their key y − t·x, ties in x order: sorted here, by comparison. */
function orderAt(y: number[], t: number): number[] {
  return y.map((_, i) => i).sort((a, b) => y[a] - t * a - (y[b] - t * b) || a - b);
}

/** A kernel holding the series (x = 0, 1, 2, ...), one season, its order that of cut t0. */
function seriesAt(y: number[], t0: number, candidates = 0): KendallKernel {
  const k = new KendallKernel(y.length, candidates);
  y.forEach((v, i) => {
    k.x[i] = i;
    k.y[i] = v;
  });
  k.segFrom[0] = 0;
  k.segTo[0] = y.length;
  k.order.set(orderAt(y, t0));
  return k;
}

/** The pairs i < j whose key y − t·x decreases from i to j. */
function below(y: number[], t: number): number {
  let count = 0;
  for (let i = 0; i < y.length; i++) for (let j = i + 1; j < y.length; j++) if (y[j] - t * j < y[i] - t * i) count++;
  return count;
}

describe("KendallKernel", () => {
  it("sorts and counts the worked example", () => {
    const k = new KendallKernel(4, 0);
    k.key.set([3, 1, 2, 1]);
    k.order.set([0, 1, 2, 3]);
    assert.equal(k.sortCount(0, 4, true), 4);
    assert.deepEqual([...k.key], [1, 1, 2, 3]);
    assert.deepEqual([...k.order], [1, 3, 2, 0]);
    k.key.set([3, 1, 2, 1]);
    assert.equal(k.sortCount(0, 4, false), 5);
  });

  it("sorts random doubles of both signs, ties, zeros of both signs, sub-ranges, both tie rules", () => {
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(random() * 300);
      const kind = trial % 4;
      const values = Array.from({ length: n }, () => {
        const r = random();
        if (kind === 0) return (r - 0.5) * 1e6; // full mantissas, both signs
        if (kind === 1) return Math.round((r - 0.5) * 10); // many ties
        if (kind === 2) return r < 0.3 ? 0 : r < 0.6 ? -0 : Math.fround(280 + r); // ±0 and float32 data
        return (r < 0.5 ? -1 : 1) * 2 ** Math.floor(r * 2000 - 1000); // extreme magnitudes
      });
      const from = Math.floor(random() * (n / 3));
      const to = n - Math.floor(random() * (n / 3));
      checkSort(values, from, Math.max(from, to), trial % 2 === 0);
    }
  });

  it("sorts a run longer than one digit's buckets, all keys equal, and infinities", () => {
    checkSort(
      Array.from({ length: 3000 }, (_, i) => (i * 7919) % 3001),
      0,
      3000,
      true,
    );
    checkSort(new Array(50).fill(2.5), 0, 50, false);
    checkSort([Infinity, -Infinity, 0, 1, -1, Infinity], 0, 6, true);
  });

  it("sorts a season of up to 64 points by insertion and a longer one by its radix digits, alike on both sides of the cut", () => {
    for (const n of [2, 3, 4, 5, 63, 64, 65, 66]) {
      for (let trial = 0; trial < 8; trial++) {
        const values = Array.from({ length: n }, () => {
          const r = random();
          return trial % 2 === 0 ? Math.round(r * 5) - 2 : r < 0.2 ? (r < 0.1 ? 0 : -0) : Math.fround(280 + 10 * r);
        });
        checkSort(values, 0, n, trial % 4 < 2);
        checkSort([9, 9, ...values, -9], 2, n + 2, trial % 4 >= 2);
      }
    }
  });

  it("counts through the bitset of 64-point words up to 4096 points and the Fenwick tree beyond, at and around word ends", () => {
    for (const n of [63, 64, 65, 127, 129, 4095, 4096, 4097, 5000]) {
      const values = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? Math.round(random() * 20) : Math.fround(280 + 10 * random())));
      checkSort(values, 0, n, n % 2 === 0);
      checkSort(values, 1, n, n % 2 === 1);
    }
  });

  it("sorts keys that differ in all their bits by their top bits and insertion, and keys alike there on every digit", () => {
    // Keys at a cut: y − t·x over float32 y, every mantissa bit in use.
    const y = Array.from({ length: 1461 }, () => Math.fround(280 + 10 * random()));
    checkSort(
      y.map((v, i) => v - 1.7e-4 * i),
      0,
      1461,
      true,
    );
    // One far key, and the rest equal in their top 22 differing bits: insertion would
    // move them ~n²/4 times, so the sort takes every digit instead.
    const clustered = Array.from({ length: 600 }, () => 1 + Math.floor(random() * 2 ** 20) * 2 ** -50);
    checkSort([...clustered, 1e30, ...clustered.map((v) => -v)], 0, 1201, false);
  });

  it("summarizes seasons of odd and even length: ties at their ends and across pairs of points, equal x, and refuses a value not finite or x stepping back anywhere", () => {
    /** The summary by its definition, pair by pair (sxx, sxy and syy only to rounding). */
    const expected = (x: number[], y: number[], seasons: [number, number][]) => {
      let [score, variance, decreasing, tiedPairs, minGapY, sxx, sxy, syy, maxAbsY, maxAbsX, minStepX, maxSpanX] = [
        0,
        0,
        0,
        0,
        Infinity,
        0,
        0,
        0,
        0,
        0,
        Infinity,
        0,
      ];
      let equalXRuns = false;
      for (const [from, to] of seasons) {
        const n = to - from;
        const counts = new Map<number, number>();
        for (let i = from; i < to; i++) {
          counts.set(y[i], (counts.get(y[i]) ?? 0) + 1);
          for (let j = i + 1; j < to; j++) {
            score += Math.sign(y[j] - y[i]);
            if (y[j] < y[i]) decreasing++;
          }
          maxAbsY = Math.max(maxAbsY, Math.abs(y[i]));
          maxAbsX = Math.max(maxAbsX, Math.abs(x[i]));
          if (i > from && x[i] === x[i - 1]) equalXRuns = true;
          if (i > from && x[i] > x[i - 1]) minStepX = Math.min(minStepX, x[i] - x[i - 1]);
        }
        const distinct = [...counts.keys()].sort((a, b) => a - b);
        for (let d = 1; d < distinct.length; d++) minGapY = Math.min(minGapY, distinct[d] - distinct[d - 1]);
        let ties = 0;
        for (const t of counts.values()) {
          tiedPairs += (t * (t - 1)) / 2;
          ties += t * (t - 1) * (2 * t + 5);
        }
        variance += (n * (n - 1) * (2 * n + 5) - ties) / 18;
        const mx = x.slice(from, to).reduce((a, b) => a + b) / n;
        const my = y.slice(from, to).reduce((a, b) => a + b) / n;
        for (let i = from; i < to; i++) {
          sxx += (x[i] - mx) ** 2;
          sxy += (x[i] - mx) * (y[i] - my);
          syy += (y[i] - my) ** 2;
        }
        maxSpanX = Math.max(maxSpanX, x[to - 1] - x[from]);
      }
      return { score, variance, decreasing, tiedPairs, minGapY, sxx, sxy, syy, maxAbsY, maxAbsX, minStepX, maxSpanX, equalXRuns };
    };
    const summarize = (x: number[], y: number[], seasons: [number, number][]) => {
      const k = new KendallKernel(x.length, 0);
      k.x.set(x);
      k.y.set(y);
      seasons.forEach(([from, to], s) => {
        k.segFrom[s] = from;
        k.segTo[s] = to;
      });
      return k.summarize(seasons.length);
    };
    for (let trial = 0; trial < 200; trial++) {
      const n = 4 + Math.floor(random() * 60);
      const y = Array.from({ length: n }, () => (trial % 2 === 0 ? Math.round(random() * 6) - 3 : Math.fround(280 + random())));
      // Runs of equal values at both ends (a season's first and last pairs).
      if (trial % 3 === 0) y[1] = y[0];
      if (trial % 3 === 1) y[n - 1] = y[n - 2] = y[n - 3];
      let v = -5;
      const x = Array.from({ length: n }, () => (v += trial % 4 === 0 && random() < 0.3 ? 0 : 0.5 + Math.floor(random() * 3)));
      const cut = 2 + Math.floor(random() * (n - 3));
      const seasons: [number, number][] =
        trial % 5 === 0
          ? [[0, n]]
          : [
              [0, cut],
              [cut, n],
            ];
      const got = summarize(x, y, seasons);
      const want = expected(x, y, seasons);
      assert.ok(got, `trial ${trial}`);
      const { sxx, sxy, syy, ...exact } = got;
      const { sxx: wantSxx, sxy: wantSxy, syy: wantSyy, ...wantExact } = want;
      assert.deepEqual(exact, wantExact, `trial ${trial}`);
      assert.ok(
        Math.abs(sxx - wantSxx) <= 1e-9 * Math.abs(wantSxx) + 1e-9 &&
          Math.abs(sxy - wantSxy) <= 1e-9 * (Math.abs(wantSxx) + 1) * 300 &&
          Math.abs(syy - wantSyy) <= 1e-9 * (Math.abs(wantSyy) + 1) * 300,
        `trial ${trial}: sums`,
      );
    }
    // A value not finite, or x stepping back, at each place of a pair or the odd one out.
    for (const n of [9, 10]) {
      for (const at of [0, 1, 2, 5, n - 2, n - 1]) {
        const x = Array.from({ length: n }, (_, i) => i);
        const y = Array.from({ length: n }, (_, i) => Math.sin(i));
        const withAt = (values: number[], v: number) => values.map((w, i) => (i === at ? v : w));
        const cases: [string, number[], number[]][] = [];
        for (const bad of [NaN, Infinity, -Infinity]) cases.push([`y ${bad}`, x, withAt(y, bad)], [`x ${bad}`, withAt(x, bad), y]);
        if (at > 0) cases.push(["x stepping back", withAt(x, at - 1.5), y]);
        for (const [what, xs, ys] of cases) assert.equal(summarize(xs, ys, [[0, n]]), null, `n ${n}: ${what} at ${at}`);
      }
    }
  });

  it("estimates an insertion's moves from the pairs that cross ahead of sampled points, all of them when every point is sampled", () => {
    for (let trial = 0; trial < 20; trial++) {
      const n = 50 + Math.floor(random() * 300);
      const y = Array.from({ length: n }, (_, i) => Math.fround(10 + 0.01 * i + 3 * random()));
      const [t0, t1] = [(random() - 0.5) * 0.05, (random() - 0.5) * 0.05];
      const k = seriesAt(y, t0);
      const order = orderAt(y, t0);
      k.order.forEach((p, i) => (k.key[i] = y[p] - t0 * p));
      // By definition: the points after order[r] in t0's order whose key at t1 is below its own.
      const ahead = (r: number) => order.slice(r + 1).filter((q) => y[q] - t1 * q < y[order[r]] - t1 * order[r]).length;
      const reach = Math.abs(t1 - t0) * (n - 1);
      let crossing = 0;
      for (let r = 0; r < n; r++) crossing += ahead(r);
      assert.equal(k.crossingsAhead(t1, reach, 1, n), crossing, `trial ${trial}: every point`);
      // 16 samples at positions ⌊(2s + 1)·n / 32⌋, scaled up by n / 16.
      let sampled = 0;
      for (let s = 0; s < 16; s++) sampled += ahead(Math.floor(((2 * s + 1) * n) / 32));
      assert.equal(k.crossingsAhead(t1, reach, 1, 16), (sampled * n) / 16, `trial ${trial}: 16 samples`);
      // Without ties the crossings are the moves of an insertion to t1.
      assert.equal(k.insertToCut(t1, 1, Infinity, below(y, t0)).moves, crossing, `trial ${trial}: moves`);
    }
  });

  it("inserts from one cut to another, counting the pairs out of x order there, or gives up past its cap", () => {
    for (let trial = 0; trial < 40; trial++) {
      const n = 20 + Math.floor(random() * 200);
      // Every other trial to the cut at 0 over whole-number values: many equal keys there,
      // which keep the order they had (the insertion is stable).
      const ties = trial % 2 === 1;
      const y = Array.from({ length: n }, (_, i) => (ties ? Math.round(5 * random()) : Math.fround(10 + 0.01 * i + 3 * random())));
      const [t0, t1] = [(random() - 0.5) * 0.05, ties ? 0 : (random() - 0.5) * 0.05];
      const k = seriesAt(y, t0);
      const before = orderAt(y, t0);
      // Expected: t0's order sorted stably by the keys at t1, and its pairs out of x order.
      const after = [...before].sort((a, b) => y[a] - t1 * a - (y[b] - t1 * b));
      let outOfOrder = 0;
      for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) if (after[p] > after[q]) outOfOrder++;
      if (!ties) assert.equal(outOfOrder, below(y, t1)); // without ties, the pairs whose key decreases
      const { count, moves } = k.insertToCut(t1, 1, Infinity, below(y, t0));
      assert.equal(count, outOfOrder, `trial ${trial}`);
      assert.deepEqual([...k.order], after, `trial ${trial}`);
      assert.ok(moves >= Math.abs(outOfOrder - below(y, t0)));
    }
    const y = Array.from({ length: 100 }, () => random());
    // A cut's keys: y − t·x, the x order at −∞ and its reverse at +∞; the order reset.
    const keys = seriesAt(y, 0);
    for (const [t, key] of [
      [0.25, (i: number) => y[i] - 0.25 * i],
      [-Infinity, (i: number) => i],
      [Infinity, (i: number) => -i],
    ] as const) {
      // An even and an odd number of points (the keys are made two at a time).
      for (const from of [10, 11]) {
        keys.order.fill(-1);
        keys.resetKeys(t, from, 90);
        for (let i = from; i < 90; i++) assert.equal(keys.key[i], key(i), `key ${i} at ${t}`);
        assert.deepEqual([...keys.order.subarray(from - 1, 91)], [-1, ...Array.from({ length: 90 - from }, (_, i) => from + i), -1]);
      }
    }
    const k = seriesAt(y, -1);
    const { count, moves } = k.insertToCut(1, 1, 10, below(y, -1));
    assert.equal(count, null);
    assert.ok(moves > 10); // checked after each point's insertion
  });

  it("lists the slopes of exactly the pairs between two cuts, as far as they fit, and stops past its limit", () => {
    for (let trial = 0; trial < 40; trial++) {
      const n = 20 + Math.floor(random() * 200);
      const y = Array.from({ length: n }, () => 5 * random());
      const [t0, t1] = [(random() - 0.5) * 0.1, (random() - 0.5) * 0.1];
      const expected: number[] = [];
      for (let i = 0; i < n; i++)
        for (let j = i + 1; j < n; j++) {
          const slope = (y[j] - y[i]) / (j - i);
          if (slope > Math.min(t0, t1) && slope < Math.max(t0, t1)) expected.push(slope);
        }
      const k = seriesAt(y, t0, n * n);
      const count = k.listCrossings(t1, 1, Infinity);
      assert.equal(count, expected.length, `trial ${trial}`);
      assert.deepEqual(
        [...k.candidates.subarray(0, count)].sort((a, b) => a - b),
        expected.sort((a, b) => a - b),
      );
      // Fewer places than slopes: the count is whole, the places hold what fits (7: four
      // pairs go in at once while they fit, one at a time after).
      const small = seriesAt(y, t0, 3);
      assert.equal(small.listCrossings(t1, 1, Infinity), expected.length);
      const seven = seriesAt(y, t0, 7);
      assert.equal(seven.listCrossings(t1, 1, Infinity), expected.length);
      const held = [...seven.candidates.subarray(0, Math.min(7, expected.length))];
      const left = [...expected];
      for (const slope of held) {
        const at = left.indexOf(slope);
        assert.ok(at >= 0, `trial ${trial}: ${slope} listed, not a slope between the cuts`);
        left.splice(at, 1);
      }
      // Past the limit it stops (checked after each point's insertion) and says more than the limit.
      if (expected.length > 3) assert.ok(small.listCrossings(t1, 1, 2) > 2);
    }
  });

  it("takes a listing on to a further cut: the pairs between the first cut and the last, each once, upwards and downwards, with ties", () => {
    for (let trial = 0; trial < 40; trial++) {
      const n = 20 + Math.floor(random() * 200);
      // Half the trials on values of a few levels: pairs of equal slope, some at a cut.
      const y = Array.from({ length: n }, () => (trial % 2 === 0 ? 5 * random() : Math.round(8 * random()) / 4));
      const cuts = [0, 1, 2].map(() => (random() - 0.5) * 0.1).sort((a, b) => a - b);
      const [t0, t1, t2] = trial % 4 < 2 ? cuts : cuts.reverse();
      const between = (lo: number, hi: number) => {
        const slopes: number[] = [];
        for (let i = 0; i < n; i++)
          for (let j = i + 1; j < n; j++) {
            const slope = (y[j] - y[i]) / (j - i);
            if (slope > lo && slope < hi) slopes.push(slope);
          }
        return slopes.sort((a, b) => a - b);
      };
      // Cuts at no pair's slope (a pair at a cut is on one side or the other, by its ties' order).
      const atSlope = [t0, t1, t2].some((t) => between(t - 1e-12, t + 1e-12).length > 0);
      if (atSlope) continue;
      const k = seriesAt(y, t0, n * n);
      const first = k.listCrossings(t1, 1, Infinity);
      const all = k.extendCrossings(t2, 1, Infinity, first);
      const expected = between(Math.min(t0, t2), Math.max(t0, t2));
      assert.equal(all, expected.length, `trial ${trial}`);
      // Listed downwards, a pair of equal y has the slope −0: the same slope.
      const listed = (count: number) => [...k.candidates.subarray(0, count)].map((v) => v + 0).sort((a, b) => a - b);
      assert.deepEqual(listed(all), expected);
      assert.deepEqual(listed(first), between(Math.min(t0, t1), Math.max(t0, t1)));
      // Past the limit (on the count of all) it stops likewise, saying more than the limit.
      const again = seriesAt(y, t0, n * n);
      again.listCrossings(t1, 1, Infinity);
      if (expected.length > first + 1) assert.ok(again.extendCrossings(t2, 1, first + 1, first) > first + 1);
    }
  });

  it("selects ranks and medians: odd, even, duplicates, and long series against a sort", () => {
    const median = (values: number[]) => {
      const k = new KendallKernel(0, values.length);
      k.candidates.set(values);
      return k.medianOfCandidates(values.length);
    };
    assert.equal(median([5, 1, 4]), 4);
    assert.equal(median([5, 1, 4, 2]), 3);
    assert.equal(median([2, 2, 2, 1, 3, 2]), 2);
    assert.ok(Number.isNaN(median([])));
    for (const n of [601, 1000, 5001]) {
      const values = Array.from({ length: n }, () => Math.round(random() * 40) / 4);
      const sorted = [...values].sort((a, b) => a - b);
      const want = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      assert.equal(median(values), want, `n ${n}`);
      const k = new KendallKernel(0, n);
      k.candidates.set(values);
      const low = Math.floor(random() * (n - 1));
      const ranks = k.selectRanks(n, low, low + 1);
      assert.deepEqual(ranks, { lower: sorted[low], upper: sorted[low + 1] }, `ranks ${low}`);
    }
  });

  it("selects any two neighbouring ranks of doubles of both signs, ties, zeros, extreme magnitudes, against a sort", () => {
    for (let trial = 0; trial < 400; trial++) {
      const n = 1 + Math.floor(random() * (trial % 10 === 0 ? 5000 : 400));
      const kind = trial % 5;
      const values = Array.from({ length: n }, () => {
        const r = random();
        if (kind === 0) return (r - 0.5) * 1e-3; // slopes: full mantissas, both signs
        if (kind === 1) return Math.round((r - 0.5) * 6); // many ties
        if (kind === 2) return r < 0.3 ? 0 : r < 0.5 ? -0 : Math.fround(r - 0.7);
        if (kind === 3) return (r < 0.5 ? -1 : 1) * 2 ** Math.floor(r * 2000 - 1000);
        return 7.25; // all equal
      });
      // -0 and 0 are the same slope: compare as numbers.
      const sorted = values.map((v) => v + 0).sort((a, b) => a - b);
      const low = trial % 7 === 0 ? 0 : trial % 7 === 1 ? Math.max(0, n - 2) : Math.floor(random() * Math.max(1, n - 1));
      const high = Math.min(n - 1, low + (trial % 3 === 0 ? 0 : 1));
      const k = new KendallKernel(0, n);
      k.candidates.set(values);
      const { lower, upper } = k.selectRanks(n, low, high);
      assert.ok(lower === sorted[low] && upper === sorted[high], `trial ${trial}: ranks ${low}, ${high} of ${n}: ${lower}, ${upper}`);
    }
  });
});
