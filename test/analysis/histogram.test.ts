/**
 * The write pass's histogram (analysis/histogram.ts): hand-worked bins; on random data every
 * value lands in the bin an exact second pass over [min, max] gives it, but for values within
 * one fine bin of an edge; shares merged in any order give exactly what one accumulator given
 * every value gives; widening keeps every count.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FINE_BINS, HistogramAccumulator, histogramBins } from "../../src/analysis/histogram.js";
import { mergeStatistics, statisticsAccumulator } from "../../src/analysis/statistics.js";
import { stageBlock } from "../../src/kernels/statistics.js";

function accumulate(blocks: Float32Array[], nodata = NaN): HistogramAccumulator {
  const h = new HistogramAccumulator();
  for (const b of blocks) {
    const valid = Array.from(b).filter((x) => !Number.isNaN(x) && x !== nodata);
    if (valid.length) h.add(stageBlock(b), nodata, Math.min(...valid), Math.max(...valid));
  }
  return h;
}

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("the write pass's histogram", () => {
  it("bins hand-worked values over [min, max], the last bin closed, nodata and NaN left out", () => {
    const h = accumulate([Float32Array.of(0, 1, NaN, -9), Float32Array.of(2, 3, 3)], -9).result()!;
    // Three bins of width 1 over [0, 3]: {0}, {1}, {2, 3, 3}.
    assert.deepEqual(histogramBins(h, 0, 3, 3), [1, 1, 3]);
    assert.equal(
      h.counts.reduce((a, b) => a + b, 0),
      5,
    );
  });

  it("one value: every count in the first bin", () => {
    const h = accumulate([Float32Array.of(7.5, 7.5, 7.5)]).result()!;
    assert.deepEqual(histogramBins(h, 7.5, 7.5, 4), [3, 0, 0, 0]);
  });

  it("places each value as an exact pass would, but for values within one fine bin of a bin's edge", () => {
    const next = random(11);
    // A narrow first block, then blocks that widen the range a thousandfold both ways.
    const blocks = [
      Float32Array.from({ length: 500 }, () => 10 + next()),
      ...Array.from({ length: 6 }, (_, k) => Float32Array.from({ length: 2000 }, () => (next() - 0.3) * 10 ** (k / 2 + 1))),
    ];
    const all = blocks.flatMap((b) => Array.from(b));
    const [min, max] = [Math.min(...all), Math.max(...all)];
    const fine = accumulate(blocks).result()!;
    const fineWidth = 2 ** fine.exponent;
    assert.ok(fine.counts.length <= FINE_BINS);
    assert.ok(fineWidth <= (2 * (max - min)) / (FINE_BINS - 2), `fine bins of ${fineWidth} for a range of ${max - min}`);
    const size = 256;
    const got = histogramBins(fine, min, max, size);
    const width = (max - min) / size;
    const exact = new Array<number>(size).fill(0);
    for (const x of all) exact[Math.min(size - 1, Math.floor((x - min) / width))]++;
    assert.equal(
      got.reduce((a, b) => a + b, 0),
      all.length,
    );
    let [cumGot, cumExact] = [0, 0];
    for (let i = 0; i < size - 1; i++) {
      cumGot += got[i];
      cumExact += exact[i];
      const edge = min + (i + 1) * width;
      const near = all.filter((x) => Math.abs(x - edge) <= fineWidth).length;
      assert.ok(Math.abs(cumGot - cumExact) <= near, `edge ${i}: ${cumGot} vs ${cumExact}, ${near} values near it`);
    }
  });

  it("shares merged in any order equal one accumulator given every value", () => {
    const next = random(5);
    const blocks = Array.from({ length: 9 }, (_, k) => Float32Array.from({ length: 300 }, () => (next() - 0.5) * 4 ** k + k));
    const whole = accumulate(blocks).result();
    for (const order of [
      [0, 1, 2],
      [2, 0, 1],
      [1, 2, 0],
    ]) {
      const shares = [0, 1, 2].map((s) => accumulate(blocks.filter((_, i) => i % 3 === s)).result());
      const merged = new HistogramAccumulator();
      for (const s of order) merged.merge(shares[s]);
      assert.deepEqual(merged.result(), whole, `order ${order}`);
    }
  });

  it("rides along the output statistics, merged with them across shares", () => {
    const next = random(3);
    const blocks = Array.from({ length: 4 }, () => Float32Array.from({ length: 100 }, () => next() * 50 - 20));
    const one = statisticsAccumulator();
    for (const b of blocks) one.add(b, undefined);
    const parts = [0, 1].map((s) => {
      const acc = statisticsAccumulator();
      for (const b of blocks.filter((_, i) => i % 2 === s)) acc.add(b, undefined);
      return acc.result();
    });
    assert.deepEqual(mergeStatistics(parts)!.histogram, one.result()!.histogram);
    assert.equal(statisticsAccumulator({ histogram: false }).result(), undefined);
    const plain = statisticsAccumulator({ histogram: false });
    plain.add(blocks[0], undefined);
    assert.equal(plain.result()!.histogram, undefined);
  });
});
