/**
 * Copy the kept slices and window of a cube's variables into a sink, one output chunk
 * (one slice by one spatial tile) at a time: memory is one tile whatever the cube's size.
 * Pure orchestration over the Cube interface; knows nothing of formats or jobs.
 */
import type { BlockHold } from "../cube/blockHold.js";
import { combinationAt } from "../cube/combinations.js";
import { type Cube, type Slab, type TypedArray, type Window, variableNamed } from "../cube/types.js";
import type { ChunkSummaries } from "../cube/chunkSummaries.js";
import { type Share, ownStepCount, ownsStep } from "./share.js";
import { type Statistics, statisticsAccumulator } from "./statistics.js";
import { sliceChunk, windowTiles } from "./tiles.js";

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
  const { height, width } = sliceChunk(plan.window, plan.tile);
  const tiles = windowTiles(plan.window, height, width);
  const slicesOf = (indices: readonly (readonly number[])[]) => indices.reduce((n, list) => n * list.length, 1);
  const total = ownStepCount(
    plan.variables.reduce((n, v) => n + slicesOf(v.indices) * tiles.length, 0),
    options.share,
  );
  const stats = new Map<string, Statistics | undefined>();
  let step = 0;
  let done = 0;
  for (const spec of plan.variables) {
    const v = variableNamed(cube, spec.name);
    const acc = statisticsAccumulator();
    const slices = slicesOf(spec.indices);
    for (let s = 0; s < slices; s++) {
      // The s-th combination of kept indices: its output position.
      const out = combinationAt(
        s,
        spec.indices.map((list) => list.length),
      );
      const dims = out.map((o, d) => [spec.indices[d][o], spec.indices[d][o] + 1] as const);
      for (const { ox, oy, ...window } of tiles) {
        if (!ownsStep(step++, options.share)) continue;
        options.signal?.throwIfAborted();
        const slab = await v.read({ dims, window, signal: options.signal });
        acc.add(slab.data, v.nodata);
        await sink.writeBlock(spec.name, [...out, oy, ox], slab);
        options.onProgress?.(++done / total);
      }
    }
    stats.set(spec.name, acc.result());
  }
  return stats;
}
