/**
 * Reversing the rows of every plane of a C-order array (the last two dimensions), in place:
 * a grid stored south-up read north-up. Readers do it as they read (RawVariable.read's
 * rowsReversed); the HDF5 chunk reader instead unshuffles into reversed rows where it can.
 */
import type { TypedArray } from "../cube/types.js";

/** `data` with the rows (runs of `columns` values) of each plane of `rows` rows last to first; returns it. */
export function flipRows<T extends TypedArray>(data: T, rows: number, columns: number): T {
  // Moved as bytes, through a row of its own (a Buffer's slice would be a view, not a copy).
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const row = columns * data.BYTES_PER_ELEMENT;
  const plane = rows * row;
  const tmp = new Uint8Array(row);
  for (let p = 0; p + plane <= bytes.length; p += plane) {
    for (let r = 0; r < rows >> 1; r++) {
      const a = p + r * row;
      const b = p + (rows - 1 - r) * row;
      tmp.set(bytes.subarray(a, a + row));
      bytes.copyWithin(a, b, b + row);
      bytes.set(tmp, b);
    }
  }
  return data;
}
