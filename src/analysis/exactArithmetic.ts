/**
 * Tests that floating-point steps are exact (no rounding), so that a comparison made on their
 * results is the comparison of the real numbers: used by Sen's slope to count ties exactly.
 */

const word = new Float64Array(1);
const bits = new Uint32Array(word.buffer);
const LOW = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/** Veltkamp's splitter for doubles: 2^27 + 1. */
const SPLITTER = 134217729;

/**
 * True when every difference of two of values[from..to) is a double exactly: all are finite
 * and normal, and between them they span at most 52 bits (the highest bit of the largest
 * magnitude down to the lowest set bit of any), so a difference needs at most 53.
 */
export function differencesExact(values: ArrayLike<number>, from: number, to: number): boolean {
  let highest = -Infinity;
  let lowest = Infinity;
  for (let i = from; i < to; i++) {
    const v = values[i];
    if (v === 0) continue;
    word[0] = v;
    const lo = bits[LOW];
    const hi = bits[1 - LOW];
    const exponent = (hi >>> 20) & 0x7ff;
    if (exponent === 0 || exponent === 0x7ff) return false; // subnormal, infinite or NaN
    // The lowest set bit of the 53-bit significand (the leading 1 included).
    const significandHigh = (hi & 0xfffff) | 0x100000;
    const zeros = lo !== 0 ? 31 - Math.clz32(lo & -lo) : 32 + 31 - Math.clz32(significandHigh & -significandHigh);
    const e = exponent - 1023;
    if (e > highest) highest = e;
    if (e - 52 + zeros < lowest) lowest = e - 52 + zeros;
  }
  return highest === -Infinity || highest - lowest <= 51;
}

/** True when y − t·x is computed without rounding (the product and the difference both exact). */
export function keyExact(x: number, y: number, t: number): boolean {
  const p = t * x;
  // Near underflow the product's error is not itself exact.
  if (!Number.isFinite(p) || (p === 0 ? t !== 0 && x !== 0 : Math.abs(p) < 2 ** -969)) return false;
  // Dekker's product error: zero when t·x is a double.
  let c = SPLITTER * t;
  const tHigh = c - (c - t);
  const tLow = t - tHigh;
  c = SPLITTER * x;
  const xHigh = c - (c - x);
  const xLow = x - xHigh;
  if (tHigh * xHigh - p + tHigh * xLow + tLow * xHigh + tLow * xLow !== 0) return false;
  // Knuth's two-sum error of y + (−p): zero when the difference is a double.
  const s = y - p;
  const pPart = s - y;
  return y - (s - pPart) + (-p - pPart) === 0;
}
