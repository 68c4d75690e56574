/**
 * Index arithmetic in C order: every combination of indices along some dimensions (the
 * slices of a variable, the values of the dimensions an analysis does not run along, the
 * chunks of a block), last dimension fastest, and the strides of an array laid out so.
 */

/**
 * The k-th combination of indices for dimensions of the given sizes, last fastest.
 * @example
 * combinationAt(5, [2, 3]); // [1, 2]
 */
export function combinationAt(k: number, sizes: readonly number[]): number[] {
  const at = new Array<number>(sizes.length);
  let rem = k;
  for (let d = sizes.length - 1; d >= 0; d--) {
    at[d] = rem % sizes[d];
    rem = Math.floor(rem / sizes[d]);
  }
  return at;
}

/**
 * How many combinations there are: the product of the sizes (1 for none).
 * @example
 * combinationCount([2, 3]); // 6
 */
export function combinationCount(sizes: readonly number[]): number {
  return sizes.reduce((n, s) => n * s, 1);
}

/**
 * Elements between consecutive indices along each dimension of a C-order array.
 * @example
 * strides([2, 3, 4]); // [12, 4, 1]
 */
export function strides(shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    out[d] = s;
    s *= shape[d];
  }
  return out;
}
