/**
 * Copy the kept slices and window of a cube's variables into a sink, one output chunk (one
 * slice by one spatial tile) at a time, or, for a variable stored many time steps per chunk,
 * a tile through a stored chunk's kept steps at a time (subsetLayout.ts): memory is bounded
 * whatever the cube's size.
 * Pure orchestration over the Cube interface; knows nothing of formats or jobs.
 */
import type { BlockHold } from "../cube/blockHold.js";
import { combinationAt, combinationCount } from "../cube/combinations.js";
import {
  type Cube,
  type IndexRange,
  STD_TIME,
  type Slab,
  type TypedArray,
  type Variable,
  type Window,
  variableNamed,
} from "../cube/types.js";
import type { ChunkSummaries } from "../cube/chunkSummaries.js";
import { type Share, ownStepCount, ownsStep } from "./share.js";
import { type Statistics, statisticsAccumulator } from "./statistics.js";
import { chunkGroups, subsetLayout } from "./subsetLayout.js";
import { windowTiles } from "./tiles.js";

export interface BlockSink {
  /**
   * Write `slab` at `start` (over [...dims, rows, cols] of the output variable). The caller
   * may reuse the slab's array once this resolves. With `summaries`, the sink may summarize
   * the block's chunks where it encodes them (off the caller's thread): it resolves true when
   * it handed every chunk's summary to `summaries.take`, else the caller summarizes the block.
   * With `hold`, the sink may go on reading the slab's array after this resolves, until what
   * it gives `hold` settles (a block in shared memory written from there).
   */
  writeBlock(variable: string, start: readonly number[], slab: Slab, summaries?: ChunkSummaries, hold?: BlockHold): Promise<boolean | void>;
  /**
   * Keep `slab` for a later pass to read back with readKept; false when the sink cannot
   * (then nothing was kept). With `hold`, as writeBlock's.
   */
  keepBlock?(variable: string, start: readonly number[], slab: Slab, hold?: BlockHold): Promise<boolean>;
  /**
   * A block kept by keepBlock, read back (into `into` when given) and no longer kept;
   * undefined when it is not kept (never, or read back already).
   */
  readKept?(variable: string, start: readonly number[], shape: readonly number[], into?: TypedArray): Promise<TypedArray | undefined>;
}

export interface SubsetPlan {
  /** Variables to copy, each with the kept source indices of each of its dimensions. */
  readonly variables: readonly { readonly name: string; readonly indices: readonly (readonly number[])[] }[];
  /** Spatial window of the source (north-up pixels). */
  readonly window: Window;
  /** Spatial tile edge of output chunks (see sliceChunk). */
  readonly tile: number;
  /** What one read through a stored chunk's time steps may hold (subsetLayout; default SUBSET_RUN_BYTES): threads sharing a job split it. */
  readonly runBudgetBytes?: number;
}

export interface CopyOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (fraction: number) => void;
  /** Do only this share of the tiles (another thread does the rest); default all. */
  readonly share?: Share;
}

/**
 * @example
 * const stats = await copySubset(cube, { variables: [{ name: "sst", indices: [[0, 2]] }], window, tile: 512 }, writer);
 */
export async function copySubset(
  cube: Cube,
  plan: SubsetPlan,
  sink: BlockSink,
  options: CopyOptions = {},
): Promise<Map<string, Statistics | undefined>> {
  const reads = plan.variables.map((spec) => readsOf(variableNamed(cube, spec.name), spec, plan));
  const total = ownStepCount(
    reads.reduce((n, r) => n + r.length, 0),
    options.share,
  );
  const stats = new Map<string, Statistics | undefined>();
  let step = 0;
  let done = 0;
  for (const [k, spec] of plan.variables.entries()) {
    const v = variableNamed(cube, spec.name);
    const acc = statisticsAccumulator();
    for (const read of reads[k]) {
      if (!ownsStep(step++, options.share)) continue;
      options.signal?.throwIfAborted();
      const slab = await v.read({ dims: read.dims, window: read.window, signal: options.signal });
      // One slice, or several of the time axis (kept or not) of which `read.slices` are kept.
      const size = read.window.height * read.window.width;
      for (const { out, at } of read.slices) {
        const slice = {
          data: slab.data.subarray(at * size, (at + 1) * size),
          shape: [...out.map(() => 1), read.window.height, read.window.width],
        };
        acc.add(slice.data, v.nodata);
        await sink.writeBlock(spec.name, [...out, read.window.oy, read.window.ox], slice);
      }
      options.onProgress?.(++done / total);
    }
    stats.set(spec.name, acc.result());
  }
  return stats;
}

/** One read of a copy: a tile through one or more steps, and where each kept slice of it goes. */
interface SubsetRead {
  readonly dims: IndexRange[];
  readonly window: Window & { readonly ox: number; readonly oy: number };
  /** Each kept slice: its output position and its place among the read's slices. */
  readonly slices: { readonly out: number[]; readonly at: number }[];
}

/**
 * A variable's reads in the order its layout walks them (subsetLayout): a slice by a tile,
 * or a tile through the kept steps of one stored chunk along time (tiles outermost, so each
 * stored chunk is read once).
 */
function readsOf(v: Variable, spec: SubsetPlan["variables"][number], plan: SubsetPlan): SubsetRead[] {
  const layout = subsetLayout(v, plan.window, plan.tile, plan.runBudgetBytes);
  const tiles = windowTiles(plan.window, layout.height, layout.width);
  const t = v.dimensions.findIndex((d) => d.name === STD_TIME);
  const dimsAt = (at: readonly number[]) => at.map((o, d): IndexRange => [spec.indices[d][o], spec.indices[d][o] + 1]);
  const reads: SubsetRead[] = [];
  if (layout.timeChunk === undefined || t < 0) {
    const counts = spec.indices.map((list) => list.length);
    for (let c = 0; c < combinationCount(counts); c++) {
      const at = combinationAt(c, counts);
      for (const window of tiles) reads.push({ dims: dimsAt(at), window, slices: [{ out: at, at: 0 }] });
    }
    return reads;
  }
  // The other dimensions a slice at a time, the time axis a stored chunk's kept steps at a time.
  const counts = spec.indices.map((list, d) => (d === t ? 1 : list.length));
  const groups = chunkGroups(spec.indices[t], layout.timeChunk);
  for (const window of tiles) {
    for (let c = 0; c < combinationCount(counts); c++) {
      const at = combinationAt(c, counts);
      for (const [from, to] of groups) {
        const kept = spec.indices[t].slice(from, to);
        const first = Math.min(...kept);
        const dims = dimsAt(at);
        dims[t] = [first, Math.max(...kept) + 1];
        const slices = kept.map((index, i) => ({ out: at.map((o, d) => (d === t ? from + i : o)), at: index - first }));
        reads.push({ dims, window, slices });
      }
    }
  }
  return reads;
}
