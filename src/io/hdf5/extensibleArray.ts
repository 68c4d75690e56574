/**
 * Extensible array chunk index ("EAHD", layout version 4, index type 4), what HDF5 1.10+
 * writes for a dataset with one unlimited dimension. Elements live first in the index block
 * ("EAIB"), then in data blocks ("EADB") it points at directly, then in data blocks listed by
 * super blocks ("EASB"); super block u holds 2^floor(u/2) data blocks of
 * 2^floor((u+1)/2) x (minimum data block size) elements. Large data blocks are paged.
 */
import { type IndexElement, decodeElement } from "./fixedArray.js";
import { Cursor, Hdf5FormatError, Hdf5Source, bytesForBits } from "./source.js";

interface Header {
  readonly filtered: boolean;
  readonly elementSize: number;
  readonly blockOffsetBytes: number;
  readonly pageElements: number;
  readonly maxIndexSet: number;
}

const UNSET: IndexElement = { address: -1, filterMask: 0 };

/** Elements by linear (swizzled) chunk index, up to the highest index ever set. */
export async function extensibleArrayElements(source: Hdf5Source, address: number): Promise<IndexElement[]> {
  const O = source.offsetSize;
  const L = source.lengthSize;
  const c = await source.cursor(address, 12 + 6 * L + O);
  c.signature("EAHD");
  c.skip(1);
  const filtered = c.u8() === 1;
  const elementSize = c.u8();
  const maxElementBits = c.u8();
  const indexBlockElements = c.u8();
  const minDataBlockElements = c.u8();
  const minSuperBlockPointers = c.u8();
  const pageBits = c.u8();
  c.skip(4 * L); // secondary and data block statistics
  const maxIndexSet = c.length();
  c.length(); // elements realized
  const indexBlock = c.offset();
  const header: Header = {
    filtered,
    elementSize,
    blockOffsetBytes: bytesForBits(maxElementBits),
    pageElements: 2 ** pageBits,
    maxIndexSet,
  };
  const out: IndexElement[] = [];
  if (indexBlock < 0 || maxIndexSet === 0) return out;

  const superBlocks = 1 + maxElementBits - Math.log2(minDataBlockElements);
  const inIndexBlock = 2 * Math.log2(minSuperBlockPointers);
  const dataBlockPointers = 2 * (minSuperBlockPointers - 1);
  const superBlockPointers = superBlocks - inIndexBlock;
  if (!Number.isInteger(superBlocks) || !Number.isInteger(inIndexBlock) || superBlockPointers < 0) {
    throw new Hdf5FormatError("extensible array with malformed parameters");
  }
  const ib = await source.cursor(indexBlock, 6 + O + indexBlockElements * elementSize + (dataBlockPointers + superBlockPointers) * O);
  ib.signature("EAIB");
  ib.skip(2 + O);
  for (let i = 0; i < indexBlockElements; i++) out.push(decodeElement(ib, filtered, elementSize, O));
  const dataBlocks = Array.from({ length: dataBlockPointers }, () => ib.offset());
  const superBlockAddresses = Array.from({ length: superBlockPointers }, () => ib.offset());

  let directBlock = 0;
  for (let u = 0; u < superBlocks && out.length < maxIndexSet; u++) {
    const blocks = 2 ** Math.floor(u / 2);
    const blockElements = 2 ** Math.floor((u + 1) / 2) * minDataBlockElements;
    if (u < inIndexBlock) {
      for (let b = 0; b < blocks; b++) await dataBlock(source, header, dataBlocks[directBlock++], blockElements, undefined, out);
      continue;
    }
    const at = superBlockAddresses[u - inIndexBlock];
    if (at < 0) {
      pushUnset(out, blocks * blockElements);
      continue;
    }
    const pages = blockElements > header.pageElements ? blockElements / header.pageElements : 0;
    const bitmapBytes = Math.ceil(pages / 8);
    const sb = await source.cursor(at, 6 + O + header.blockOffsetBytes + blocks * (bitmapBytes + O));
    sb.signature("EASB");
    sb.skip(2 + O + header.blockOffsetBytes);
    const bitmaps = Array.from({ length: blocks }, () => sb.bytes(bitmapBytes));
    const addresses = Array.from({ length: blocks }, () => sb.offset());
    for (let b = 0; b < blocks; b++) await dataBlock(source, header, addresses[b], blockElements, pages > 0 ? bitmaps[b] : undefined, out);
  }
  return out.slice(0, maxIndexSet);
}

function pushUnset(out: IndexElement[], n: number): void {
  for (let i = 0; i < n; i++) out.push(UNSET);
}

async function dataBlock(
  source: Hdf5Source,
  h: Header,
  at: number,
  n: number,
  pageBitmap: Buffer | undefined,
  out: IndexElement[],
): Promise<void> {
  if (out.length >= h.maxIndexSet) return;
  if (at < 0) return pushUnset(out, n);
  const O = source.offsetSize;
  const prefix = 6 + O + h.blockOffsetBytes;
  if (!pageBitmap) {
    const c = await source.cursor(at, prefix + n * h.elementSize);
    c.signature("EADB");
    c.skip(prefix - 4);
    for (let i = 0; i < n; i++) out.push(decodeElement(c, h.filtered, h.elementSize, O));
    return;
  }
  const pageBytes = h.pageElements * h.elementSize + 4;
  for (let p = 0; p * h.pageElements < n; p++) {
    if (!(pageBitmap[p >> 3] & (0x80 >> (p & 7)))) {
      pushUnset(out, h.pageElements);
      continue;
    }
    const c: Cursor = await source.cursor(at + prefix + 4 + p * pageBytes, h.pageElements * h.elementSize);
    for (let i = 0; i < h.pageElements; i++) out.push(decodeElement(c, h.filtered, h.elementSize, O));
  }
}
