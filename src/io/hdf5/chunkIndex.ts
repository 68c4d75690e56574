/**
 * Where a chunked dataset's chunks are: every chunk index HDF5 writes reduced to one list of
 * stored chunks with their grid coordinates (chunk index along each dimension), address,
 * stored size and filter mask. Chunks not listed are unallocated and read as the fill value.
 */
import { type StoredChunk, btreeV1Chunks } from "./btree1.js";
import { eachRecord } from "./btree2.js";
import { extensibleArrayElements } from "./extensibleArray.js";
import { type IndexElement, fixedArrayElements } from "./fixedArray.js";
import { ChunkIndexType, type Layout } from "./messages.js";
import { Hdf5FormatError, Hdf5Source, Hdf5UnsupportedError } from "./source.js";

export type { StoredChunk };

type Chunked = Extract<Layout, { class: "chunked" }>;

export interface ChunkGeometry {
  readonly shape: readonly number[];
  readonly maxShape: readonly number[];
  readonly chunkShape: readonly number[];
  /** Bytes of one whole chunk before filters. */
  readonly chunkBytes: number;
}

/** All stored chunks. Every index type of layout versions 3 and 4 is handled. */
export async function storedChunks(source: Hdf5Source, layout: Chunked, g: ChunkGeometry): Promise<StoredChunk[]> {
  if (layout.address < 0) return [];
  switch (layout.indexType) {
    case ChunkIndexType.btreeV1:
      return btreeV1Chunks(source, layout.address, g.chunkShape);
    case ChunkIndexType.single: {
      const single = layout.single ?? { size: g.chunkBytes, filterMask: 0 };
      return [{ coords: g.chunkShape.map(() => 0), address: layout.address, ...single }];
    }
    case ChunkIndexType.implicit: {
      const grid = chunkGrid(g.maxShape, g.chunkShape, "implicit");
      const total = grid.reduce((a, b) => a * b, 1);
      return Array.from({ length: total }, (_, i) => ({
        coords: unravel(i, grid),
        address: layout.address + i * g.chunkBytes,
        size: g.chunkBytes,
        filterMask: 0,
      }));
    }
    case ChunkIndexType.fixedArray: {
      const grid = chunkGrid(g.maxShape, g.chunkShape, "fixed array");
      return fromElements(await fixedArrayElements(source, layout.address), g, (i) => unravel(i, grid));
    }
    case ChunkIndexType.extensibleArray: {
      const unlimited = g.maxShape.findIndex((m) => m === Infinity);
      if (unlimited < 0) throw new Hdf5FormatError("extensible array index on a dataset without an unlimited dimension");
      // HDF5 moves the unlimited dimension first ("swizzles") before linearising.
      const order = [unlimited, ...g.chunkShape.map((_, d) => d).filter((d) => d !== unlimited)];
      const grid = order.map((d, k) => (k === 0 ? Infinity : Math.ceil(g.maxShape[d] / g.chunkShape[d])));
      return fromElements(await extensibleArrayElements(source, layout.address), g, (i) => {
        const swizzled = unravel(i, grid);
        const coords = new Array<number>(order.length);
        order.forEach((d, k) => (coords[d] = swizzled[k]));
        return coords;
      });
    }
    case ChunkIndexType.btreeV2:
      return btreeV2Chunks(source, layout.address, g);
    default:
      throw new Hdf5UnsupportedError(`chunk index type ${layout.indexType}`);
  }
}

function chunkGrid(maxShape: readonly number[], chunkShape: readonly number[], what: string): number[] {
  if (maxShape.some((m) => m === Infinity)) throw new Hdf5FormatError(`${what} chunk index on an unlimited dataset`);
  return maxShape.map((m, d) => Math.ceil(m / chunkShape[d]));
}

/** C-order coordinates of linear index `i` in a grid; the first extent may be Infinity. */
function unravel(i: number, grid: readonly number[]): number[] {
  const coords = new Array<number>(grid.length);
  for (let d = grid.length - 1; d > 0; d--) {
    coords[d] = i % grid[d];
    i = Math.floor(i / grid[d]);
  }
  if (grid.length > 0) coords[0] = i;
  return coords;
}

function fromElements(elements: IndexElement[], g: ChunkGeometry, coordsOf: (i: number) => number[]): StoredChunk[] {
  const out: StoredChunk[] = [];
  elements.forEach((e, i) => {
    if (e.address >= 0) out.push({ coords: coordsOf(i), address: e.address, size: e.size ?? g.chunkBytes, filterMask: e.filterMask });
  });
  return out;
}

/** Records of type 10 (address, scaled offsets) and 11 (address, size, filter mask, scaled offsets). */
async function btreeV2Chunks(source: Hdf5Source, address: number, g: ChunkGeometry): Promise<StoredChunk[]> {
  const rank = g.chunkShape.length;
  const out: StoredChunk[] = [];
  const type = await eachRecord(source, address, (r) => {
    const chunkAddress = r.offset();
    const sizeBytes = r.remaining - 8 * rank - 4;
    const filtered = sizeBytes > 0;
    const size = filtered ? r.uint(sizeBytes) : g.chunkBytes;
    const filterMask = filtered ? r.u32() : 0;
    const coords = Array.from({ length: rank }, () => r.u64());
    out.push({ coords, address: chunkAddress, size, filterMask });
  });
  if (type !== 10 && type !== 11) throw new Hdf5FormatError(`chunk index is a v2 B-tree of type ${type}`);
  return out;
}
