/**
 * A stable sort of float64 keys that counts the pairs it reverses (the inversions), for the
 * Kendall tests (kendall.ts): S is a count of pairs in decreasing order, and each cut of
 * Sen's slope selection is one.
 *
 * An LSD radix sort on the keys' bits (11-bit digits, a digit all keys share skipped: data
 * stored as float32 leave the low 29 bits zero), then the inversions counted with a Fenwick
 * tree over the original positions. A comparison merge sort does the same in O(n log n) but
 * mispredicts a branch on nearly every step; this runs about twice as fast on series of a few
 * thousand values.
 *
 * ```ts
 * const sorter = inversionSorter(4);
 * const key = Float64Array.of(3, 1, 2, 1);
 * const order = Int32Array.of(0, 1, 2, 3);
 * sorter.sort(key, order, 0, 4, true); // 4: (3,1) (3,2) (3,1) (2,1); key 1,1,2,3; order 1,3,2,0
 * ```
 */

const DIGIT_BITS = 8;
const BUCKETS = 1 << DIGIT_BITS;
const MASK = BUCKETS - 1;
const PASSES = 64 / DIGIT_BITS;

export interface InversionSorter {
  /**
   * Sorts key[from..to) ascending, moving order[from..to) along, and returns how many pairs
   * it reverses: a later key smaller (strict) or smaller or equal (not strict). Equal keys
   * keep their order when strict and are reversed otherwise. Keys must not be NaN.
   */
  sort(key: Float64Array, order: Int32Array, from: number, to: number, strict: boolean): number;
}

/** A sorter for up to n keys at a time (its buffers are reused). */
export function inversionSorter(n: number): InversionSorter {
  const values = new Float64Array(n);
  const words = new Uint32Array(values.buffer); // little-endian: low word, high word
  const position = new Int32Array(n);
  const positionTmp = new Int32Array(n);
  const counts = new Int32Array(PASSES * BUCKETS);
  const tree = new Int32Array(n + 1);
  const keyTmp = new Float64Array(n);
  const orderTmp = new Int32Array(n);

  /** Sorts position[0..size) by the sortable bits in words; returns the sorted array. */
  function radix(size: number): Int32Array {
    counts.fill(0);
    for (let i = 0; i < size; i++) {
      let lo = words[2 * i];
      let hi = words[2 * i + 1];
      // Order-preserving unsigned bits: negatives flipped whole, positives with the sign set.
      if (hi >>> 31) {
        hi = ~hi >>> 0;
        lo = ~lo >>> 0;
      } else hi = (hi | 0x80000000) >>> 0;
      words[2 * i] = lo;
      words[2 * i + 1] = hi;
      position[i] = i;
      counts[lo & MASK]++;
      counts[BUCKETS + ((lo >>> 8) & MASK)]++;
      counts[2 * BUCKETS + ((lo >>> 16) & MASK)]++;
      counts[3 * BUCKETS + (lo >>> 24)]++;
      counts[4 * BUCKETS + (hi & MASK)]++;
      counts[5 * BUCKETS + ((hi >>> 8) & MASK)]++;
      counts[6 * BUCKETS + ((hi >>> 16) & MASK)]++;
      counts[7 * BUCKETS + (hi >>> 24)]++;
    }
    let src = position;
    let dst = positionTmp;
    for (let pass = 0; pass < PASSES; pass++) {
      const base = pass * BUCKETS;
      let sum = 0;
      let shared = false;
      for (let b = 0; b < BUCKETS; b++) {
        const c = counts[base + b];
        if (c === size) shared = true;
        counts[base + b] = sum;
        sum += c;
      }
      if (shared) continue;
      const word = pass >> 2;
      const shift = (pass & 3) * DIGIT_BITS;
      for (let k = 0; k < size; k++) {
        const i = src[k];
        dst[counts[base + ((words[2 * i + word] >>> shift) & MASK)]++] = i;
      }
      const t = src;
      src = dst;
      dst = t;
    }
    return src;
  }

  return {
    sort(key, order, from, to, strict) {
      const size = to - from;
      if (size < 2) return 0;
      for (let i = 0; i < size; i++) values[i] = key[from + i] + 0; // -0 becomes +0
      const sorted = radix(size);
      // Pairs reversed: for each key in sorted order, the keys placed before it that started
      // after it.
      tree.fill(0, 0, size + 1);
      let count = 0;
      for (let k = 0; k < size; k++) {
        const p = sorted[k];
        let notAfter = 0;
        for (let i = p + 1; i > 0; i -= i & -i) notAfter += tree[i];
        count += k - notAfter;
        for (let i = p + 1; i <= size; i += i & -i) tree[i]++;
        keyTmp[k] = key[from + p];
        orderTmp[k] = order[from + p];
      }
      if (!strict) count += reverseEqualRuns(keyTmp, orderTmp, size);
      key.set(keyTmp.subarray(0, size), from);
      order.set(orderTmp.subarray(0, size), from);
      return count;
    },
  };
}

/** Reverses each run of equal keys (moving order along); returns the pairs within the runs. */
function reverseEqualRuns(key: Float64Array, order: Int32Array, size: number): number {
  let pairs = 0;
  for (let a = 0; a < size;) {
    let b = a + 1;
    while (b < size && key[b] === key[a]) b++;
    const run = b - a;
    if (run > 1) {
      pairs += (run * (run - 1)) / 2;
      key.subarray(a, b).reverse(); // equal, but 0 and −0 stay with their own order
      order.subarray(a, b).reverse();
    }
    a = b;
  }
  return pairs;
}
