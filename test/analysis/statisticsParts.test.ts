/**
 * Statistics added as parts (analysis/statistics.ts): parts that arrive in any order are
 * added in the order given, so the result does not depend on which thread answered first;
 * a failed part fails settled() and nothing else; a chunk's statistics cover its region
 * only (hand-worked); parts and mergeStatistics give the moments of every value, computed
 * here, and one accumulator's histogram exactly.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FINE_BINS } from "../../src/analysis/histogram.js";
import { type StatisticsPart, chunkStatistics, mergeStatistics, statisticsAccumulator } from "../../src/analysis/statistics.js";

const block = (seed: number, n = 500) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + seed) * 40 + seed * 3);

function partOf(values: Float32Array): StatisticsPart | undefined {
  const acc = statisticsAccumulator();
  acc.add(values, undefined);
  return acc.part();
}

describe("statistics added as parts", () => {
  it("adds late parts in the order given, whatever order they arrive in", async () => {
    const parts = [0, 1, 2, 3, 4].map((s) => partOf(block(s)));
    const inOrder = statisticsAccumulator();
    for (const p of parts) inOrder.addStatistics(p);
    const late = statisticsAccumulator();
    const settle: ((p: StatisticsPart | undefined) => void)[] = [];
    for (let k = 0; k < parts.length; k++) late.addLater(new Promise((resolve) => settle.push(resolve)));
    for (const k of [4, 2, 0, 3, 1]) {
      settle[k](parts[k]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await late.settled();
    assert.deepEqual(late.result(), inOrder.result());
  });

  it("gives the moments of every value (computed here, in two passes) and one accumulator's histogram exactly", () => {
    const blocks = [0, 1, 2].map((s) => block(s));
    const all = blocks.flatMap((b) => Array.from(b));
    const mean = all.reduce((a, x) => a + x, 0) / all.length;
    const sd = Math.sqrt(all.reduce((a, x) => a + (x - mean) ** 2, 0) / all.length);
    const parts = statisticsAccumulator();
    for (const b of blocks) parts.addStatistics(partOf(b));
    const merged = mergeStatistics(blocks.map((b) => ({ ...partOf(b)!, histogram: undefined })))!;
    for (const [name, got] of [
      ["parts", parts.result()!],
      ["mergeStatistics", merged],
    ] as const) {
      assert.deepEqual([got.count, got.min, got.max], [all.length, Math.min(...all), Math.max(...all)], name);
      assert.ok(Math.abs(got.mean - mean) < 1e-12 && Math.abs(got.stddev - sd) < 1e-12, `${name}: moments`);
    }
    // Bins nest, so parts merge into exactly what one accumulator given every value counts.
    const one = statisticsAccumulator();
    for (const b of blocks) one.add(b, undefined);
    assert.deepEqual(parts.result()!.histogram, one.result()!.histogram);
    assert.equal(merged.histogram, undefined, "a part without a histogram: none for the whole");
  });

  it("fails settled() with a part that failed, and leaves no rejection unhandled", async () => {
    const acc = statisticsAccumulator();
    acc.addLater(Promise.resolve(partOf(block(1))));
    acc.addLater(Promise.reject(new Error("the encoder's thread is gone")));
    acc.addLater(Promise.resolve(partOf(block(2))));
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(acc.settled(), /thread is gone/);
  });

  it("covers a chunk's region only: hand-worked", () => {
    // A 3 x 4 chunk holding a 2 x 3 region of the array (the rest padding, here 99).
    const chunk = Float32Array.of(1, 2, 3, 99, 4, NaN, 6, 99, 99, 99, 99, 99);
    const s = chunkStatistics(chunk, { shape: [3, 4], extent: [2, 3] })!;
    // Values 1, 2, 3, 4, 6: mean 3.2, population variance (4.84 + 1.44 + 0.04 + 0.64 + 7.84) / 5 = 2.96.
    assert.deepEqual([s.count, s.min, s.max], [5, 1, 6]);
    assert.ok(Math.abs(s.mean - 3.2) < 1e-12 && Math.abs(s.stddev - Math.sqrt(2.96)) < 1e-12);
    const nodata = chunkStatistics(Float32Array.of(5, -1, 7, 9), { shape: [4], extent: [3] }, { nodata: -1 })!;
    assert.deepEqual([nodata.count, nodata.min, nodata.max, nodata.mean], [2, 5, 7, 6]);
    assert.equal(chunkStatistics(Float32Array.of(NaN, 1), { shape: [2], extent: [1] }), undefined, "no valid value");
  });

  it("summarizes chunk after chunk, each from its own values alone (its histogram's memory reused), and a part merged stays as it was", () => {
    const region = (n: number) => ({ shape: [n], extent: [n] });
    // Far apart, wide then narrow then wide: the reused histogram must start empty each time.
    const chunks = [
      Float32Array.from({ length: 500 }, (_, i) => -40 + i * 0.17),
      Float32Array.from({ length: 300 }, (_, i) => 1000 + (i % 7) * 0.001),
      Float32Array.from({ length: 500 }, (_, i) => 5 - i * 0.02),
    ];
    for (const [k, chunk] of chunks.entries()) {
      const got = chunkStatistics(chunk, region(chunk.length))!;
      // Moments worked here, in two passes.
      const values = [...chunk];
      const mean = values.reduce((a, x) => a + x, 0) / values.length;
      const sd = Math.sqrt(values.reduce((a, x) => a + (x - mean) ** 2, 0) / values.length);
      assert.deepEqual([got.count, got.min, got.max], [values.length, Math.min(...values), Math.max(...values)], `chunk ${k}`);
      assert.ok(Math.abs(got.mean - mean) <= 1e-9 * Math.abs(mean) && Math.abs(got.stddev - sd) <= 1e-9 * sd, `chunk ${k}: moments`);
      // Each value in bin ⌊x / 2^exponent⌋, counted here; the bins the narrow ones a chunk of its own gets.
      const { exponent, first, counts } = got.histogram!;
      const tally = new Array<number>(counts.length).fill(0);
      for (const x of values) tally[Math.floor(x / 2 ** exponent) - first]++;
      assert.deepEqual([...counts], tally, `chunk ${k}: its values' bins and no other chunk's`);
      assert.ok(counts.length > FINE_BINS / 4, `chunk ${k}: ${counts.length} bins, as narrow as its own range allows`);
      const before = [...counts];
      statisticsAccumulator().addStatistics(got);
      assert.deepEqual([...got.histogram!.counts], before, `chunk ${k}: merging leaves its counts`);
    }
  });
});
