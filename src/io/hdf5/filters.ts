/**
 * Undoing a chunk's filter pipeline on the calling thread (a job's threads decode their chunks
 * in parallel): deflate (inflate.ts), shuffle in a tight loop or a kernel, fletcher32 verified
 * and stripped. Any other filter, or a chunk that skipped a filter, is unsupported.
 */
import { endianness } from "node:os";
import { type ReversedRows, kernelStagingFor, unshuffleIntoKernel } from "../../kernels/arena.js";
import { flipRows } from "../flipRows.js";
import { chunkInflater } from "./inflate.js";
import type { Filter } from "./messages.js";
import { Hdf5FormatError, Hdf5UnsupportedError } from "./source.js";

/** Bytes a deflated chunk may hold beyond its values (a checksum filtered after it). */
export const INFLATE_SLACK = 1024;

export const FilterId = { deflate: 1, shuffle: 2, fletcher32: 3 } as const;
const SUPPORTED = new Set<number>(Object.values(FilterId));

/** Why this pipeline cannot be read here, or undefined if it can. */
export function unsupportedFilter(filters: readonly Filter[]): string | undefined {
  const other = filters.find((f) => !SUPPORTED.has(f.id));
  return other ? `HDF5 filter ${other.id}${other.name ? ` (${other.name})` : ""}` : undefined;
}

/**
 * The chunk's bytes as the datatype stores them, `chunkBytes` long, with the rows of each
 * plane last to first when `reversed` says so. When the last step is the unshuffle and `into`
 * is given, it writes there, so a whole-chunk read needs no extra copy (and, into a kernel's
 * run, reverses the rows as it goes).
 */
export function decodeChunk(
  stored: Buffer,
  filters: readonly Filter[],
  filterMask: number,
  chunkBytes: number,
  elementSize: number,
  into?: Uint8Array,
  reversed?: ReversedRows,
): Uint8Array {
  if (filterMask !== 0 && filters.some((_, i) => filterMask & (1 << i))) {
    throw new Hdf5UnsupportedError("a chunk stored with some of its filters skipped");
  }
  let data: Uint8Array = stored;
  let rowsDone = !reversed;
  for (let i = filters.length - 1; i >= 0; i--) {
    const filter = filters[i];
    const last = i === 0;
    switch (filter.id) {
      case FilterId.deflate: {
        // Room to spare, so a stream longer than the chunk shows as one. The unshuffle copies
        // the values out at once, so before it the chunk inflates into memory reused: the
        // staging array of the kernel it unshuffles into, or else the thread's own buffer.
        const room = chunkBytes + INFLATE_SLACK;
        const inflater = chunkInflater();
        if (!last && filters[i - 1].id === FilterId.shuffle) {
          const staging = i === 1 && into ? kernelStagingFor(into, room) : undefined;
          data = staging ? staging.subarray(0, inflater.into(data, staging)) : inflater.scratchFor(data, room);
        } else {
          const out = new Uint8Array(room);
          data = out.subarray(0, inflater.into(data, out));
        }
        break;
      }
      case FilterId.shuffle: {
        const size = filter.clientData[0] ?? elementSize;
        const target = last && into ? into : new Uint8Array(data.length);
        // Into a kernel's run: its SIMD loop, where the kernel takes the values, rows reversed as it goes.
        const kernelRows = last ? reversed : undefined;
        if (unshuffleIntoKernel(data, size, target, kernelRows)) rowsDone ||= kernelRows !== undefined;
        else unshuffle(data, size, target);
        data = target;
        break;
      }
      case FilterId.fletcher32:
        data = checkFletcher32(data);
        break;
      default:
        throw new Hdf5UnsupportedError(`HDF5 filter ${filter.id}`);
    }
  }
  if (data.length !== chunkBytes) throw new Hdf5FormatError(`a chunk decoded to ${data.length} bytes instead of ${chunkBytes}`);
  return rowsDone ? data : flipRows(data, reversed!.rows, reversed!.rowBytes);
}

const LITTLE_ENDIAN_HOST = endianness() === "LE";

/** Shuffle stores byte k of every element together; put each element's bytes back side by side. */
export function unshuffle(src: Uint8Array, size: number, dst: Uint8Array): Uint8Array {
  const n = Math.floor(src.length / size);
  if (size <= 1 || n <= 1) {
    dst.set(src);
    return dst;
  }
  // Whole words at a time where the output is aligned: one store per element, not `size`.
  if (LITTLE_ENDIAN_HOST && dst.byteOffset % 4 === 0 && (size === 2 || size === 4 || size === 8)) {
    unshuffleWords(src, size, n, dst);
  } else {
    for (let k = 0; k < size; k++) {
      const plane = k * n;
      for (let i = 0, j = k; i < n; i++, j += size) dst[j] = src[plane + i];
    }
  }
  // Bytes beyond whole elements were left in place by the shuffle filter.
  const tail = n * size;
  if (tail < src.length) dst.set(src.subarray(tail), tail);
  return dst;
}

function unshuffleWords(src: Uint8Array, size: number, n: number, dst: Uint8Array): void {
  if (size === 2) {
    const out = new Uint16Array(dst.buffer, dst.byteOffset, n);
    for (let i = 0; i < n; i++) out[i] = src[i] | (src[n + i] << 8);
    return;
  }
  const out = new Uint32Array(dst.buffer, dst.byteOffset, (n * size) >> 2);
  const words = size >> 2;
  if (size === 4 && src.byteOffset % 4 === 0 && n % 4 === 0) {
    // Four elements per step: one word from each byte plane, transposed as a 4x4 byte block.
    const planes = new Uint32Array(src.buffer, src.byteOffset, n);
    const q = n >> 2;
    for (let i = 0, o = 0; i < q; i++, o += 4) {
      const a = planes[i];
      const b = planes[q + i];
      const c = planes[2 * q + i];
      const d = planes[3 * q + i];
      out[o] = (a & 0xff) | ((b & 0xff) << 8) | ((c & 0xff) << 16) | (d << 24);
      out[o + 1] = ((a >>> 8) & 0xff) | (b & 0xff00) | ((c & 0xff00) << 8) | ((d >>> 8) << 24);
      out[o + 2] = ((a >>> 16) & 0xff) | ((b >>> 8) & 0xff00) | (c & 0xff0000) | ((d >>> 16) << 24);
      out[o + 3] = (a >>> 24) | ((b >>> 16) & 0xff00) | ((c >>> 8) & 0xff0000) | ((d >>> 24) << 24);
    }
    return;
  }
  for (let w = 0; w < words; w++) {
    const p0 = 4 * w * n;
    const p1 = p0 + n;
    const p2 = p1 + n;
    const p3 = p2 + n;
    for (let i = 0, j = w; i < n; i++, j += words) out[j] = src[p0 + i] | (src[p1 + i] << 8) | (src[p2 + i] << 16) | (src[p3 + i] << 24);
  }
}

/** Verify the trailing Fletcher-32 checksum (as HDF5 computes it, or byte-swapped as before 1.6.3) and drop it. */
function checkFletcher32(data: Uint8Array): Uint8Array {
  if (data.length < 4) throw new Hdf5FormatError("a fletcher32 chunk shorter than its checksum");
  const body = data.subarray(0, data.length - 4);
  const t = data.length - 4;
  const stored = (data[t] | (data[t + 1] << 8) | (data[t + 2] << 16) | (data[t + 3] << 24)) >>> 0;
  const sum = fletcher32(body);
  const swapped = (((sum & 0xff) << 24) | ((sum & 0xff00) << 8) | ((sum >>> 8) & 0xff00) | (sum >>> 24)) >>> 0;
  if (stored !== sum && stored !== swapped) throw new Hdf5FormatError("a chunk fails its fletcher32 checksum");
  return body;
}

function fletcher32(data: Uint8Array): number {
  let sum1 = 0;
  let sum2 = 0;
  let words = data.length >> 1;
  let p = 0;
  while (words > 0) {
    let run = Math.min(words, 360);
    words -= run;
    while (run-- > 0) {
      sum1 += (data[p] << 8) | data[p + 1];
      p += 2;
      sum2 += sum1;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  if (data.length & 1) {
    sum1 += data[p] << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  return ((sum2 << 16) | sum1) >>> 0;
}
