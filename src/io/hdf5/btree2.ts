/**
 * Version 2 B-trees ("BTHD", "BTIN", "BTLF"): every record, in order. Internal nodes size
 * their child record counts from the node size, as HDF5 derives them (H5B2 header init).
 */
import { Cursor, Hdf5FormatError, Hdf5Source } from "./source.js";

/** Metadata prefix of every node: signature, version, type and checksum. */
const NODE_OVERHEAD = 10;

interface Tree {
  readonly type: number;
  readonly nodeSize: number;
  readonly recordSize: number;
  /** Bytes of a child's record count (sized for a full leaf, the largest node). */
  readonly countSize: number;
  /** Per depth: bytes of the total record count below a child pointer of a node at that depth. */
  readonly totalSize: number[];
}

function bytesFor(n: bigint): number {
  return Math.floor((n.toString(2).length - 1) / 8) + 1;
}

/** Visit every record of the tree whose header is at `address`. */
export async function eachRecord(source: Hdf5Source, address: number, visit: (record: Cursor) => void): Promise<number> {
  const c = await source.cursor(address, 18 + source.offsetSize);
  c.signature("BTHD");
  c.skip(1);
  const type = c.u8();
  const nodeSize = c.u32();
  const recordSize = c.u16();
  const depth = c.u16();
  c.skip(2);
  const root = c.offset();
  const rootRecords = c.u16();
  if (recordSize === 0 || nodeSize <= NODE_OVERHEAD) throw new Hdf5FormatError("v2 B-tree header with empty nodes");
  const leafMax = Math.floor((nodeSize - NODE_OVERHEAD) / recordSize);
  const countSize = bytesFor(BigInt(leafMax));
  const totalSize = [0];
  let cumulative = BigInt(leafMax);
  for (let d = 1; d <= depth; d++) {
    const pointer = source.offsetSize + countSize + totalSize[d - 1];
    const max = Math.floor((nodeSize - (NODE_OVERHEAD + pointer)) / (recordSize + pointer));
    cumulative = BigInt(max + 1) * cumulative + BigInt(max);
    totalSize.push(bytesFor(cumulative));
  }
  const tree: Tree = { type, nodeSize, recordSize, countSize, totalSize };
  if (root >= 0 && rootRecords > 0) await node(source, tree, root, rootRecords, depth, visit);
  return type;
}

async function node(
  source: Hdf5Source,
  tree: Tree,
  address: number,
  records: number,
  depth: number,
  visit: (r: Cursor) => void,
): Promise<void> {
  const c = await source.cursor(address, tree.nodeSize);
  c.signature(depth === 0 ? "BTLF" : "BTIN");
  c.skip(1);
  if (c.u8() !== tree.type) throw new Hdf5FormatError("v2 B-tree node of another type");
  const recs = Array.from({ length: records }, () => new Cursor(c.bytes(tree.recordSize), source));
  if (depth === 0) {
    recs.forEach(visit);
    return;
  }
  const children = Array.from({ length: records + 1 }, () => {
    const child = c.offset();
    const count = c.uint(tree.countSize);
    if (depth > 1) c.skip(tree.totalSize[depth - 1]);
    return { child, count };
  });
  // In-order: child 0, record 0, child 1, record 1, ...
  for (let i = 0; i <= records; i++) {
    await node(source, tree, children[i].child, children[i].count, depth - 1, visit);
    if (i < records) visit(recs[i]);
  }
}
