/**
 * Version 1 B-trees ("TREE"): type 0 indexes a symbol-table group's SNOD nodes, type 1 a
 * chunked dataset's chunks (layout version 3). Only the leaves matter here: each leaf entry
 * is a key followed by the child it describes.
 */
import { Cursor, Hdf5FormatError, Hdf5Source } from "./source.js";

/** Deeper than this cannot come from a real file (fan-out is at least 2 per level). */
const MAX_DEPTH = 64;

/** Visit every leaf entry in key order: the key's bytes (the one before the child) and the child address. */
async function walk(
  source: Hdf5Source,
  address: number,
  type: number,
  keySize: number,
  visit: (key: Cursor, child: number) => void | Promise<void>,
  depth = 0,
): Promise<void> {
  if (depth > MAX_DEPTH) throw new Hdf5FormatError("v1 B-tree is too deep (a loop?)");
  const headSize = 8 + 2 * source.offsetSize;
  const head = await source.cursor(address, headSize);
  head.signature("TREE");
  const nodeType = head.u8();
  if (nodeType !== type) throw new Hdf5FormatError(`v1 B-tree node of type ${nodeType} where ${type} was expected`);
  const level = head.u8();
  const entries = head.u16();
  const body = await source.cursor(address + headSize, entries * (keySize + source.offsetSize) + keySize);
  for (let i = 0; i < entries; i++) {
    const key = new Cursor(body.bytes(keySize), source);
    const child = body.offset();
    if (level === 0) await visit(key, child);
    else await walk(source, child, type, keySize, visit, depth + 1);
  }
}

/** The SNOD addresses of a symbol-table group, in name order. */
export async function groupNodes(source: Hdf5Source, btree: number): Promise<number[]> {
  const nodes: number[] = [];
  await walk(source, btree, 0, source.lengthSize, (_key, child) => {
    nodes.push(child);
  });
  return nodes;
}

export interface StoredChunk {
  /** Chunk grid coordinates (element offset divided by the chunk size, per dimension). */
  readonly coords: number[];
  readonly address: number;
  readonly size: number;
  /** Bit i set: filter i of the pipeline was not applied to this chunk. */
  readonly filterMask: number;
}

/** Every chunk a layout-version-3 dataset has stored. */
export async function btreeV1Chunks(source: Hdf5Source, btree: number, chunkShape: readonly number[]): Promise<StoredChunk[]> {
  const rank = chunkShape.length;
  const chunks: StoredChunk[] = [];
  await walk(source, btree, 1, 8 + 8 * (rank + 1), (key, address) => {
    const size = key.u32();
    const filterMask = key.u32();
    const coords = chunkShape.map((n) => key.u64() / n);
    if (!coords.every(Number.isInteger)) throw new Hdf5FormatError("chunk offset not on a chunk boundary");
    chunks.push({ coords, address, size, filterMask });
  });
  return chunks;
}
