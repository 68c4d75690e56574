/**
 * Typed arrays laid end to end as bytes and back: how a share's accumulators travel to
 * whoever merges them (a scratch file today, an object store tomorrow).
 */

type Packable = Float64Array | Float32Array | Uint32Array | Int32Array | Uint8Array;

/**
 * @example
 * const bytes = packArrays([sums, counts]); unpackInto([sums2, counts2], bytes);
 */
export function packArrays(arrays: readonly Packable[]): Uint8Array {
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.byteLength, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  return out;
}

/** Fill `arrays` (already of the right lengths) from `bytes`; a size mismatch is a RangeError. */
export function unpackInto(arrays: readonly Packable[], bytes: Uint8Array): void {
  const expected = arrays.reduce((n, a) => n + a.byteLength, 0);
  if (bytes.byteLength !== expected) throw new RangeError(`accumulator bytes: expected ${expected}, got ${bytes.byteLength}`);
  let at = 0;
  for (const a of arrays) {
    new Uint8Array(a.buffer, a.byteOffset, a.byteLength).set(bytes.subarray(at, at + a.byteLength));
    at += a.byteLength;
  }
}
