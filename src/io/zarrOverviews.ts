/**
 * Overview levels of a Zarr output, written in the same pass as the data (issue 11): each
 * level halves the one before, down to the one nearest OVERVIEW_EDGE pixels on the longer
 * side, so a zoomed-out image reads about the pixels it draws. Level f (2, 4, 8 ...) is a complete Zarr
 * store of its own at `overviews/<f>/` inside the output (coordinates, grid mapping,
 * georeferencing, v2 metadata: any Zarr reader opens it alone); the root lists the levels in
 * its `strata:overviews` attribute, and readers of the root see none of their arrays.
 *
 * A block of level f is the 2 × 2 reduction of the block just written at level f/2: the mean
 * of the valid values for floating-point data, the upper-left value (nearest, GDAL's default)
 * for integers, whose values may be classes. That needs every block to start on an even row
 * and column of its level and to be even-sized unless it reaches the level's edge, which
 * holds for blocks of whole chunks when the chunk's edges divide by f: a variable gets the
 * levels its output chunks allow (overviewFactors, alignedFactors).
 */
import type { Slab, TypedArray } from "../cube/types.js";

/**
 * The coarsest level's longer side is the nearest to this (by ratio): a level is made while
 * it is at least OVERVIEW_EDGE / √2 long. A grid up to about 724 cells a side gets none (an
 * image of it reads at most 1.4 times the cells it draws), and the levels' cost (a third more
 * chunks to compress and write: 3 s of a 16 s daily anomaly of a 360 × 720 grid) is paid
 * only where they save reads.
 */
export const OVERVIEW_EDGE = 512;

/** Where a store keeps its levels, and the root attribute listing them. */
export const OVERVIEWS_ATTRIBUTE = "strata:overviews";

/** One level as the root attribute lists it. */
export interface OverviewLevel {
  /** Relative to the store's root, e.g. "overviews/2". */
  readonly path: string;
  /** Cells of the full grid along each side of one of its cells. */
  readonly factor: number;
  /** The variables it holds. */
  readonly variables: readonly string[];
}

/**
 * The factors of a grid's levels: 2, 4, ... while the level is at least OVERVIEW_EDGE / √2 long.
 * @example
 * overviewFactors(3600, 7200); // [2, 4, 8, 16]: the last level is 450 long
 * overviewFactors(360, 720); // []: a level would be 360 long
 */
export function overviewFactors(height: number, width: number): number[] {
  const factors: number[] = [];
  for (let f = 2; Math.ceil(Math.max(height, width) / f) >= OVERVIEW_EDGE / Math.SQRT2; f *= 2) factors.push(f);
  return factors;
}

/**
 * The leading factors a variable's output chunks allow: each spatial chunk edge divides by
 * the factor or covers its whole axis.
 * @example
 * alignedFactors([1, 512, 512], [3600, 7200], [2, 4, 8, 16]); // [2, 4, 8, 16]
 * alignedFactors([1, 61, 61], [3600, 7200], [2, 4]); // []
 */
export function alignedFactors(
  chunkShape: readonly number[],
  spatialShape: readonly [number, number],
  factors: readonly number[],
): number[] {
  const edges = chunkShape.slice(-2);
  const out: number[] = [];
  for (const f of factors) {
    if (!edges.every((c, i) => c % f === 0 || c >= spatialShape[i])) break;
    out.push(f);
  }
  return out;
}

/**
 * A chunk shape at level f: spatial edges divided by f, or the level's whole axis.
 * @example
 * levelChunks([1, 512, 720], [360, 720], 2); // [1, 256, 360]
 */
export function levelChunks(chunkShape: readonly number[], spatialShape: readonly [number, number], f: number): number[] {
  const lead = chunkShape.slice(0, -2);
  const spatial = chunkShape.slice(-2).map((c, i) => (c >= spatialShape[i] ? Math.ceil(spatialShape[i] / f) : c / f));
  return [...lead, ...spatial];
}

/**
 * The 2 × 2 reduction of a block at `start` of a level whose spatial shape is `levelShape`,
 * and where it goes in the next level. Throws when the block is not aligned (see above).
 * @example
 * const { start, slab } = halveBlock([0, 0, 0], block, [360, 720], undefined);
 */
export function halveBlock(
  start: readonly number[],
  block: Slab,
  levelShape: readonly [number, number],
  /** The nodata value of floating-point blocks besides NaN (integers are never averaged). */
  nodata: number | undefined,
  /** An array of the block's type to reduce into when it is large enough (the result is a view of it). */
  reuse?: TypedArray,
): { start: number[]; slab: Slab } {
  const rank = block.shape.length;
  const [rows, cols] = block.shape.slice(-2);
  const [r0, c0] = start.slice(-2);
  const aligned = [
    [r0, rows, levelShape[0]],
    [c0, cols, levelShape[1]],
  ].every(([at, n, size]) => at % 2 === 0 && (n % 2 === 0 || at + n === size));
  if (!aligned)
    throw new Error(`an overview needs blocks on even rows and columns; got one at ${start.join(",")} of ${block.shape.join("×")}`);
  const outRows = Math.ceil(rows / 2);
  const outCols = Math.ceil(cols / 2);
  const slices = block.data.length / (rows * cols);
  const Typed = block.data.constructor as new (length: number) => TypedArray;
  const floating = block.data instanceof Float32Array || block.data instanceof Float64Array;
  const check = nodata !== undefined && !Number.isNaN(nodata);
  const length = slices * outRows * outCols;
  const out = reuse && reuse.constructor === Typed && reuse.length >= length ? reuse.subarray(0, length) : new Typed(length);
  for (let s = 0; s < slices; s++) {
    const from = s * rows * cols;
    const to = s * outRows * outCols;
    if (floating) meanOfFour(block.data, from, rows, cols, out, to, check, check ? nodata : Number.NaN);
    else upperLeft(block.data, from, rows, cols, out, to);
  }
  const shape = [...block.shape.slice(0, rank - 2), outRows, outCols];
  return { start: [...start.slice(0, rank - 2), r0 / 2, c0 / 2], slab: { data: out, shape } };
}

/**
 * Mean of the valid values of each 2 × 2 cell (fewer at an odd edge); NaN, or nodata, when
 * none is. Written for V8 to keep every number unboxed (a mean stored through a variable that
 * could also hold the nodata parameter made it allocate a heap number per cell: 5 times as
 * slow; test/analysis/kernelAllocation.test.ts), the four reads unrolled.
 */
function meanOfFour(
  src: TypedArray,
  from: number,
  rows: number,
  cols: number,
  out: TypedArray,
  to: number,
  checkNodata: boolean,
  /** The nodata value, and what a cell with no valid value gets (NaN without one). */
  nodata: number,
): void {
  const outCols = Math.ceil(cols / 2);
  for (let r = 0; r < rows; r += 2) {
    const top = from + r * cols;
    const bottom = r + 1 < rows ? top + cols : -1;
    let o = to + (r >> 1) * outCols;
    for (let c = 0; c < cols; c += 2) {
      const wide = c + 1 < cols;
      let sum = 0;
      let count = 0;
      let v = src[top + c];
      if (v === v && !(checkNodata && v === nodata)) {
        sum += v;
        count++;
      }
      if (wide) {
        v = src[top + c + 1];
        if (v === v && !(checkNodata && v === nodata)) {
          sum += v;
          count++;
        }
      }
      if (bottom >= 0) {
        v = src[bottom + c];
        if (v === v && !(checkNodata && v === nodata)) {
          sum += v;
          count++;
        }
        if (wide) {
          v = src[bottom + c + 1];
          if (v === v && !(checkNodata && v === nodata)) {
            sum += v;
            count++;
          }
        }
      }
      // Two stores, not one of a value that is either: that merge is where V8 boxed.
      if (count > 0) out[o++] = sum / count;
      else out[o++] = nodata;
    }
  }
}

function upperLeft(src: TypedArray, from: number, rows: number, cols: number, out: TypedArray, to: number): void {
  const outCols = Math.ceil(cols / 2);
  for (let r = 0; r < rows; r += 2) {
    let o = to + (r / 2) * outCols;
    const at = from + r * cols;
    for (let c = 0; c < cols; c += 2) out[o++] = src[at + c];
  }
}

/** Writes a block into one level (a BlockWriter of the level's store). */
export interface LevelWriter {
  readonly factor: number;
  readonly variables: ReadonlySet<string>;
  writeBlock(variable: string, start: readonly number[], slab: Slab): Promise<unknown>;
}

/**
 * Write the reductions of a block just written at full resolution into every level that
 * holds its variable, each from the one before.
 * @example
 * await writeLevels(levels, "tas", [0, 0, 0], slab, [360, 720], undefined);
 */
export async function writeLevels(
  levels: readonly LevelWriter[],
  variable: string,
  start: readonly number[],
  slab: Slab,
  spatialShape: readonly [number, number],
  nodata: number | undefined,
): Promise<void> {
  let block = { start: [...start], slab };
  let previous = 1;
  for (const level of levels) {
    if (!level.variables.has(variable)) break;
    const shape: [number, number] = [Math.ceil(spatialShape[0] / previous), Math.ceil(spatialShape[1] / previous)];
    // A level's writer is done with a block once writeBlock resolves, so its array serves the
    // next block; a block that comes while one is still being handed over gets its own.
    const owner = !busy.has(level);
    const reuse = owner ? reduced.get(level) : undefined;
    block = halveBlock(block.start, block.slab, shape, nodata, reuse);
    if (owner) {
      reduced.set(level, reuse && block.slab.data.buffer === reuse.buffer ? reuse : block.slab.data);
      busy.add(level);
    }
    try {
      await level.writeBlock(variable, block.start, block.slab);
    } finally {
      if (owner) busy.delete(level);
    }
    previous = level.factor;
  }
}

/** The array each level reduces into, kept between blocks (no garbage per block), and the levels handing one over. */
const reduced = new WeakMap<LevelWriter, TypedArray>();
const busy = new WeakSet<LevelWriter>();
