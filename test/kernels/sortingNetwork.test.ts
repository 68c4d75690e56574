/**
 * Batcher's odd-even merge sort (kernels/sortingNetwork.ts), checked by the zero-one
 * principle (a comparator network sorts every input if it sorts every input of 0s and 1s:
 * all of them, for up to 14 wires) and against Array.prototype.sort on random inputs; a
 * network pruned to some outputs gets those outputs right and has fewer comparators.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { oddEvenMergeSort } from "../../src/kernels/sortingNetwork.js";

function run(pairs: Int32Array, input: readonly number[]): number[] {
  const a = [...input];
  for (let c = 0; c < pairs.length; c += 2) {
    const [i, j] = [pairs[c], pairs[c + 1]];
    assert.ok(i < j, `comparator ${i}, ${j} runs the wrong way`);
    if (a[j] < a[i]) [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** A generator of numbers in [0, 1), the same every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

describe("odd-even merge sort networks", () => {
  it("sorts every sequence of 0s and 1s of 1 to 14 wires", () => {
    for (let n = 1; n <= 14; n++) {
      const pairs = oddEvenMergeSort(n);
      for (let bits = 0; bits < 1 << n; bits++) {
        const input = Array.from({ length: n }, (_, i) => (bits >> i) & 1);
        const ones = input.reduce((s, x) => s + x, 0);
        const want = [...Array(n - ones).fill(0), ...Array(ones).fill(1)];
        assert.deepEqual(run(pairs, input), want, `n ${n}, input ${input.join("")}`);
      }
    }
  });

  it("has 19 comparators for 8 wires (Knuth's count for Batcher's network)", () => {
    assert.equal(oddEvenMergeSort(8).length / 2, 19);
    assert.equal(oddEvenMergeSort(1).length, 0);
  });

  it("sorts random sequences, ties included, of sizes that are no power of two", () => {
    const next = random(7);
    for (const n of [3, 29, 31, 100, 122, 365, 1000]) {
      const pairs = oddEvenMergeSort(n);
      for (let trial = 0; trial < 5; trial++) {
        const input = Array.from({ length: n }, () => Math.floor(next() * n));
        assert.deepEqual(
          run(pairs, input),
          [...input].sort((a, b) => a - b),
        );
      }
    }
  });

  it("pruned to the middle positions, puts the median there with fewer comparators", () => {
    const next = random(11);
    for (const n of [2, 5, 112, 113, 124, 1461]) {
      const middle = [(n - 1) >> 1, n >> 1];
      const pruned = oddEvenMergeSort(n, middle);
      assert.ok(n < 5 || pruned.length < oddEvenMergeSort(n).length, `n ${n}: nothing pruned`);
      for (let trial = 0; trial < 5; trial++) {
        const input = Array.from({ length: n }, () => next());
        const sorted = [...input].sort((a, b) => a - b);
        const got = run(pruned, input);
        for (const m of middle) assert.equal(got[m], sorted[m], `n ${n}, position ${m}`);
      }
    }
  });

  it("refuses an output that is not a wire", () => {
    assert.throws(() => oddEvenMergeSort(4, [4]), /output 4 is not a wire of 4/);
  });
});
