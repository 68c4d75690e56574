/** Combinations of indices, last dimension fastest (hand-worked). */
import assert from "node:assert/strict";
import { it } from "node:test";
import { combinationAt, combinationCount, strides } from "../../src/cube/combinations.js";

it("walks every combination once, last dimension fastest", () => {
  const sizes = [2, 1, 3];
  assert.equal(combinationCount(sizes), 6);
  assert.deepEqual(
    Array.from({ length: 6 }, (_, k) => combinationAt(k, sizes)),
    [
      [0, 0, 0],
      [0, 0, 1],
      [0, 0, 2],
      [1, 0, 0],
      [1, 0, 1],
      [1, 0, 2],
    ],
  );
  assert.equal(combinationCount([]), 1);
  assert.deepEqual(combinationAt(0, []), []);
});

it("gives C-order strides (hand-worked)", () => {
  assert.deepEqual(strides([2, 3, 4]), [12, 4, 1]);
  assert.deepEqual(strides([5]), [1]);
  assert.deepEqual(strides([]), []);
});
