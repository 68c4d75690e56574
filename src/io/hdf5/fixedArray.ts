/**
 * Fixed array chunk index ("FAHD" + "FADB", layout version 4, index type 3): one element per
 * chunk of the dataset's maximum extent, in C order, either inline in the data block or, past
 * 2^pageBits elements, in pages that follow it (a bitmap says which pages were written).
 */
import { Cursor, Hdf5FormatError, Hdf5Source } from "./source.js";

export interface IndexElement {
  readonly address: number;
  /** Stored bytes; undefined for an unfiltered index, where every chunk is its full size. */
  readonly size?: number;
  readonly filterMask: number;
}

/** Decode one element of a fixed or extensible array chunk index. */
export function decodeElement(c: Cursor, filtered: boolean, elementSize: number, offsetSize: number): IndexElement {
  const address = c.offset();
  if (!filtered) return { address, filterMask: 0 };
  const size = c.uint(elementSize - offsetSize - 4);
  return { address, size, filterMask: c.u32() };
}

/** Elements by linear chunk index; entries for unallocated chunks have a negative address. */
export async function fixedArrayElements(source: Hdf5Source, address: number): Promise<IndexElement[]> {
  const O = source.offsetSize;
  const head = await source.cursor(address, 8 + source.lengthSize + O);
  head.signature("FAHD");
  head.skip(1);
  const filtered = head.u8() === 1;
  const elementSize = head.u8();
  const pageBits = head.u8();
  const count = head.length();
  const dataBlock = head.offset();
  if (dataBlock < 0 || count === 0) return [];
  const pageElements = 2 ** pageBits;
  const paged = count > pageElements;
  const pages = paged ? Math.ceil(count / pageElements) : 0;
  const bitmapBytes = Math.ceil(pages / 8);
  const prefix = 6 + O + bitmapBytes;
  const block = await source.cursor(dataBlock, prefix + (paged ? 0 : count * elementSize));
  block.signature("FADB");
  block.skip(2 + O);
  const read = (c: Cursor, n: number, out: IndexElement[]) => {
    for (let i = 0; i < n; i++) out.push(decodeElement(c, filtered, elementSize, O));
  };
  const out: IndexElement[] = [];
  if (!paged) {
    read(block, count, out);
    return out;
  }
  const bitmap = block.bytes(bitmapBytes);
  const pageBytes = pageElements * elementSize + 4;
  for (let p = 0; p < pages; p++) {
    const n = Math.min(pageElements, count - p * pageElements);
    if (bitmap[p >> 3] & (0x80 >> (p & 7))) {
      read(await source.cursor(dataBlock + prefix + 4 + p * pageBytes, n * elementSize), n, out);
    } else {
      for (let i = 0; i < n; i++) out.push({ address: -1, filterMask: 0 });
    }
  }
  if (out.length !== count) throw new Hdf5FormatError("fixed array with a wrong element count");
  return out;
}
