/**
 * What a sink is asked when a block's chunks are to be summarized as they are written (the
 * output's statistics, computed by whichever thread encodes a chunk): shared by analysis/,
 * which asks (BlockSink.writeBlock, analysis/statistics.ts chunkStatistics), and io/, which
 * answers (io/chunkSummary.ts, the Zarr writer), so that neither imports the other.
 */

/** What summarizes a chunk: `module` (a URL) exports `name`, a function of (values, ChunkRegion, options); `options` is its last argument. */
export interface ChunkSummarizer {
  readonly module: string;
  readonly name: string;
  readonly options?: unknown;
}

/** Summaries asked of a block's chunks as they are written: each chunk's handed to `take`, in the block's chunk order. */
export interface ChunkSummaries {
  readonly summarizer: ChunkSummarizer;
  take(summary: Promise<unknown>): void;
}

/**
 * The chunk's region that belongs to the array: `extent` of `shape` (both in elements, per
 * dimension), from the chunk's origin; an edge chunk's other values are padding.
 */
export interface ChunkRegion {
  readonly shape: readonly number[];
  readonly extent: readonly number[];
}
