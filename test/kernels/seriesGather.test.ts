/**
 * The per-pixel fits' gather (kernels/seriesGather.ts) against series worked out by hand: a
 * slab of 3 slices × 5 pixels (value 10·slice + pixel) taken in x order [2, 0, 1], blocks of
 * 4 pixels (the second one partial), NaN and nodata flagged; float32 read into the kernel's
 * own array, int16 and float64 copied in, and a larger slab after a smaller one. The complete
 * pixels' sweeps against their definitions summed in the test, slice by slice in x order:
 * LINEAR's two coefficients and a third (the loop for any p), an odd pixel last (no lane
 * pair), NaN and nodata counted out.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CompleteSums, SeriesGather } from "../../src/kernels/seriesGather.js";

const ORDER = Int32Array.from([2, 0, 1]);
const [SLICES, PIXELS] = [3, 5];

function slab<T extends Float32Array | Float64Array | Int16Array>(into: T, pixels = PIXELS): T {
  for (let s = 0; s < SLICES; s++) for (let p = 0; p < pixels; p++) into[s * pixels + p] = 10 * s + p;
  return into;
}

/** Every pixel's series, valid flags and count, block by block. */
function gathered(gather: SeriesGather, pixels: number, nodata: number): { series: number[]; valid: number[]; m: number }[] {
  const out = [];
  for (let p0 = 0; p0 < pixels; p0 += 4) {
    const count = Math.min(4, pixels - p0);
    gather.block(pixels, p0, count);
    for (let j = 0; j < count; j++) {
      const m = gather.pixel(j, nodata);
      out.push({ series: [...gather.series], valid: [...gather.valid], m });
    }
  }
  return out;
}

const expected = (p: number) => ({ series: [20 + p, p, 10 + p], valid: [1, 1, 1], m: 3 });

describe("series gather kernel", () => {
  it("gathers a float32 slab read into its own array, in x order, flagging NaN and nodata", () => {
    const gather = new SeriesGather(ORDER, 4);
    const data = slab(gather.slabArray(SLICES * PIXELS, "F32") as Float32Array);
    data[2 * PIXELS + 1] = NaN; // slice 2, pixel 1: first in x order
    data[1 * PIXELS + 4] = -9; // slice 1, pixel 4: last in x order
    gather.take(data);
    const got = gathered(gather, PIXELS, -9);
    assert.deepEqual(got[0], expected(0));
    assert.deepEqual(got[1], { series: [NaN, 1, 11], valid: [0, 1, 1], m: 2 });
    assert.deepEqual(got[3], expected(3));
    assert.deepEqual(got[4], { series: [24, 4, -9], valid: [1, 1, 0], m: 2 });
  });

  it("copies in int16 and float64 slabs from the heap, and grows for a larger one", () => {
    const gather = new SeriesGather(ORDER, 4);
    assert.equal(gather.slabArray(SLICES * PIXELS, "S16"), undefined);
    gather.take(slab(new Int16Array(SLICES * PIXELS)));
    assert.deepEqual(gathered(gather, PIXELS, NaN), [0, 1, 2, 3, 4].map(expected));
    gather.take(slab(new Float64Array(SLICES * 9), 9));
    assert.deepEqual(gathered(gather, 9, NaN), [0, 1, 2, 3, 4, 5, 6, 7, 8].map(expected));
  });
});

/** The sweeps' sums by their definitions: x order ORDER, map and basis p × 3 rows. */
function sweptByDefinition(data: ArrayLike<number>, pixels: number, p: number, map: number[], basis: number[], nodata: number) {
  const n = ORDER.length;
  const sums = {
    count: [] as number[],
    mean: [] as number[],
    min: [] as number[],
    max: [] as number[],
    sse: [] as number[],
    sst: [] as number[],
    coefficients: [] as number[],
  };
  const coefficients: number[][] = [];
  for (let q = 0; q < pixels; q++) {
    const y = Array.from(ORDER, (s) => data[s * pixels + q]);
    const a = Array.from({ length: p }, (_, j) => y.reduce((acc, v, k) => acc + map[j * n + k] * v, 0));
    const mean = y.reduce((acc, v) => acc + v, 0) / n;
    sums.count.push(y.filter((v) => v === v && v !== nodata).length);
    sums.mean.push(mean);
    sums.min.push(y.reduce((m, v) => (v < m ? v : m), Infinity));
    sums.max.push(y.reduce((m, v) => (v > m ? v : m), -Infinity));
    sums.sse.push(y.reduce((acc, v, k) => acc + (v - a.reduce((f, aj, j) => f + basis[j * n + k] * aj, 0)) ** 2, 0));
    sums.sst.push(y.reduce((acc, v) => acc + (v - mean) ** 2, 0));
    coefficients.push(a);
  }
  for (let j = 0; j < p; j++) for (let q = 0; q < pixels; q++) sums.coefficients.push(coefficients[q][j]);
  return sums;
}

const plain = (sums: CompleteSums) => Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, [...(v as Float64Array)]]));

describe("complete pixels' sweeps", () => {
  const map = [0.25, -0.5, 1.5, 0.125, 2, -1, 3, 0.5, -0.75];
  const basis = [1, 1, 1, -1, 0.5, 2, 0.25, -2, 4];
  for (const p of [2, 3]) {
    it(`sums ${p} coefficients, the extremes, SSE and SST of a float32 slab in x order, an odd pixel last`, () => {
      const gather = new SeriesGather(ORDER, 4, {
        p,
        map: Float64Array.from(map.slice(0, 3 * p)),
        basis: Float64Array.from(basis.slice(0, 3 * p)),
      });
      const data = slab(gather.slabArray(SLICES * PIXELS, "F32") as Float32Array);
      data[0 * PIXELS + 2] = 7.5;
      gather.take(data);
      assert.deepEqual(plain(gather.sweep(PIXELS, NaN)), sweptByDefinition(data, PIXELS, p, map, basis, NaN));
    });
  }

  it("counts NaN and nodata out of a float64 slab copied in", () => {
    const gather = new SeriesGather(ORDER, 4, {
      p: 2,
      map: Float64Array.from(map.slice(0, 6)),
      basis: Float64Array.from(basis.slice(0, 6)),
    });
    const data = slab(new Float64Array(SLICES * PIXELS));
    data[1 * PIXELS + 1] = NaN;
    data[2 * PIXELS + 4] = -9;
    gather.take(data);
    const sums = gather.sweep(PIXELS, -9);
    assert.deepEqual([...sums.count], [3, 2, 3, 3, 2]);
    assert.deepEqual(plain(sums), sweptByDefinition(data, PIXELS, 2, map, basis, -9));
  });
});
