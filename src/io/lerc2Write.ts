/**
 * LERC2 encoder (Esri's Limited Error Raster Compression, blob version 3): what ArcGIS image
 * services answer for `format=lerc` and for cached tiles, and what the Maps SDK's
 * ImageryLayer and ImageryTileLayer decode. npm has decoders only, so Strata writes its own,
 * after the format as Esri's LERC library defines it (github.com/Esri/lerc, Lerc2.cpp,
 * BitStuffer2.cpp, RLE.cpp); the tests read it back with the `lerc` package (Esri's own
 * decoder compiled to WebAssembly).
 *
 * A blob holds one band: a header (size, pixel type, valid-pixel count, maxZError, range),
 * the valid-pixel mask run-length encoded, then the values in micro blocks of 8×8 (or
 * 16×16, whichever is smaller), each block either constant, raw, or quantised to
 * `(z - blockMin) / (2 maxZError)` and bit-stuffed at the fewest bits its range needs, or
 * through a lookup table of its distinct values when a few of them repeat a lot.
 * Several bands are several blobs, one after another, as ArcGIS writes a multiband raster.
 *
 * maxZError is the largest error a value may take. Integers are never coarser than 0.5,
 * which is lossless for them; 0 keeps floats exact (their varying blocks are then stored
 * raw, as LERC2 v3 does).
 */
import { InvalidInputError } from "../cube/errors.js";
import type { TypedArray } from "../cube/types.js";

/** One band of a LERC2 blob. */
export interface Lerc2Band {
  /** width × height values, row-major; the array's class is the blob's pixel type. */
  readonly values: TypedArray;
  /** 1 where a pixel holds a value, 0 where it has none; omitted, every pixel holds one. */
  readonly valid?: Uint8Array;
}

export interface Lerc2Options {
  /** The largest error a value may take; default 0 (lossless). */
  readonly maxZError?: number;
}

/** LERC2's data type codes (Lerc2::DataType). */
const enum DataType {
  Char = 0,
  Byte = 1,
  Short = 2,
  UShort = 3,
  Int = 4,
  UInt = 5,
  Float = 6,
  Double = 7,
}

const VERSION = 3;
const FILE_KEY = "Lerc2 ";
/** Key, version, checksum, six int32 and three float64. */
const HEADER_BYTES = 6 + 4 + 4 + 6 * 4 + 3 * 8;
/** Where the checksum sits, and where the bytes it covers begin. */
const CHECKSUM_AT = 10;
const CHECKSUM_FROM = 14;

/** Bytes a value of each data type takes, by code. */
const BYTES: readonly number[] = [1, 1, 2, 2, 4, 4, 4, 8];

/**
 * A LERC2 blob of one or more bands, all `width` × `height`.
 * @example
 * const blob = encodeLerc2([{ values: new Float32Array(256 * 256), valid }], 256, 256, { maxZError: 0.01 });
 */
export function encodeLerc2(bands: readonly Lerc2Band[], width: number, height: number, options: Lerc2Options = {}): Uint8Array {
  if (bands.length === 0) throw new InvalidInputError("a LERC2 blob needs at least one band");
  const requested = options.maxZError ?? 0;
  if (!(requested >= 0) || !Number.isFinite(requested)) {
    throw new InvalidInputError(`compressionTolerance must be a number ≥ 0; got ${requested}`, { parameter: "compressionTolerance" });
  }
  const blobs = bands.map((band) => encodeBand(band, width, height, requested));
  if (blobs.length === 1) return blobs[0];
  const out = new Uint8Array(blobs.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of blobs) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

function dataTypeOf(values: TypedArray): DataType {
  if (values instanceof Int8Array) return DataType.Char;
  if (values instanceof Uint8Array) return DataType.Byte;
  if (values instanceof Int16Array) return DataType.Short;
  if (values instanceof Uint16Array) return DataType.UShort;
  if (values instanceof Int32Array) return DataType.Int;
  if (values instanceof Uint32Array) return DataType.UInt;
  if (values instanceof Float32Array) return DataType.Float;
  if (values instanceof Float64Array) return DataType.Double;
  throw new InvalidInputError("LERC2 holds 8, 16 and 32-bit integers and 32 and 64-bit floats only");
}

/** Everything a band's blocks are written with. */
interface BandLayout {
  readonly values: TypedArray;
  readonly valid: Uint8Array | undefined;
  readonly width: number;
  readonly height: number;
  readonly dt: DataType;
  readonly maxZError: number;
  /** The largest quantised value a block may take before it is stored raw (Lerc2::GetMaxValToQuantize). */
  readonly maxQuantised: number;
}

function encodeBand(band: Lerc2Band, width: number, height: number, requested: number): Uint8Array {
  const { values } = band;
  const n = width * height;
  if (values.length !== n) throw new InvalidInputError(`a LERC2 band of ${width}×${height} needs ${n} values; got ${values.length}`);
  if (band.valid && band.valid.length !== n) throw new InvalidInputError(`a LERC2 mask of ${width}×${height} needs ${n} entries`);
  const dt = dataTypeOf(values);
  const floating = dt === DataType.Float || dt === DataType.Double;
  // Integers: 0.5 is lossless, and errors come in whole steps (Lerc2::ComputeNumBytesNeededToWrite).
  const maxZError = floating ? requested : Math.max(0.5, Math.floor(requested));

  // A float NaN has no value either: it goes into the mask.
  let valid = band.valid;
  if (floating) {
    for (let i = 0; i < n; i++) {
      if (values[i] !== values[i] && (!valid || valid[i])) {
        valid = Uint8Array.from(valid ?? new Uint8Array(n).fill(1));
        for (let k = i; k < n; k++) if (values[k] !== values[k]) valid[k] = 0;
        break;
      }
    }
  }
  let count = 0;
  let zMin = Infinity;
  let zMax = -Infinity;
  for (let i = 0; i < n; i++) {
    if (valid && !valid[i]) continue;
    const z = values[i];
    count++;
    if (z < zMin) zMin = z;
    if (z > zMax) zMax = z;
  }
  // A mask is stored only when some pixels are valid and some not (Lerc2::WriteMask).
  if (count === n || count === 0) valid = undefined;
  const layout: BandLayout = {
    values,
    valid,
    width,
    height,
    dt,
    maxZError,
    maxQuantised: dt <= DataType.UShort ? (1 << 15) - 1 : (1 << 30) - 1,
  };

  const mask = valid ? runLengthEncode(packMask(valid)) : new Uint8Array(0);
  const out = new ByteWriter(HEADER_BYTES + 4 + mask.length + 2);
  out.text(FILE_KEY);
  out.int32(VERSION);
  out.uint32(0); // the checksum, filled in last
  out.int32(height);
  out.int32(width);
  out.int32(count);
  const blobSizeAt = out.length + 4;
  out.int32(8); // micro block size, set below
  out.int32(0); // blob size, set below
  out.int32(dt);
  out.float64(maxZError);
  out.float64(count ? zMin : 0);
  out.float64(count ? zMax : 0);
  out.int32(mask.length);
  out.bytes(mask);

  let blockSize = 8;
  if (count > 0 && zMin !== zMax) {
    // Bigger blocks carry fewer block headers, which matters once blocks take few bits: Esri's
    // encoder tries 16 when 8 gives under 1.5 bits a pixel.
    const tiles8 = writeBlocks(layout, 8);
    const tiles16 = (width > 8 || height > 8) && tiles8.length * 8 < n * 1.5 ? writeBlocks(layout, 16) : undefined;
    const tiles = tiles16 && tiles16.length <= tiles8.length ? tiles16 : tiles8;
    if (tiles === tiles16) blockSize = 16;
    // Huffman is tried for lossless 8-bit data (Lerc2::TryHuffman): say it is not used.
    const modeByte = dt <= DataType.Byte && maxZError === 0.5 ? 1 : 0;
    if (count * BYTES[dt] <= tiles.length + modeByte) {
      out.byte(1); // "one sweep": the valid values uncompressed, row by row
      out.values(dt, valid ? values.filter((_, i) => valid[i] === 1) : values);
    } else {
      out.byte(0);
      if (modeByte) out.byte(0); // tiling, not Huffman
      out.bytes(tiles);
    }
  }
  const blob = out.finish();
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  view.setInt32(blobSizeAt - 4, blockSize, true);
  view.setInt32(blobSizeAt, blob.length, true);
  view.setUint32(CHECKSUM_AT, fletcher32(blob.subarray(CHECKSUM_FROM)), true);
  return blob;
}

/** The micro blocks of a band, left to right and top to bottom, each as small as it can be written. */
function writeBlocks(band: BandLayout, size: number): Uint8Array {
  const { values, valid, width, height, dt } = band;
  // Room for every value raw and a flag a block: no growing (and copying) on the way.
  const out = new ByteWriter(width * height * BYTES[dt] + Math.ceil(width / size) * Math.ceil(height / size));
  const block = new Float64Array(size * size);
  const quantised = new Uint32Array(size * size);
  for (let i0 = 0; i0 < height; i0 += size) {
    const i1 = Math.min(height, i0 + size);
    for (let j0 = 0; j0 < width; j0 += size) {
      const j1 = Math.min(width, j0 + size);
      let count = 0;
      let zMin = Infinity;
      let zMax = -Infinity;
      // Repeats of the previous value: many make a lookup table worth trying (Lerc2::GetValidDataAndStats).
      let repeats = 0;
      let previous = 0;
      for (let i = i0; i < i1; i++) {
        for (let k = i * width + j0, end = i * width + j1; k < end; k++) {
          if (valid && !valid[k]) continue;
          const z = values[k];
          block[count++] = z;
          if (z < zMin) zMin = z;
          if (z > zMax) zMax = z;
          if (z === previous) repeats++;
          previous = z;
        }
      }
      const tryTable = count > 4 && 2 * repeats > count;
      writeBlock(out, band, block.subarray(0, count), quantised, zMin, zMax, j0, dt, tryTable);
    }
  }
  return out.finish();
}

/**
 * One micro block (Lerc2::WriteTile): a flag byte (bits 0-1 the mode, 2-5 a check on the
 * block's column, 6-7 how the offset's type is narrowed) then, by mode, nothing (all zero
 * or no valid pixel), the raw values, or the offset and, unless the block is constant, its
 * quantised values bit-stuffed (through a lookup table when few values repeat a lot).
 */
function writeBlock(
  out: ByteWriter,
  band: BandLayout,
  block: Float64Array,
  quantised: Uint32Array,
  zMin: number,
  zMax: number,
  j0: number,
  dt: DataType,
  tryTable: boolean,
): void {
  const check = ((j0 >> 3) & 15) << 2;
  const count = block.length;
  if (count === 0 || (zMin === 0 && zMax === 0)) {
    out.byte(check | 2);
    return;
  }
  const { maxZError } = band;
  const rawBytes = 1 + count * BYTES[dt];
  // As Lerc2::ComputeMaxVal computes it, so the block's largest value quantises to `top`.
  const scale = maxZError > 0 ? 1 / (2 * maxZError) : 0;
  const range = maxZError > 0 ? (zMax - zMin) * scale : zMin === zMax ? 0 : Infinity;
  if (range <= band.maxQuantised) {
    const [code, offsetType] = narrowOffset(zMin, dt);
    const top = Math.floor(range + 0.5);
    let bits = 0;
    while (top >= 2 ** bits) bits++;
    const q = quantised.subarray(0, count);
    if (top > 0) for (let i = 0; i < count; i++) q[i] = Math.floor((block[i] - zMin) * scale + 0.5);
    const table = top > 0 && tryTable && range > 1.5 ? lookupTable(q) : undefined;
    const simpleBytes = top > 0 ? 1 + countBytes(count) + Math.ceil((count * bits) / 8) : 0;
    const tableBytes = table
      ? 2 + countBytes(count) + Math.ceil((table.values.length * bits) / 8) + Math.ceil((count * table.bits) / 8)
      : Infinity;
    if (1 + BYTES[offsetType] + Math.min(simpleBytes, tableBytes) < rawBytes) {
      out.byte(check | (top > 0 ? 1 : 3) | (code << 6));
      out.value(offsetType, zMin);
      if (table && tableBytes < simpleBytes) {
        stuffHeader(out, count, bits, true);
        out.byte(table.values.length + 1);
        packBits(out, table.values, bits);
        packBits(out, table.indexes, table.bits);
      } else if (top > 0) {
        stuffHeader(out, count, bits, false);
        packBits(out, q, bits);
      }
      return;
    }
  }
  out.byte(check | 0);
  out.values(dt, block);
}

/** The smallest type that holds a block's offset exactly, as its 2-bit code and type (Lerc2::ReduceDataType). */
function narrowOffset(z: number, dt: DataType): [number, DataType] {
  const u8 = Number.isInteger(z) && z >= 0 && z <= 0xff;
  const s8 = Number.isInteger(z) && z >= -0x80 && z <= 0x7f;
  const s16 = Number.isInteger(z) && z >= -0x8000 && z <= 0x7fff;
  const u16 = Number.isInteger(z) && z >= 0 && z <= 0xffff;
  const s32 = Number.isInteger(z) && z >= -0x80000000 && z <= 0x7fffffff;
  switch (dt) {
    case DataType.Short:
      return s8 ? [2, DataType.Char] : u8 ? [1, DataType.Byte] : [0, dt];
    case DataType.UShort:
      return u8 ? [1, DataType.Byte] : [0, dt];
    case DataType.Int:
      return u8 ? [3, DataType.Byte] : s16 ? [2, DataType.Short] : u16 ? [1, DataType.UShort] : [0, dt];
    case DataType.UInt:
      return u8 ? [2, DataType.Byte] : u16 ? [1, DataType.UShort] : [0, dt];
    case DataType.Float:
      return u8 ? [2, DataType.Byte] : s16 ? [1, DataType.Short] : [0, dt];
    case DataType.Double:
      return s16 ? [3, DataType.Short] : s32 ? [2, DataType.Int] : Math.fround(z) === z ? [1, DataType.Float] : [0, dt];
    default:
      return [0, dt];
  }
}

/** Bytes that hold a count: 1, 2 or 4. */
function countBytes(n: number): 1 | 2 | 4 {
  return n < 0x100 ? 1 : n < 0x10000 ? 2 : 4;
}

/**
 * A block's quantised values as a table of its distinct values above 0 (at most 254) and,
 * for each value, its index (0 for 0) (BitStuffer2::EncodeLut).
 */
function lookupTable(q: Uint32Array): { values: Uint32Array; indexes: Uint32Array; bits: number } | undefined {
  const sorted = Uint32Array.from(q).sort();
  const values: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1]) continue;
    if (values.length === 254) return undefined;
    values.push(sorted[i]);
  }
  if (values.length === 0) return undefined;
  const index = new Map(values.map((v, k) => [v, k + 1]));
  let bits = 0;
  while (values.length >> bits) bits++;
  return { values: Uint32Array.from(values), indexes: q.map((v) => index.get(v) ?? 0), bits };
}

/**
 * BitStuffer2's header: a byte with the bit width (bits 0-4), whether a lookup table
 * follows (bit 5) and how many bytes the count takes (bits 6-7), then the count.
 */
function stuffHeader(out: ByteWriter, count: number, bits: number, table: boolean): void {
  const bytes = countBytes(count);
  out.byte(bits | (table ? 32 : 0) | ((bytes === 4 ? 0 : 3 - bytes) << 6));
  if (bytes === 1) out.byte(count);
  else if (bytes === 2) out.uint16(count);
  else out.uint32(count);
}

/** Values of `bits` bits packed from the lowest bit up (LERC2 v3's order), only the bytes the last value reaches. */
function packBits(out: ByteWriter, data: Uint32Array, bits: number): void {
  const total = Math.ceil((data.length * bits) / 8);
  const packed = out.reserve(total);
  // 32-bit words filled from the lowest bit, written out little-endian (BitStuffer2::BitStuff).
  let word = 0;
  let used = 0;
  let at = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    word |= v << used; // bits past 32 fall off here and start the next word
    used += bits;
    if (used >= 32) {
      packed[at] = word;
      packed[at + 1] = word >>> 8;
      packed[at + 2] = word >>> 16;
      packed[at + 3] = word >>> 24;
      at += 4;
      used -= 32;
      word = used > 0 ? v >>> (bits - used) : 0;
    }
  }
  for (; at < total; at++, word >>>= 8) packed[at] = word;
}

/** The mask as LERC's BitMask: one bit a pixel, the first pixel in a byte's highest bit. */
function packMask(valid: Uint8Array): Uint8Array {
  const bits = new Uint8Array((valid.length + 7) >> 3);
  for (let k = 0; k < valid.length; k++) if (valid[k]) bits[k >> 3] |= 0x80 >> (k & 7);
  return bits;
}

/** Runs of a byte this long or longer are worth a repeat segment (RLE::m_minNumEven). */
const MIN_RUN = 5;
const MAX_COUNT = 32767;

/**
 * LERC's run-length code: segments, each an int16 count then either that many literal
 * bytes (count > 0) or one byte repeated -count times; -32768 ends.
 */
function runLengthEncode(bytes: Uint8Array): Uint8Array {
  const out = new ByteWriter(bytes.length + 16);
  let literalFrom = 0;
  const flushLiteral = (to: number) => {
    for (let from = literalFrom; from < to; from += MAX_COUNT) {
      const end = Math.min(to, from + MAX_COUNT);
      out.int16(end - from);
      out.bytes(bytes.subarray(from, end));
    }
  };
  let i = 0;
  while (i < bytes.length) {
    let run = 1;
    while (i + run < bytes.length && bytes[i + run] === bytes[i] && run < MAX_COUNT) run++;
    if (run >= MIN_RUN) {
      flushLiteral(i);
      out.int16(-run);
      out.byte(bytes[i]);
      i += run;
      literalFrom = i;
    } else i += run;
  }
  flushLiteral(bytes.length);
  out.int16(-32768);
  return out.finish();
}

/** Fletcher-32 over bytes taken in big-endian pairs, as Lerc2::ComputeChecksumFletcher32. */
function fletcher32(bytes: Uint8Array): number {
  let sum1 = 0xffff;
  let sum2 = 0xffff;
  let words = bytes.length >> 1;
  let at = 0;
  while (words > 0) {
    let run = Math.min(words, 359); // the sums stay below 2^32 for 359 pairs
    words -= run;
    while (run-- > 0) {
      sum1 += (bytes[at] << 8) | bytes[at + 1];
      sum2 += sum1;
      at += 2;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  if (bytes.length & 1) {
    sum1 += bytes[at] << 8;
    sum2 += sum1;
  }
  sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  return ((sum2 << 16) | sum1) >>> 0;
}

/** A growing little-endian byte buffer. */
class ByteWriter {
  private buffer: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity: number) {
    this.buffer = new Uint8Array(Math.max(64, capacity));
    this.view = new DataView(this.buffer.buffer);
  }

  ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
  }

  /** `n` zeroed bytes at the end, to fill in place. */
  reserve(n: number): Uint8Array {
    this.ensure(n);
    const part = this.buffer.subarray(this.length, this.length + n);
    part.fill(0);
    this.length += n;
    return part;
  }

  byte(v: number): void {
    this.ensure(1);
    this.buffer[this.length++] = v;
  }

  bytes(v: Uint8Array): void {
    this.ensure(v.length);
    this.buffer.set(v, this.length);
    this.length += v.length;
  }

  text(s: string): void {
    for (let i = 0; i < s.length; i++) this.byte(s.charCodeAt(i));
  }

  int16(v: number): void {
    this.ensure(2);
    this.view.setInt16(this.length, v, true);
    this.length += 2;
  }

  uint16(v: number): void {
    this.ensure(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
  }

  int32(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
  }

  uint32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }

  float64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }

  /** A value in one of LERC2's data types. */
  value(dt: DataType, v: number): void {
    this.values(dt, [v]);
  }

  /** Values in one of LERC2's data types. */
  values(dt: DataType, vs: ArrayLike<number>): void {
    const n = vs.length;
    this.ensure(n * BYTES[dt]);
    const view = this.view;
    let at = this.length;
    switch (dt) {
      case DataType.Char:
        for (let i = 0; i < n; i++, at++) view.setInt8(at, vs[i]);
        break;
      case DataType.Byte:
        for (let i = 0; i < n; i++, at++) view.setUint8(at, vs[i]);
        break;
      case DataType.Short:
        for (let i = 0; i < n; i++, at += 2) view.setInt16(at, vs[i], true);
        break;
      case DataType.UShort:
        for (let i = 0; i < n; i++, at += 2) view.setUint16(at, vs[i], true);
        break;
      case DataType.Int:
        for (let i = 0; i < n; i++, at += 4) view.setInt32(at, vs[i], true);
        break;
      case DataType.UInt:
        for (let i = 0; i < n; i++, at += 4) view.setUint32(at, vs[i], true);
        break;
      case DataType.Float:
        for (let i = 0; i < n; i++, at += 4) view.setFloat32(at, vs[i], true);
        break;
      case DataType.Double:
        for (let i = 0; i < n; i++, at += 8) view.setFloat64(at, vs[i], true);
        break;
    }
    this.length = at;
  }

  /** The bytes written (a view: write no more). */
  finish(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}
