/**
 * The tile anomaly kernel (kernels/groupAnomaly.ts). Medians: against medians worked out by hand and
 * against medians taken in the test by sorting each pixel's valid values (random tiles with
 * NaN, nodata and ties; 7 pixels, so the last four-pixel step is partial; groups of uneven
 * size; with and without ignoreNoData), the anomaly then computed in the test from its
 * definition in SPEC §7; a tile read into one of its two slots is computed there. Means and
 * standard deviations: against a hand-worked case and against µ and s taken in the test from
 * their definitions (the valid values summed in float64 in slice order), on random tiles of
 * every method.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { unshuffleIntoKernel } from "../../src/kernels/arena.js";
import { GroupAnomalyKernel, groupKernelTakes } from "../../src/kernels/groupAnomaly.js";

// anomaly.ts's numbering of the methods.
const [DIFFERENCE, PERCENT_DIFFERENCE, PERCENT_OF, Z_SCORE] = [0, 1, 2, 3];
const F32_MAX = 3.4028234663852886e38;

/** The anomaly of x against median or mean m (and s) by its definition, as float32; NaN where not kept. */
function anomaly(kind: number, x: number, m: number, nodata: number, sd = NaN): number {
  const v =
    kind === DIFFERENCE
      ? x - m
      : kind === PERCENT_DIFFERENCE
        ? Math.abs(x - m) / ((x + m) / 2)
        : kind === PERCENT_OF
          ? x / m
          : (x - m) / sd;
  return x !== nodata && Math.abs(v) <= F32_MAX ? Math.fround(v) : NaN;
}

/** Each group's slices, as the kernel takes them. */
function members(groups: number[]): { members: Int32Array; start: Int32Array } {
  const G = Math.max(...groups) + 1;
  const lists = Array.from({ length: G }, (_, g) => groups.flatMap((h, t) => (h === g ? [t] : [])));
  const start = [0];
  for (const l of lists) start.push(start[start.length - 1] + l.length);
  return { members: Int32Array.from(lists.flat()), start: Int32Array.from(start) };
}

describe("tile anomaly kernel, medians", () => {
  it("takes each group's median at every pixel, a missing value left out or voiding it", () => {
    // 5 slices × 5 pixels; groups: slices 0, 2, 4 and slices 1, 3. Pixel 4 is the partial step.
    const nd = -99;
    const tile = Float32Array.from(
      [
        [1, 5, 9, 2, 7],
        [10, 20, NaN, 4, nd],
        [3, 5, 9, nd, 8],
        [30, 40, NaN, 6, 0],
        [2, 1, 9, NaN, 6],
      ].flat(),
    );
    const { members: m, start } = members([0, 1, 0, 1, 0]);
    const kernel = new GroupAnomalyKernel(tile.length, 5, 3, true);
    // Group 0's medians: 2, 5, 9, 2 (nd and NaN left out), 7.
    // Group 1's: 20 (of 10, 30), 30 (of 20, 40), none (NaN, NaN), 5 (of 4, 6), 0 (nd left out).
    const got = kernel.anomalies(0, tile, 5, m, start, DIFFERENCE, nd, true, F32_MAX);
    assert.deepEqual(
      Array.from(got),
      [
        [-1, 0, 0, 0, 0],
        [-10, -10, NaN, -1, NaN],
        [1, 0, 0, NaN, 1],
        [10, 10, NaN, 1, 0],
        [0, -4, 0, NaN, -1],
      ].flat(),
    );
    // Without ignoreNoData a missing value voids its group's median at that pixel.
    const strict = kernel.anomalies(0, tile, 5, m, start, DIFFERENCE, nd, false, F32_MAX);
    assert.deepEqual(
      Array.from(strict),
      [
        [-1, 0, 0, NaN, 0],
        [-10, -10, NaN, -1, NaN],
        [1, 0, 0, NaN, 1],
        [10, 10, NaN, 1, NaN],
        [0, -4, 0, NaN, -1],
      ].flat(),
    );
  });

  it("matches medians of sorted values on random tiles of every method, twice in one kernel", () => {
    let s = 3;
    const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const [T, P, nd] = [61, 7, 250];
    const groups = Array.from({ length: T }, (_, t) => (t < 40 ? t % 3 : 3)); // 14, 13, 13 and 21 slices
    const { members: m, start } = members(groups);
    const kernel = new GroupAnomalyKernel(T * P, P, 21, true);
    for (const [kind, ignore] of [
      [DIFFERENCE, true],
      [PERCENT_DIFFERENCE, false],
      [PERCENT_OF, true],
    ] as const) {
      const tile = Float32Array.from({ length: T * P }, () => {
        const r = next();
        return r < 0.03 ? NaN : r < 0.06 ? nd : Math.floor(next() * 500) / 4; // ties and a nodata value
      });
      const want = new Float32Array(T * P);
      for (let g = 0; g < 4; g++) {
        const slices = groups.flatMap((h, t) => (h === g ? [t] : []));
        for (let p = 0; p < P; p++) {
          const all = slices.map((t) => tile[t * P + p]);
          const valid = all.filter((x) => x === x && x !== nd).sort((a, b) => a - b);
          const n = valid.length;
          const median = n === 0 || (n < all.length && !ignore) ? NaN : n % 2 ? valid[n >> 1] : (valid[n / 2 - 1] + valid[n / 2]) / 2;
          for (const t of slices) want[t * P + p] = anomaly(kind, tile[t * P + p], median, nd);
        }
      }
      assert.deepEqual(Array.from(kernel.anomalies(1, tile, P, m, start, kind, nd, ignore, F32_MAX)), Array.from(want), `method ${kind}`);
    }
  });

  it("takes int16 tiles and a nodata value float32 cannot hold", () => {
    const kernel = new GroupAnomalyKernel(6, 2, 3, true);
    const { members: m, start } = members([0, 0, 0]);
    const got = kernel.anomalies(0, Int16Array.of(1, 4, 2, 8, 3, 6), 2, m, start, DIFFERENCE, 0.1, true, F32_MAX);
    assert.deepEqual(Array.from(got), [-1, -2, 0, 2, 1, 0]);
  });

  it("computes a tile read into its slot in place, the other slot's tile left as it is", () => {
    const kernel = new GroupAnomalyKernel(6, 2, 3, true);
    const { members: m, start } = members([0, 0, 0]);
    const waiting = kernel.tileArray(0, 6)!;
    waiting.set([9, 9, 9, 9, 9, 9]);
    const read = kernel.tileArray(1, 6)!;
    read.set([1, 4, 2, 8, 3, 6]);
    const got = kernel.anomalies(1, read, 2, m, start, DIFFERENCE, NaN, true, F32_MAX);
    assert.ok(got.buffer === read.buffer && got.byteOffset === read.byteOffset, "in the slot it was read into");
    assert.deepEqual(Array.from(got), [-1, -2, 0, 2, 1, 0]);
    assert.deepEqual(Array.from(waiting), [9, 9, 9, 9, 9, 9]);
    assert.equal(kernel.tileArray(0, 7), undefined);
  });

  it("says which tiles it takes", () => {
    assert.ok(groupKernelTakes("F32", 4096, true) && groupKernelTakes("S16", 12, true));
    assert.ok(!groupKernelTakes("F64", 12, true) && !groupKernelTakes("S32", 12, true) && !groupKernelTakes("F32", 4097, true));
    // Means sum any group.
    assert.ok(groupKernelTakes("F32", 100_000, false) && !groupKernelTakes("F64", 12, false));
    assert.throws(() => new GroupAnomalyKernel(10, 10, 4097, true), /a group of 4097 slices/);
  });
});

describe("tile anomaly kernel, means", () => {
  it("takes each group's mean (and s) at every pixel, a missing value left out or voiding it", () => {
    // 4 slices × 5 pixels; groups: slices 0, 2 and slices 1, 3. Pixel 4 is the partial step.
    const nd = -99;
    const tile = Float32Array.from(
      [
        [1, 5, 9, 2, nd],
        [10, 20, NaN, 4, 1],
        [3, 7, 9, nd, 8],
        [30, 40, NaN, 6, 3],
      ].flat(),
    );
    const { members: m, start } = members([0, 1, 0, 1]);
    const kernel = new GroupAnomalyKernel(tile.length, 5, 2, false);
    // Group 0's µ: 2, 6, 9, 2 (nd left out), 8; group 1's: 20, 30, none, 5, 2.
    assert.deepEqual(
      Array.from(kernel.anomalies(0, tile, 5, m, start, DIFFERENCE, nd, true, F32_MAX)),
      [
        [-1, -1, 0, 0, NaN],
        [-10, -10, NaN, -1, -1],
        [1, 1, 0, NaN, 0],
        [10, 10, NaN, 1, 1],
      ].flat(),
    );
    // s of group 0: 1, 1, 0 (9/0 → NaN), 0; of group 1: 10, 10, none, 1, 1.
    assert.deepEqual(
      Array.from(kernel.anomalies(0, tile, 5, m, start, Z_SCORE, nd, false, F32_MAX)),
      [
        [-1, -1, NaN, NaN, NaN],
        [-1, -1, NaN, -1, -1],
        [1, 1, NaN, NaN, NaN],
        [1, 1, NaN, 1, 1],
      ].flat(),
    );
  });

  it("matches µ and s from their definitions on random tiles of every method", () => {
    let s = 7;
    const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const [T, P, nd] = [61, 7, 250];
    const groups = Array.from({ length: T }, (_, t) => (t < 40 ? t % 3 : 3));
    const { members: m, start } = members(groups);
    const kernel = new GroupAnomalyKernel(T * P, P, 21, false);
    for (const kind of [DIFFERENCE, PERCENT_DIFFERENCE, PERCENT_OF, Z_SCORE]) {
      for (const ignore of [true, false]) {
        const tile = Float32Array.from({ length: T * P }, () => {
          const r = next();
          return r < 0.02 ? NaN : r < 0.04 ? nd : Math.fround(next() * 400 - 100);
        });
        const want = new Float32Array(T * P);
        for (let g = 0; g < 4; g++) {
          const slices = groups.flatMap((h, t) => (h === g ? [t] : []));
          for (let p = 0; p < P; p++) {
            const all = slices.map((t) => tile[t * P + p]);
            const valid = all.filter((x) => x === x && x !== nd);
            let sum = 0;
            for (const x of valid) sum += x;
            const mean = valid.length === 0 || (valid.length < all.length && !ignore) ? NaN : sum / valid.length;
            let squares = 0;
            for (const x of valid) squares += (x - mean) * (x - mean);
            const sd = Math.sqrt(squares / valid.length);
            for (const t of slices) want[t * P + p] = anomaly(kind, tile[t * P + p], mean, nd, sd);
          }
        }
        const got = kernel.anomalies(kind % 2 === 0 ? 0 : 1, tile, P, m, start, kind, nd, ignore, F32_MAX);
        assert.deepEqual(Array.from(got), Array.from(want), `method ${kind}, ignoreNoData ${ignore}`);
      }
    }
  });

  it("unshuffles chunks read into a slot in its memory", () => {
    const kernel = new GroupAnomalyKernel(64, 4, 16, false, 64);
    const slot = kernel.tileArray(0, 64)!;
    // Shuffled: byte b of every value, then byte b + 1 of every value ...
    const values = Float32Array.from({ length: 16 }, (_, i) => i * 1.5);
    const bytes = new Uint8Array(values.buffer);
    const shuffled = new Uint8Array(64);
    for (let i = 0; i < 16; i++) for (let b = 0; b < 4; b++) shuffled[b * 16 + i] = bytes[i * 4 + b];
    const into = new Uint8Array(slot.buffer, slot.byteOffset, 64);
    assert.ok(unshuffleIntoKernel(shuffled, 4, into));
    assert.deepEqual(Array.from(slot.subarray(0, 16)), Array.from(values));
  });
});
