/**
 * Read a hyperslab of an array stored contiguously (in C order) in a byte source, as NetCDF-3
 * stores its variables: a handful of positional reads per slice, each covering only the
 * rows the window touches, with byte-order conversion in place.
 */
import type { TypedArray } from "../cube/types.js";
import { type RawDtype, arrayToFill, bytesPerElement, typedArrayFor } from "./raw.js";

export interface HyperslabSource {
  readonly shape: readonly number[];
  readonly dtype: RawDtype;
  readonly bigEndian: boolean;
  /**
   * Trailing dimensions within which elements are contiguous: all of them for a fixed
   * NetCDF-3 variable, all but the record dimension for a record variable.
   */
  readonly contiguousDims: number;
  /** Byte position of the element at these indices. */
  position(index: readonly number[]): number;
  readBytes(into: Uint8Array, position: number): Promise<void>;
}

/** Reading a few unwanted columns is cheaper than many small reads, up to this size. */
const MAX_SPAN_BYTES = 8 * 1024 * 1024;

export async function readHyperslab(
  src: HyperslabSource,
  start: readonly number[],
  count: readonly number[],
  signal?: AbortSignal,
  into?: TypedArray,
): Promise<TypedArray> {
  const nd = src.shape.length;
  const total = count.reduce((a, b) => a * b, 1);
  const out = arrayToFill(src.dtype, total, into);
  if (total === 0) return out;
  const bpe = bytesPerElement(src.dtype);
  const planeDims = Math.min(2, src.contiguousDims, nd);
  const outerDims = nd - planeDims;
  const rows = planeDims === 2 ? count[nd - 2] : 1;
  const cols = planeDims >= 1 ? count[nd - 1] : 1;
  const width = planeDims >= 1 ? src.shape[nd - 1] : 1;
  const wholeRows = cols === width;
  const spanElements = planeDims === 2 ? (rows - 1) * width + cols : cols;
  const oneSpan = wholeRows || spanElements * bpe <= MAX_SPAN_BYTES;
  const bufElements = oneSpan ? spanElements : cols;
  const buf = new Uint8Array(bufElements * bpe);
  const view = viewOf(src.dtype, buf.buffer);
  const index = start.slice();
  let o = 0;
  const outerCount = count.slice(0, outerDims).reduce((a, b) => a * b, 1);
  for (let k = 0; k < outerCount; k++) {
    signal?.throwIfAborted();
    // Outer indices of the k-th outer tuple, last fastest.
    let rem = k;
    for (let d = outerDims - 1; d >= 0; d--) {
      index[d] = start[d] + (rem % count[d]);
      rem = Math.floor(rem / count[d]);
    }
    if (oneSpan) {
      await src.readBytes(buf, src.position(index));
      swapIfNeeded(src, buf);
      if (wholeRows) {
        out.set(view.subarray(0, spanElements) as never, o);
        o += spanElements;
      } else {
        for (let r = 0; r < rows; r++) {
          out.set(view.subarray(r * width, r * width + cols) as never, o);
          o += cols;
        }
      }
    } else {
      for (let r = 0; r < rows; r++) {
        index[nd - 2] = start[nd - 2] + r;
        await src.readBytes(buf, src.position(index));
        swapIfNeeded(src, buf);
        out.set(view.subarray(0, cols) as never, o);
        o += cols;
      }
      index[nd - 2] = start[nd - 2];
    }
  }
  return out;
}

function viewOf(dtype: RawDtype, buffer: ArrayBufferLike): TypedArray {
  const proto = typedArrayFor(dtype, 0).constructor as new (b: ArrayBufferLike) => TypedArray;
  return new proto(buffer);
}

function swapIfNeeded(src: HyperslabSource, buf: Uint8Array): void {
  if (!src.bigEndian) return;
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = bytesPerElement(src.dtype);
  if (n === 2) b.swap16();
  else if (n === 4) b.swap32();
  else if (n === 8) b.swap64();
}
