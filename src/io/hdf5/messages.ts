/**
 * Decoders for the object header messages a dataset read needs (dataspace, datatype, fill
 * value, data layout, filter pipeline) and those that name a group's members (link, link
 * info, symbol table).
 */
import { Cursor, Hdf5FormatError, Hdf5UnsupportedError } from "./source.js";

type Sizes = { offsetSize: number; lengthSize: number };

export interface Dataspace {
  readonly shape: number[];
  /** Maximum sizes; Infinity for an unlimited dimension. */
  readonly maxShape: number[];
}

export function decodeDataspace(data: Buffer, sizes: Sizes): Dataspace {
  const c = new Cursor(data, sizes);
  const version = c.u8();
  const rank = c.u8();
  const flags = c.u8();
  if (version === 1) c.skip(5);
  else if (version === 2) {
    if (c.u8() === 2) throw new Hdf5UnsupportedError("a null dataspace");
  } else throw new Hdf5FormatError(`dataspace message version ${version}`);
  const shape = Array.from({ length: rank }, () => c.length());
  const maxShape = flags & 1 ? shape.map(() => c.maxLength()) : shape.slice();
  return { shape, maxShape };
}

export type ElementKind = "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32" | "float32" | "float64";

export interface Datatype {
  readonly kind: ElementKind;
  readonly size: number;
  readonly bigEndian: boolean;
}

/** Fixed-point and IEEE floating-point types of 1 to 8 bytes; anything else is unsupported. */
export function decodeDatatype(data: Buffer, sizes: Sizes): Datatype {
  const c = new Cursor(data, sizes);
  const classAndVersion = c.u8();
  const typeClass = classAndVersion & 0x0f;
  const bits = c.u8();
  c.skip(2);
  const size = c.u32();
  const bigEndian = (bits & 0x01) !== 0;
  if (typeClass === 0) {
    const signed = (bits & 0x08) !== 0;
    const kinds: Record<number, [ElementKind, ElementKind]> = { 1: ["int8", "uint8"], 2: ["int16", "uint16"], 4: ["int32", "uint32"] };
    const pair = kinds[size];
    if (pair) return { kind: pair[signed ? 0 : 1], size, bigEndian };
  } else if (typeClass === 1 && (bits & 0x40) === 0) {
    if (size === 4) return { kind: "float32", size, bigEndian };
    if (size === 8) return { kind: "float64", size, bigEndian };
  }
  throw new Hdf5UnsupportedError(`HDF5 datatype class ${typeClass} of ${size} bytes`);
}

/** The fill value's bytes (in the datatype's byte order), or undefined for zeros. */
export function decodeFillValue(data: Buffer, sizes: Sizes): Buffer | undefined {
  const c = new Cursor(data, sizes);
  const version = c.u8();
  if (version === 1 || version === 2) {
    c.skip(2); // allocation and write times
    const defined = c.u8();
    if (version === 2 && defined === 0) return undefined;
    const size = c.u32();
    return size > 0 ? Buffer.from(c.bytes(size)) : undefined;
  }
  if (version === 3) {
    const flags = c.u8();
    if (!(flags & 0x20)) return undefined;
    const size = c.u32();
    return size > 0 ? Buffer.from(c.bytes(size)) : undefined;
  }
  throw new Hdf5FormatError(`fill value message version ${version}`);
}

/** The old fill value message (0x0004): a size and the value. */
export function decodeOldFillValue(data: Buffer, sizes: Sizes): Buffer | undefined {
  const c = new Cursor(data, sizes);
  const size = c.u32();
  return size > 0 ? Buffer.from(c.bytes(size)) : undefined;
}

export const ChunkIndexType = { btreeV1: 0, single: 1, implicit: 2, fixedArray: 3, extensibleArray: 4, btreeV2: 5 } as const;

export type ChunkIndexName = keyof typeof ChunkIndexType;

export type Layout =
  | { readonly class: "compact"; readonly data: Buffer }
  | { readonly class: "contiguous"; readonly address: number; readonly size: number }
  | {
      readonly class: "chunked";
      /** Chunk shape in elements, without the trailing element-size dimension. */
      readonly chunkShape: number[];
      readonly indexType: number;
      readonly address: number;
      /** Edge chunks that do not fill their chunk are stored unfiltered. */
      readonly unfilteredEdges: boolean;
      readonly single?: { readonly size: number; readonly filterMask: number };
      readonly fixedArrayPageBits?: number;
    };

export function decodeLayout(data: Buffer, sizes: Sizes): Layout {
  const c = new Cursor(data, sizes);
  const version = c.u8();
  // HDF5 2.0 writes version 5 for filtered chunks; its fields are those of version 4 (the
  // chunk size width inside index elements changed, and is taken from the element size here).
  if (version < 3 || version > 5) throw new Hdf5UnsupportedError(`data layout message version ${version}`);
  const layoutClass = c.u8();
  if (layoutClass === 0) return { class: "compact", data: c.bytes(c.u16()) };
  if (layoutClass === 1) return { class: "contiguous", address: c.offset(), size: c.length() };
  if (layoutClass === 3) throw new Hdf5UnsupportedError("a virtual dataset");
  if (layoutClass !== 2) throw new Hdf5FormatError(`data layout class ${layoutClass}`);
  if (version === 3) {
    const rank = c.u8() - 1;
    const address = c.offset();
    const chunkShape = Array.from({ length: rank }, () => c.u32());
    return { class: "chunked", chunkShape, indexType: ChunkIndexType.btreeV1, address, unfilteredEdges: false };
  }
  const flags = c.u8();
  const rank = c.u8() - 1;
  const dimSize = c.u8();
  const chunkShape = Array.from({ length: rank }, () => c.uint(dimSize));
  c.skip(dimSize); // the element size
  const indexType = c.u8();
  let single: { size: number; filterMask: number } | undefined;
  let fixedArrayPageBits: number | undefined;
  if (indexType === ChunkIndexType.single && flags & 0x02) single = { size: c.length(), filterMask: c.u32() };
  else if (indexType === ChunkIndexType.fixedArray) fixedArrayPageBits = c.u8();
  else if (indexType === ChunkIndexType.extensibleArray)
    c.skip(5); // parameters repeated in its header
  else if (indexType === ChunkIndexType.btreeV2)
    c.skip(6); // node size, split and merge percents
  else if (indexType < ChunkIndexType.single || indexType > ChunkIndexType.btreeV2) {
    throw new Hdf5UnsupportedError(`chunk index type ${indexType}`);
  }
  const address = c.offset();
  return { class: "chunked", chunkShape, indexType, address, unfilteredEdges: (flags & 0x01) !== 0, single, fixedArrayPageBits };
}

export interface Filter {
  readonly id: number;
  readonly name: string;
  readonly optional: boolean;
  readonly clientData: number[];
}

export function decodeFilterPipeline(data: Buffer, sizes: Sizes): Filter[] {
  const c = new Cursor(data, sizes);
  const version = c.u8();
  const count = c.u8();
  if (version === 1) c.skip(6);
  else if (version !== 2) throw new Hdf5FormatError(`filter pipeline message version ${version}`);
  const filters: Filter[] = [];
  for (let i = 0; i < count; i++) {
    const id = c.u16();
    const nameLength = version === 1 || id >= 256 ? c.u16() : 0;
    const flags = c.u16();
    const values = c.u16();
    const rawName = c.bytes(version === 1 ? Math.ceil(nameLength / 8) * 8 : nameLength);
    const name = rawName.toString("latin1").replace(/\0.*$/s, "");
    const clientData = Array.from({ length: values }, () => c.u32());
    if (version === 1 && values % 2 === 1) c.skip(4);
    filters.push({ id, name, optional: (flags & 1) !== 0, clientData });
  }
  return filters;
}

export type Link = { readonly name: string } & (
  { readonly kind: "hard"; readonly address: number } | { readonly kind: "soft" | "external" }
);

export function decodeLink(data: Buffer, sizes: Sizes): Link {
  const c = new Cursor(data, sizes);
  const version = c.u8();
  if (version !== 1) throw new Hdf5FormatError(`link message version ${version}`);
  const flags = c.u8();
  const type = flags & 0x08 ? c.u8() : 0;
  if (flags & 0x04) c.skip(8); // creation order
  if (flags & 0x10) c.skip(1); // character set
  const nameLength = c.uint(1 << (flags & 0x03));
  const name = c.bytes(nameLength).toString("utf8");
  if (type === 0) return { name, kind: "hard", address: c.offset() };
  return { name, kind: type === 1 ? "soft" : "external" };
}

export interface LinkInfo {
  readonly fractalHeap: number;
  readonly nameIndex: number;
}

export function decodeLinkInfo(data: Buffer, sizes: Sizes): LinkInfo {
  const c = new Cursor(data, sizes);
  const version = c.u8();
  if (version !== 0) throw new Hdf5FormatError(`link info message version ${version}`);
  const flags = c.u8();
  if (flags & 0x01) c.skip(8); // maximum creation index
  return { fractalHeap: c.offset(), nameIndex: c.offset() };
}

export interface SymbolTable {
  readonly btree: number;
  readonly localHeap: number;
}

export function decodeSymbolTable(data: Buffer, sizes: Sizes): SymbolTable {
  const c = new Cursor(data, sizes);
  return { btree: c.offset(), localHeap: c.offset() };
}
