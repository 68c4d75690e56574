/**
 * How a block's writer says it goes on reading the block's memory after its call returns (a
 * block in a kernel's shared memory, encoded from there by another thread): it gives `hold`
 * what settles once it is done, and until then the caller leaves that memory alone. Shared
 * by analysis/ (the walks that hold their runs' arrays, analysis/runs.ts) and io/ (the
 * writers that hold them, io/zarrChunks.ts), so that neither imports the other.
 */
export type BlockHold = (until: Promise<unknown>) => void;
