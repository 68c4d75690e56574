/**
 * The exactness tests Sen's slope relies on to count tied slopes, against exact rational
 * arithmetic written here with BigInt (every double is m·2^e), on hand-picked and random cases.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { differencesExact, keyExact } from "../../src/analysis/exactArithmetic.js";

/** A finite double as m·2^e exactly. */
function rational(v: number): { m: bigint; e: number } {
  if (v === 0) return { m: 0n, e: 0 };
  let e = 0;
  let m = v;
  while (!Number.isInteger(m)) {
    m *= 2;
    e--;
  }
  while (Math.abs(m) > Number.MAX_SAFE_INTEGER) {
    m /= 2;
    e++;
  }
  return { m: BigInt(m), e };
}

/** Whether the exact real m·2^e is a double. */
function isDouble(m: bigint, e: number): boolean {
  if (m === 0n) return true;
  const back = rational(Number(m) * 2 ** e);
  const shift = back.e - e;
  const scaled = shift >= 0 ? back.m * 2n ** BigInt(shift) === m : m * 2n ** BigInt(-shift) === back.m;
  return Number.isFinite(Number(m) * 2 ** e) && scaled;
}

function exactDifference(a: number, b: number): boolean {
  const x = rational(a);
  const y = rational(b);
  const e = Math.min(x.e, y.e);
  return isDouble(x.m * 2n ** BigInt(x.e - e) - y.m * 2n ** BigInt(y.e - e), e);
}

function exactKey(x: number, y: number, t: number): boolean {
  const p = rational(t * x);
  const tx = rational(t);
  const xx = rational(x);
  const productM = tx.m * xx.m;
  const productE = tx.e + xx.e;
  // t·x rounded to nothing: its double is the exact product.
  const e = Math.min(p.e, productE);
  if (p.m * 2n ** BigInt(p.e - e) !== productM * 2n ** BigInt(productE - e)) return false;
  return exactDifference(y, t * x);
}

let seed = 7;
const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;

describe("exact arithmetic tests", () => {
  it("differences of values spanning at most 52 bits are exact; wider, not claimed", () => {
    assert.equal(differencesExact([1, 2, 3, 0, -7.5], 0, 5), true);
    assert.equal(differencesExact([2 ** 52, 0.5], 0, 2), false); // 2^52 − 0.5 needs 54 bits
    assert.equal(differencesExact([2 ** 50, 0.5], 0, 2), true);
    assert.equal(differencesExact([0.1, 0.3], 0, 2), false); // bits 2^-2 down to 2^-55: not claimed
    assert.equal(differencesExact([0.75, 0.5, 1.25], 0, 3), true);
    assert.equal(differencesExact([1, NaN], 0, 2), false);
    assert.equal(differencesExact([1, Infinity], 0, 2), false);
    assert.equal(differencesExact([1, 2 ** -1074], 0, 2), false); // subnormal
    assert.equal(differencesExact([0, 0], 0, 2), true);
    assert.equal(differencesExact([5, NaN, 6], 0, 1), true); // only the range asked
    // A day's float32 values over four years, against days since 1970.
    const y = Float64Array.from({ length: 1461 }, (_, t) => Math.fround(t + 0.017033));
    assert.equal(differencesExact(y, 0, y.length), true);
  });

  it("when differencesExact says exact, every difference is (random float32 and double series)", () => {
    for (let trial = 0; trial < 300; trial++) {
      const n = 2 + Math.floor(random() * 20);
      const scale = 2 ** Math.floor(random() * 40 - 20);
      const values = Array.from({ length: n }, () => {
        const v = (random() - 0.5) * scale;
        return trial % 3 === 0 ? v : trial % 3 === 1 ? Math.fround(v) : Math.round(v * 1024) / 1024;
      });
      if (!differencesExact(values, 0, n)) continue;
      for (const a of values) for (const b of values) assert.ok(exactDifference(a, b), `${a} − ${b}`);
    }
  });

  it("keyExact is true exactly when y − t·x has no rounding", () => {
    assert.equal(keyExact(10957, 1.5, 1), true);
    assert.equal(keyExact(3, 0.1, 0.1), false); // 0.1·3 rounds
    assert.equal(keyExact(1, 1, 0.1), false); // 1 − 0.1 rounds
    assert.equal(keyExact(4, 1, 0.25), true);
    assert.equal(keyExact(1e300, 1, 1e10), false); // overflows
    assert.equal(keyExact(2 ** -600, 0, 2 ** -500), false); // underflows
    let exact = 0;
    for (let trial = 0; trial < 20_000; trial++) {
      const x = trial % 2 ? 10957 + Math.floor(random() * 1461) : (random() - 0.5) * 2 ** Math.floor(random() * 30);
      const kind = trial % 5;
      const t = kind === 0 ? 1 : kind === 1 ? Math.round(random() * 64) / 16 : kind === 2 ? Math.fround(random()) : (random() - 0.5) * 1e-3;
      const y = kind === 4 ? Math.fround(t * x + random()) : Math.fround(random() * 2000);
      const want = exactKey(x, y, t);
      assert.equal(keyExact(x, y, t), want, `x ${x} y ${y} t ${t}`);
      if (want) exact++;
    }
    assert.ok(exact > 2000 && exact < 18_000, `both outcomes are tried (${exact} exact)`);
  });
});
