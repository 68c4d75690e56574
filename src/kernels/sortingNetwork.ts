/**
 * Sorting networks for the SIMD kernels: a fixed list of comparators (i, j), i < j, each
 * putting the smaller of two wires on i and the larger on j. A network's comparisons do not
 * depend on the values, so a kernel runs it on several series at once, one per SIMD lane,
 * without a branch to mispredict (assembly/groupMedian.ts).
 */

/**
 * Batcher's odd-even merge sort of n wires: that of the next power of two, less the
 * comparators that touch a wire ≥ n (padding the input with +Infinity makes those no-ops),
 * about n·log²n/4 comparators. With `outputs`, only the comparators those positions depend
 * on: the rest of the wires end unsorted.
 * @example
 * const pairs = oddEvenMergeSort(5); // [0, 1, 2, 3, 0, 2, 1, 3, 1, 2, 0, 4, 2, 4, 1, 2, 3, 4] as i, j pairs
 * const median = oddEvenMergeSort(121, [60]); // enough to put the median at wire 60
 */
export function oddEvenMergeSort(n: number, outputs?: readonly number[]): Int32Array {
  let N = 1;
  while (N < n) N *= 2;
  const pairs: number[] = [];
  for (let p = 1; p < N; p *= 2) {
    for (let k = p; k >= 1; k /= 2) {
      for (let j = k % p; j + k < N; j += 2 * k) {
        for (let i = 0; i < k && i + j + k < N; i++) {
          const a = i + j;
          const b = a + k;
          if (Math.floor(a / (2 * p)) === Math.floor(b / (2 * p)) && b < n) pairs.push(a, b);
        }
      }
    }
  }
  return outputs ? prunedTo(pairs, n, outputs) : Int32Array.from(pairs);
}

/** The comparators of `pairs` that some wire of `outputs` depends on, in order. */
function prunedTo(pairs: readonly number[], n: number, outputs: readonly number[]): Int32Array {
  const live = new Uint8Array(n);
  for (const o of outputs) {
    if (!(o >= 0 && o < n)) throw new RangeError(`output ${o} is not a wire of ${n}`);
    live[o] = 1;
  }
  const kept: number[] = [];
  for (let c = pairs.length - 2; c >= 0; c -= 2) {
    const [a, b] = [pairs[c], pairs[c + 1]];
    if (!live[a] && !live[b]) continue;
    live[a] = live[b] = 1;
    kept.push(b, a);
  }
  return Int32Array.from(kept.reverse());
}
