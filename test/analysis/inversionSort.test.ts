/**
 * The inversion-counting radix sort against the definition: every pair counted by hand, the
 * result sorted by a comparison sort with the stated order of equal keys.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { inversionSorter } from "../../src/analysis/inversionSort.js";

let seed = 7;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;

function check(values: number[], from: number, to: number, strict: boolean): void {
  const key = Float64Array.from(values);
  const order = Int32Array.from(values, (_, i) => 100 + i);
  let pairs = 0;
  for (let i = from; i < to; i++) for (let j = i + 1; j < to; j++) if (strict ? values[j] < values[i] : values[j] <= values[i]) pairs++;
  const expected = values
    .slice(from, to)
    .map((v, i) => ({ v, o: 100 + from + i }))
    .sort((a, b) => a.v - b.v || (strict ? a.o - b.o : b.o - a.o));

  const count = inversionSorter(values.length).sort(key, order, from, to, strict);

  assert.equal(count, pairs);
  assert.deepEqual(
    [...key.subarray(from, to)],
    expected.map((e) => e.v),
  );
  assert.deepEqual(
    [...order.subarray(from, to)],
    expected.map((e) => e.o),
  );
  // Outside the range nothing moves.
  for (let i = 0; i < values.length; i++) if (i < from || i >= to) assert.equal(order[i], 100 + i);
}

describe("inversionSorter", () => {
  it("counts the pairs of the worked example", () => {
    const key = Float64Array.of(3, 1, 2, 1);
    const order = Int32Array.of(0, 1, 2, 3);
    const sorter = inversionSorter(4);
    assert.equal(sorter.sort(key, order, 0, 4, true), 4);
    assert.deepEqual([...key], [1, 1, 2, 3]);
    assert.deepEqual([...order], [1, 3, 2, 0]);
    assert.equal(sorter.sort(Float64Array.of(3, 1, 2, 1), Int32Array.of(0, 1, 2, 3), 0, 4, false), 5);
  });

  it("random doubles of both signs, ties, zeros of both signs, sub-ranges, both tie rules", () => {
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
      check(values, from, Math.max(from, to), trial % 2 === 0);
    }
  });

  it("a run longer than one digit's buckets, all keys equal, and infinities", () => {
    check(
      Array.from({ length: 3000 }, (_, i) => (i * 7919) % 3001),
      0,
      3000,
      true,
    );
    check(new Array(50).fill(2.5), 0, 50, false);
    check([Infinity, -Infinity, 0, 1, -1, Infinity], 0, 6, true);
  });
});
