/**
 * Fractal heaps ("FRHP"), where dense groups keep their link messages: the doubling table of
 * direct ("FHDB") and indirect ("FHIB") blocks is walked once to list the direct blocks, and
 * heap IDs (from the group's name index) are resolved against that list. Managed and tiny
 * objects only; huge objects and filtered heaps are unsupported.
 */
import { Cursor, Hdf5FormatError, Hdf5Source, Hdf5UnsupportedError, bytesForBits } from "./source.js";

interface DirectBlock {
  readonly heapOffset: number;
  readonly address: number;
  readonly size: number;
}

export class FractalHeap {
  private constructor(
    private readonly source: Hdf5Source,
    private readonly offsetBytes: number,
    private readonly lengthBytes: number,
    private readonly blocks: DirectBlock[],
  ) {}

  static async open(source: Hdf5Source, address: number): Promise<FractalHeap> {
    const O = source.offsetSize;
    const L = source.lengthSize;
    const c = await source.cursor(address, 4 + 1 + 2 + 2 + 1 + 4 + 12 * L + 3 * O + 2 + 2 + 2 + 2);
    c.signature("FRHP");
    c.skip(1 + 2); // version, heap ID length
    const filtersLength = c.u16();
    c.skip(1); // flags
    const maxManagedSize = c.u32();
    c.skip(L + O + L + O + 8 * L); // huge objects, free space, managed space and object counts
    const width = c.u16();
    const startSize = c.length();
    const maxDirectSize = c.length();
    const maxHeapBits = c.u16();
    c.skip(2); // starting rows in the root indirect block
    const root = c.offset();
    const rootRows = c.u16();
    if (filtersLength > 0) throw new Hdf5UnsupportedError("a filtered fractal heap");
    const offsetBytes = bytesForBits(maxHeapBits);
    const table = { source, width, startSize, maxDirectRows: Math.log2(maxDirectSize) - Math.log2(startSize) + 2, offsetBytes };
    if (!Number.isInteger(table.maxDirectRows) || width === 0) throw new Hdf5FormatError("fractal heap with a malformed doubling table");
    const blocks: DirectBlock[] = [];
    if (root >= 0) {
      if (rootRows === 0) blocks.push({ heapOffset: 0, address: root, size: startSize });
      else await indirectBlock(table, root, rootRows, 0, blocks, 0);
    }
    blocks.sort((a, b) => a.heapOffset - b.heapOffset);
    const lengthBytes = Math.min(bytesForBits(Math.log2(maxDirectSize)), Math.floor(Math.log2(maxManagedSize) / 8) + 1);
    return new FractalHeap(source, offsetBytes, lengthBytes, blocks);
  }

  /** The bytes of the object a heap ID names. */
  async object(id: Buffer): Promise<Buffer> {
    const kind = (id[0] >> 4) & 0x03;
    if (kind === 2) return id.subarray(1, 1 + (id[0] & 0x0f) + 1);
    if (kind !== 0) throw new Hdf5UnsupportedError("a huge object in a fractal heap");
    const c = new Cursor(id.subarray(1), this.source);
    const offset = c.uint(this.offsetBytes);
    const length = c.uint(this.lengthBytes);
    let block: DirectBlock | undefined;
    for (const b of this.blocks) if (b.heapOffset <= offset) block = b;
    if (!block || offset + length > block.heapOffset + block.size)
      throw new Hdf5FormatError(`fractal heap object at ${offset} is in no block`);
    return this.source.bytes(block.address + (offset - block.heapOffset), length);
  }
}

interface Table {
  readonly source: Hdf5Source;
  readonly width: number;
  readonly startSize: number;
  readonly maxDirectRows: number;
  readonly offsetBytes: number;
}

function rowBlockSize(table: Table, row: number): number {
  return row === 0 ? table.startSize : table.startSize * 2 ** (row - 1);
}

/** Heap offset of a row's first block within its indirect block. */
function rowOffset(table: Table, row: number): number {
  return row === 0 ? 0 : table.width * table.startSize * 2 ** (row - 1);
}

async function indirectBlock(
  table: Table,
  address: number,
  rows: number,
  heapOffset: number,
  out: DirectBlock[],
  depth: number,
): Promise<void> {
  if (depth > 32) throw new Hdf5FormatError("fractal heap indirect blocks nest too deep");
  const { source, width } = table;
  const directRows = Math.min(rows, table.maxDirectRows);
  const entries = rows * width;
  const c = await source.cursor(address, 5 + source.offsetSize + table.offsetBytes + entries * source.offsetSize);
  c.signature("FHIB");
  c.skip(1 + source.offsetSize + table.offsetBytes);
  const children: { row: number; address: number; offset: number }[] = [];
  for (let row = 0; row < rows; row++) {
    for (let col = 0; col < width; col++) {
      const child = c.offset();
      const offset = heapOffset + rowOffset(table, row) + col * rowBlockSize(table, row);
      if (child < 0) continue;
      if (row < directRows) out.push({ heapOffset: offset, address: child, size: rowBlockSize(table, row) });
      else children.push({ row, address: child, offset });
    }
  }
  for (const child of children) {
    const size = rowBlockSize(table, child.row);
    const childRows = Math.log2(size) - Math.log2(table.startSize * width) + 1;
    await indirectBlock(table, child.address, childRows, child.offset, out, depth + 1);
  }
}
