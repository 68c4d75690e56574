/**
 * Reading runs of slices in storage order, one run ahead, for the streamed walks: a share
 * takes every count-th run, so shares of one pass never read or write the same chunk.
 */
import type { IndexRange, TypedArray, Variable, Window } from "../cube/types.js";
import { STD_TIME } from "../cube/types.js";
import { type Share, ownStepCount, ownsStep } from "./share.js";

export interface RunWalk {
  readonly share?: Share;
  readonly signal?: AbortSignal;
  /** Progress of this share through its runs, 0..1. */
  readonly onProgress?: (fraction: number) => void;
}

/**
 * Hand `use` each of the share's runs of `v` over `band` (its values slice-major, and the
 * run's first StdTime index); `dims` fixes the other dimensions.
 * @example
 * await eachRun(v, runs, dims, band, { share }, async (t0, values) => { ... });
 */
export async function eachRun(
  v: Variable,
  runs: readonly IndexRange[],
  dims: readonly IndexRange[],
  band: Window,
  walk: RunWalk,
  use: (t0: number, values: TypedArray) => Promise<void>,
): Promise<void> {
  const { signal, share } = walk;
  const t = v.dimensions.findIndex((d) => d.name === STD_TIME);
  const mine = runs.filter((_, i) => ownsStep(i, share));
  const total = ownStepCount(runs.length, share);
  const read = (run: IndexRange) => {
    const p = v.read({ dims: dims.map((r, i) => (i === t ? run : r)), window: band, signal });
    p.catch(() => {}); // awaited in turn; never an unhandled rejection meanwhile
    return p;
  };
  let next = mine.length > 0 ? read(mine[0]) : undefined;
  for (let i = 0; i < mine.length; i++) {
    signal?.throwIfAborted();
    const slab = await next!;
    next = i + 1 < mine.length ? read(mine[i + 1]) : undefined;
    await use(mine[i][0], slab.data);
    walk.onProgress?.((i + 1) / total);
  }
}
