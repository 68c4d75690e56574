/**
 * Tests of src/analysis/groups.ts and the anomaly kernel of src/analysis/anomaly.ts.
 * Every expected value is worked by hand from docs/tasks.md (or, for the long medians, by a
 * sort written here), never by the module itself.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ANOMALY_METHODS, type AnomalyMethod, anomalyTile, medianOf } from "../../src/analysis/anomaly.js";
import { dayOfYear, groupKeys } from "../../src/analysis/groups.js";
import { timeTileEdge, wholeChunkTile, windowTiles } from "../../src/analysis/tiles.js";

const utc = (y: number, m: number, d: number, h = 0, min = 0, s = 0, ms = 0) => Date.UTC(y, m - 1, d, h, min, s, ms);
const list = (a: ArrayLike<number>) => Array.from(a);

/** Equal as float32 (or float64) values; NaN matches NaN only. */
function near(got: ArrayLike<number>, want: readonly number[], what = "", tol = 1e-6): void {
  assert.equal(got.length, want.length, `${what} length`);
  for (let i = 0; i < want.length; i++) {
    const g = got[i];
    const w = want[i];
    if (Number.isNaN(w)) assert.ok(Number.isNaN(g), `${what}[${i}]: expected NaN, got ${g}`);
    else assert.ok(Math.abs(g - w) <= tol * Math.max(1, Math.abs(w)), `${what}[${i}]: expected ${w}, got ${g}`);
  }
}

describe("groupKeys", () => {
  it("ALL is one group", () => {
    assert.deepEqual(list(groupKeys([utc(1990, 1, 1), utc(2000, 6, 1), utc(1950, 3, 3)], "ALL")), [0, 0, 0]);
  });

  it("YEARLY numbers the years in increasing order, before 1970 and before year 100 too", () => {
    const year50 = new Date(0).setUTCFullYear(50, 5, 1);
    const times = [utc(1990, 1, 1), utc(1990, 12, 31, 23, 59, 59, 999), utc(1991, 1, 1), utc(1969, 12, 31, 23, 59, 59, 999), year50];
    assert.deepEqual(list(groupKeys(times, "YEARLY")), [2, 2, 3, 1, 0]);
    // The last millisecond of 1969 (fractional) stays in 1969.
    assert.deepEqual(list(groupKeys([-0.5, 0], "YEARLY")), [0, 1]);
  });

  it("RECURRING_MONTHLY groups a month across years", () => {
    const times = [utc(1990, 1, 15), utc(1990, 2, 15), utc(1991, 1, 1), utc(1991, 12, 31), utc(1992, 2, 29)];
    assert.deepEqual(list(groupKeys(times, "RECURRING_MONTHLY")), [0, 1, 0, 2, 1]);
  });

  it("RECURRING_WEEKLY: days 1-7 are week 1, days 358-366 fold into week 52", () => {
    const times = [
      utc(2021, 1, 1), // day 1: week 1
      utc(2021, 1, 7), // day 7: week 1
      utc(2021, 1, 8), // day 8: week 2
      utc(2021, 12, 23), // day 357: week 51
      utc(2021, 12, 24), // day 358: week 52
      utc(2021, 12, 31), // day 365: would be 53, folds into 52
      utc(2020, 12, 31), // day 366 of a leap year: 52
      utc(2020, 12, 22), // day 357 of a leap year: 51
      utc(2020, 12, 23), // day 358 of a leap year: 52
    ];
    // raw weeks 1, 1, 2, 51, 52, 52, 52, 51, 52 -> dense 0, 0, 1, 2, 3, 3, 3, 2, 3
    assert.deepEqual(list(groupKeys(times, "RECURRING_WEEKLY")), [0, 0, 1, 2, 3, 3, 3, 2, 3]);
  });

  it("day of year: Feb 29 is day 60 of a leap year, March 1 day 61", () => {
    assert.equal(dayOfYear(utc(2020, 2, 29, 18)), 60);
    assert.equal(dayOfYear(utc(2020, 3, 1)), 61);
    assert.equal(dayOfYear(utc(2019, 3, 1)), 60);
    assert.equal(dayOfYear(utc(2019, 12, 31, 23)), 365);
    assert.equal(dayOfYear(utc(2020, 12, 31)), 366);
  });

  it("RECURRING_DAILY is the calendar day: Feb 29 its own group, March 1 one group in leap and common years", () => {
    const times = [
      utc(2019, 2, 28), // Feb 28
      utc(2020, 2, 28, 12), // Feb 28
      utc(2020, 2, 29), // Feb 29, alone
      utc(2020, 3, 1), // Mar 1 (day 61)
      utc(2021, 3, 1), // Mar 1 (day 60)
      utc(2020, 12, 31), // Dec 31 (day 366)
      utc(2019, 12, 31), // Dec 31 (day 365)
      utc(2019, 1, 1),
    ];
    // keys Feb 28, Feb 28, Feb 29, Mar 1, Mar 1, Dec 31, Dec 31, Jan 1 -> calendar order Jan 1 (0), Feb 28 (1), Feb 29 (2), Mar 1 (3), Dec 31 (4)
    assert.deepEqual(list(groupKeys(times, "RECURRING_DAILY")), [1, 1, 2, 3, 3, 4, 4, 0]);
    // A daily series over 2019-2021 has 366 groups.
    const days = Array.from({ length: 1096 }, (_, i) => utc(2019, 1, 1) + i * 86_400_000);
    assert.equal(Math.max(...groupKeys(days, "RECURRING_DAILY")) + 1, 366);
  });

  it("HOURLY: each clock hour of each day is its own group", () => {
    const times = [
      utc(2020, 1, 1, 0),
      utc(2020, 1, 1, 0, 30),
      utc(2020, 1, 1, 0, 59, 59, 999),
      utc(2020, 1, 1, 1),
      utc(2020, 1, 2, 0), // same hour, another day
      utc(2021, 1, 1, 0), // same day and hour, another year
      utc(1969, 12, 31, 23, 30),
    ];
    assert.deepEqual(list(groupKeys(times, "HOURLY")), [1, 1, 1, 2, 3, 4, 0]);
  });

  it("refuses a non-finite time", () => {
    assert.throws(() => groupKeys([NaN], "YEARLY"), RangeError);
  });
});

const opts = (method: AnomalyMethod, groups: number[], ignoreNoData = true, more: { nodata?: number; reference?: number[] } = {}) => ({
  method,
  groups: Int32Array.from(groups),
  ignoreNoData,
  ...(more.nodata !== undefined ? { nodata: more.nodata } : {}),
  ...(more.reference ? { reference: Float64Array.from(more.reference) } : {}),
});

describe("anomalyTile", () => {
  it("the worked example of docs/tasks.md: January 1.0 and 3.0 → -1, +1", () => {
    near(anomalyTile(Float32Array.of(1, 3), opts("DIFFERENCE_FROM_MEAN", [0, 0])), [-1, 1]);
  });

  // Time-major [T=4][P=2]; groups {0, 1} and {2, 3}. Pixel 1 misses slice 3.
  const tile = Float32Array.of(1, 10, 3, 20, 5, 30, 7, NaN);
  const groups = [0, 0, 1, 1];

  it("DIFFERENCE_FROM_MEAN per group and pixel; ignoreNoData both ways", () => {
    // µ: group 0 (2, 15), group 1 (6, 30 from the one valid value).
    near(anomalyTile(tile, opts("DIFFERENCE_FROM_MEAN", groups, true)), [-1, -5, 1, 5, -1, 0, 1, NaN]);
    // ignoreNoData=false: pixel 1 is nodata in the whole of group 1.
    near(anomalyTile(tile, opts("DIFFERENCE_FROM_MEAN", groups, false)), [-1, -5, 1, 5, -1, NaN, 1, NaN]);
  });

  it("computes in place (out = values) the anomalies of their definitions, every method, groups interleaved", () => {
    // Slices of groups 0, 1, 0, 1, 0: a group's later slices are read after another group's were written.
    const values = Float32Array.of(1, 10, 4, 2, 3, 20, 8, 6, 5, NaN, 6, 9, 2, 30, 1, 4, 9, 11, 7, 3);
    const interleaved = [0, 1, 0, 1, 0];
    const P = 4;
    /** The anomalies by SPEC §7's definitions: µ or m and s of each group's valid values, NaN where void or not finite. */
    const byDefinition = (method: AnomalyMethod, ignore: boolean, reference?: number[]) =>
      Array.from(values, (x, i) => {
        const [t, p] = [Math.floor(i / P), i % P];
        const all = interleaved.flatMap((g, k) => (g === interleaved[t] ? [values[k * P + p]] : []));
        const valid = all.filter((y) => y === y).sort((a, b) => a - b);
        const n = valid.length;
        const mean = valid.reduce((a, b) => a + b, 0) / n;
        const centre = reference
          ? reference[p]
          : n === 0 || (n < all.length && !ignore)
            ? NaN
            : method.includes("MEDIAN")
              ? n % 2
                ? valid[n >> 1]
                : (valid[n / 2 - 1] + valid[n / 2]) / 2
              : mean;
        const s = Math.sqrt(valid.reduce((a, y) => a + (y - mean) * (y - mean), 0) / n);
        const v = method.startsWith("DIFFERENCE")
          ? x - centre
          : method.startsWith("PERCENT_DIFFERENCE")
            ? Math.abs(x - centre) / ((x + centre) / 2)
            : method.startsWith("PERCENT_OF")
              ? x / centre
              : (x - centre) / s;
        return Number.isFinite(v) ? v : NaN;
      });
    for (const method of ANOMALY_METHODS) {
      for (const ignore of [true, false]) {
        const inPlace = values.slice();
        assert.equal(anomalyTile(inPlace, { ...opts(method, interleaved, ignore), out: inPlace }), inPlace);
        near(inPlace, byDefinition(method, ignore), `${method} ignoreNoData ${ignore}`);
      }
    }
    const reference = [2, 2, 2, 2];
    const inPlace = values.slice();
    anomalyTile(inPlace, { ...opts("DIFFERENCE_FROM_MEAN", interleaved, true, { reference }), out: inPlace });
    near(inPlace, byDefinition("DIFFERENCE_FROM_MEAN", true, reference), "reference");
  });

  it("PERCENT_DIFFERENCE_FROM_MEAN is abs(x − µ) / ((x + µ) / 2), a plain ratio", () => {
    near(anomalyTile(tile, opts("PERCENT_DIFFERENCE_FROM_MEAN", groups)), [1 / 1.5, 5 / 12.5, 1 / 2.5, 5 / 17.5, 1 / 5.5, 0, 1 / 6.5, NaN]);
  });

  it("PERCENT_OF_MEAN is x / µ", () => {
    near(anomalyTile(tile, opts("PERCENT_OF_MEAN", groups)), [0.5, 10 / 15, 1.5, 20 / 15, 5 / 6, 1, 7 / 6, NaN]);
  });

  it("Z_SCORE uses the population standard deviation", () => {
    // Pixel 0 group 0: µ 2, s 1; pixel 1: µ 15, s 5; group 1 pixel 0: µ 6, s 1; pixel 1: one value, s = 0 → nodata.
    near(anomalyTile(tile, opts("Z_SCORE", groups)), [-1, -1, 1, 1, -1, NaN, 1, NaN]);
    // 1, 2, 3, 6: µ 3, s = sqrt((4 + 1 + 0 + 9) / 4) = sqrt(3.5).
    const s = Math.sqrt(3.5);
    near(anomalyTile(Float64Array.of(1, 2, 3, 6), opts("Z_SCORE", [0, 0, 0, 0])), [-2 / s, -1 / s, 0, 3 / s], "", 1e-12);
  });

  it("s = 0 (a constant series) is nodata for Z_SCORE and an exact zero difference", () => {
    const constant = Float32Array.of(0.1, 0.1, 0.1, 0.1, 0.1);
    near(anomalyTile(constant, opts("Z_SCORE", [0, 0, 0, 0, 0])), [NaN, NaN, NaN, NaN, NaN]);
    assert.deepEqual(list(anomalyTile(constant, opts("DIFFERENCE_FROM_MEAN", [0, 0, 0, 0, 0]))), [0, 0, 0, 0, 0]);
    near(anomalyTile(constant, opts("PERCENT_OF_MEAN", [0, 0, 0, 0, 0])), [1, 1, 1, 1, 1], "", 0);
  });

  it("R = 0 and x + R = 0 are nodata, never Infinity", () => {
    // -2, 0, 2: µ = 0.
    const v = Float32Array.of(-2, 0, 2);
    near(anomalyTile(v, opts("PERCENT_OF_MEAN", [0, 0, 0])), [NaN, NaN, NaN]);
    // |x − 0| / (x / 2): -2 → 2 / -1 = -2; 0 → 0/0 nodata; 2 → 2.
    near(anomalyTile(v, opts("PERCENT_DIFFERENCE_FROM_MEAN", [0, 0, 0])), [-2, NaN, 2]);
    // Median 0 alike.
    near(anomalyTile(v, opts("PERCENT_OF_MEDIAN", [0, 0, 0])), [NaN, NaN, NaN]);
    // x + R = 0 with R ≠ 0: 1 and -1 against the reference -1 / 1.
    near(anomalyTile(Float32Array.of(1, -1), opts("PERCENT_DIFFERENCE_FROM_MEAN", [0], true, { reference: [-1, 1] })), [NaN, NaN]);
  });

  it("a value beyond float32 is nodata in a float32 output, not Infinity", () => {
    const out = anomalyTile(Float32Array.of(3e38, -3e38), opts("DIFFERENCE_FROM_MEAN", [0], true, { reference: [-3e38, 3e38] }));
    assert.ok(out instanceof Float32Array);
    near(out, [NaN, NaN]);
    // The same in float64 fits.
    near(anomalyTile(Float64Array.of(3e38), opts("DIFFERENCE_FROM_MEAN", [0], true, { reference: [-3e38] })), [6e38]);
  });

  it("the nodata value counts as nodata like NaN, in any pixel type", () => {
    const ints = Int16Array.of(10, -1, 20, 30);
    const out = anomalyTile(ints, opts("DIFFERENCE_FROM_MEAN", [0, 0, 0, 0], true, { nodata: -1 }));
    assert.ok(out instanceof Float32Array, "integers give float32");
    near(out, [-10, NaN, 0, 10]);
    near(anomalyTile(ints, opts("DIFFERENCE_FROM_MEAN", [0, 0, 0, 0], false, { nodata: -1 })), [NaN, NaN, NaN, NaN]);
    const f64 = anomalyTile(Float64Array.of(1, -9999, 3), opts("DIFFERENCE_FROM_MEAN", [0, 0, 0], true, { nodata: -9999 }));
    assert.ok(f64 instanceof Float64Array, "float64 in, float64 out");
    near(f64, [-1, NaN, 1]);
  });

  it("medians: odd count, even count (mean of the two middle values), nodata left out or not", () => {
    near(anomalyTile(Float32Array.of(3, 1, 2), opts("DIFFERENCE_FROM_MEDIAN", [0, 0, 0])), [1, -1, 0]);
    near(anomalyTile(Float32Array.of(4, 1, 3, 2), opts("DIFFERENCE_FROM_MEDIAN", [0, 0, 0, 0])), [1.5, -1.5, 0.5, -0.5]);
    const holes = Float32Array.of(4, NaN, 1, 3);
    near(anomalyTile(holes, opts("DIFFERENCE_FROM_MEDIAN", [0, 0, 0, 0], true)), [1, NaN, -2, 0]);
    near(anomalyTile(holes, opts("DIFFERENCE_FROM_MEDIAN", [0, 0, 0, 0], false)), [NaN, NaN, NaN, NaN]);
    // m = 3 (of 4, 1, 3): percent forms.
    near(anomalyTile(holes, opts("PERCENT_OF_MEDIAN", [0, 0, 0, 0])), [4 / 3, NaN, 1 / 3, 1]);
    near(anomalyTile(holes, opts("PERCENT_DIFFERENCE_FROM_MEDIAN", [0, 0, 0, 0])), [1 / 3.5, NaN, 2 / 2, 0]);
  });

  it("medians per group and per pixel, time-major", () => {
    // T=5, P=2; groups {0, 2, 4} and {1, 3}.
    const v = Float32Array.of(5, 1, 9, 2, 1, 3, 7, 4, 3, NaN);
    // group 0: pixel 0 {5, 1, 3} m 3; pixel 1 {1, 3, NaN} m 2. group 1: pixel 0 {9, 7} m 8; pixel 1 {2, 4} m 3.
    near(anomalyTile(v, opts("DIFFERENCE_FROM_MEDIAN", [0, 1, 0, 1, 0])), [2, -1, 1, -1, -2, 1, -1, 1, 0, NaN]);
  });

  it("long medians (quickselect) equal the median of a sort, odd and even, with ties", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 100;
    for (const n of [25, 26, 101, 200, 999, 1000]) {
      for (const ties of [false, true]) {
        const values = Array.from({ length: n }, () => (ties ? Math.round(random() / 10) : random()));
        const sorted = [...values].sort((a, b) => a - b);
        const want = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        assert.equal(medianOf(Float64Array.from(values), n), want, `n=${n} ties=${ties}`);
      }
    }
    // Sorted and reversed input (the worst order for a naive pivot).
    const up = Array.from({ length: 1001 }, (_, i) => i);
    assert.equal(medianOf(Float64Array.from(up), 1001), 500);
    assert.equal(medianOf(Float64Array.from(up.reverse()), 1001), 500);
  });

  it("a group without any valid value is nodata", () => {
    for (const method of ANOMALY_METHODS.filter((m) => m !== "Z_SCORE")) {
      near(
        anomalyTile(Float32Array.of(NaN, NaN, 1), opts(method, [0, 0, 1])),
        [NaN, NaN, method.startsWith("DIFF") ? 0 : method.startsWith("PERCENT_OF") ? 1 : 0],
        method,
      );
    }
  });

  it("external reference, one slice for every slice", () => {
    // [T=2][P=2], reference [2, 0]: pixel 1 has R = 0.
    const v = Float32Array.of(1, 5, 3, NaN);
    near(anomalyTile(v, opts("DIFFERENCE_FROM_MEAN", [0, 0], true, { reference: [2, 0] })), [-1, 5, 1, NaN]);
    near(anomalyTile(v, opts("PERCENT_OF_MEAN", [0, 0], true, { reference: [2, 0] })), [0.5, NaN, 1.5, NaN]);
    // The median methods take the reference as m; ignoreNoData plays no part.
    near(anomalyTile(v, opts("DIFFERENCE_FROM_MEDIAN", [0, 0], false, { reference: [2, 0] })), [-1, 5, 1, NaN]);
    // A nodata reference gives nodata.
    near(anomalyTile(v, opts("DIFFERENCE_FROM_MEAN", [0, 0], true, { reference: [NaN, 1] })), [NaN, 4, NaN, NaN]);
  });

  it("external reference slice by slice", () => {
    const v = Float32Array.of(1, 5, 3, 6);
    near(anomalyTile(v, opts("DIFFERENCE_FROM_MEAN", [0, 1], true, { reference: [1, 2, 3, 4] })), [0, 3, 0, 2]);
    near(anomalyTile(v, opts("PERCENT_DIFFERENCE_FROM_MEAN", [0, 1], true, { reference: [1, 2, 3, 4] })), [0, 3 / 3.5, 0, 2 / 5]);
  });

  it("refuses Z_SCORE with a reference, a reference of the wrong size, and uneven slices", () => {
    assert.throws(() => anomalyTile(Float32Array.of(1, 2), opts("Z_SCORE", [0, 0], true, { reference: [1] })), /Z_SCORE/);
    assert.throws(
      () => anomalyTile(Float32Array.of(1, 2), opts("DIFFERENCE_FROM_MEAN", [0, 0], true, { reference: [1, 2, 3] })),
      RangeError,
    );
    assert.throws(() => anomalyTile(Float32Array.of(1, 2, 3), opts("DIFFERENCE_FROM_MEAN", [0, 0])), RangeError);
  });

  it("writes into a given output array", () => {
    const out = new Float64Array(2);
    assert.equal(anomalyTile(Float32Array.of(1, 3), { ...opts("DIFFERENCE_FROM_MEAN", [0, 0]), out }), out);
    assert.deepEqual(list(out), [-1, 1]);
  });
});

describe("time-whole tiles", () => {
  it("fit 32 MB of float64 through the time axis, at most 256 on a side", () => {
    assert.equal(timeTileEdge(12), 256);
    assert.equal(timeTileEdge(64), 256);
    assert.equal(timeTileEdge(128), 176); // √(32 MiB / (128 × 8)) = 181, down to a multiple of 16
    assert.equal(timeTileEdge(1461), 48); // 53, down to a multiple of 8
    assert.ok(timeTileEdge(1461) ** 2 * 1461 * 8 <= 32 * 1024 * 1024);
    assert.equal(timeTileEdge(1e9), 1);
  });

  it("cover a window exactly, offsets multiple of the edge", () => {
    const tiles = windowTiles({ x: 10, y: 5, width: 300, height: 100 }, 256);
    assert.deepEqual(
      tiles.map((t) => [t.x, t.y, t.width, t.height, t.ox, t.oy]),
      [
        [10, 5, 256, 100, 0, 0],
        [266, 5, 44, 100, 256, 0],
      ],
    );
  });

  it("hold whole stored chunks where the chunks are smaller than the window", () => {
    const world = { x: 0, y: 0, width: 720, height: 360 };
    const MiB = 1024 * 1024;
    // 60 × 60 through 1461 steps is 42 MB, beyond the 32 MB budget, within the 64 MB limit: one chunk.
    assert.deepEqual(wholeChunkTile([365, 60, 60], world, 1461 * 8, 32 * MiB, 256), { height: 60, width: 60 });
    // 100 × 100 through 1461 steps is 117 MB: beyond the limit.
    assert.equal(wholeChunkTile([365, 100, 100], world, 1461 * 8, 32 * MiB, 256), undefined);
    // A chunk spanning the window leaves nothing to align with.
    assert.equal(wholeChunkTile([1, 360, 720], world, 1461 * 8, 32 * MiB, 256), undefined);
    // 12 steps: 388 chunks of 30 × 30 fit, 8 × 8 of them within 256 on a side.
    assert.deepEqual(wholeChunkTile([1, 30, 30], world, 12 * 8, 32 * MiB, 256), { height: 240, width: 240 });
    // 52 chunks of 20 × 40 fit: 5 across (√(52 × 20 / 40) = 5.1), 10 down.
    assert.deepEqual(wholeChunkTile([10, 20, 40], world, 100 * 8, 32 * MiB, 256), { height: 200, width: 200 });
    // Clipped to the window.
    assert.deepEqual(wholeChunkTile([1, 30, 30], { x: 0, y: 0, width: 100, height: 50 }, 12 * 8, 32 * MiB, 256), {
      height: 50,
      width: 100,
    });
  });
});
