/**
 * What the streamed walks share: their units (a variable at one value of each of its other
 * dimensions, over one band of rows) and reading runs of slices in storage order, one run
 * ahead; a share takes every count-th run, so shares of one pass never read or write the
 * same chunk.
 */
import type { BlockHold } from "../cube/blockHold.js";
import type { Cube, IndexRange, Selection, Slab, TypedArray, Variable, Window } from "../cube/types.js";
import { PIXEL_ARRAYS, STD_TIME, variableNamed } from "../cube/types.js";
import { combinationAt } from "../cube/combinations.js";
import { type Share, ownStepCount, ownsStep } from "./share.js";

/** How a streamed walk goes, besides its method: bands and runs (plan/walkPlan.ts chose them). */
export interface StreamShape {
  readonly variables: readonly string[];
  /** Spatial window of the source (north-up pixels). */
  readonly window: Window;
  /** Rows of the window per band. */
  readonly bandRows: number;
  /** Columns of the window per unit: its width, or blocks of whole chunks when a band's runs would be too large. */
  readonly bandColumns: number;
  /** Runs of slices of each variable along StdTime, in storage order. */
  readonly runs: Readonly<Record<string, readonly IndexRange[]>>;
}

/** One variable at one value of each of its other dimensions, over one band of rows (or a block of it). */
export interface StreamUnit {
  readonly variable: string;
  /** Index ranges over the variable's dimensions: StdTime whole, one index of the others. */
  readonly dims: readonly IndexRange[];
  /** The band of the source (absolute rows and columns). */
  readonly band: Window;
  /** The band's first row and column in the output. */
  readonly row: number;
  readonly column: number;
}

/**
 * The units of a streamed walk, variable by variable, in order.
 * @example
 * for (const unit of streamUnits(cube, plan)) ...
 */
export function streamUnits(cube: Cube, plan: StreamShape): StreamUnit[] {
  const units: StreamUnit[] = [];
  const { window } = plan;
  for (const name of plan.variables) {
    const v = variableNamed(cube, name);
    const t = v.dimensions.findIndex((d) => d.name === STD_TIME);
    const sizes = v.dimensions.map((d, i) => (i === t ? 1 : d.values.length));
    const count = sizes.reduce((a, b) => a * b, 1);
    for (let c = 0; c < count; c++) {
      const dims = combinationAt(c, sizes).map((i, d): IndexRange => (d === t ? [0, v.dimensions[t].values.length] : [i, i + 1]));
      for (let row = 0; row < window.height; row += plan.bandRows) {
        for (let column = 0; column < window.width; column += plan.bandColumns) {
          const height = Math.min(plan.bandRows, window.height - row);
          const band = { x: window.x + column, y: window.y + row, width: Math.min(plan.bandColumns, window.width - column), height };
          units.push({ variable: name, dims, band, row, column });
        }
      }
    }
  }
  return units;
}

export interface RunWalk {
  readonly share?: Share;
  readonly signal?: AbortSignal;
  /** Progress of this share through its runs, 0..1. */
  readonly onProgress?: (fraction: number) => void;
  /** Where a run's values come from, when not the variable itself (e.g. kept by an earlier pass). */
  readonly source?: (selection: Selection) => Promise<Slab>;
  /** Where the walk's own run arrays come from, when a kernel wants the runs in its memory (undefined: a plain array). */
  readonly arrays?: (length: number) => TypedArray | undefined;
}

/**
 * Hand `use` each of the share's runs of `v` over `band` (its values slice-major, and the
 * run's first StdTime index); `dims` fixes the other dimensions. The values are `use`'s only
 * until it resolves, or until what it gave `hold` settles (a write from their memory still in
 * flight): their array is offered to the reader again for a later run (runs are megabytes
 * each, and a fresh array per run kept the collector and the kernel busy). A hold that
 * rejects fails the walk.
 * @example
 * await eachRun(v, runs, dims, band, { share }, async (t0, values, hold) => { ... await sink.keepBlock(name, start, { data: values, shape }, hold) });
 */
export async function eachRun(
  v: Variable,
  runs: readonly IndexRange[],
  dims: readonly IndexRange[],
  band: Window,
  walk: RunWalk,
  use: (t0: number, values: TypedArray, hold: BlockHold) => Promise<void>,
): Promise<void> {
  const { signal, share } = walk;
  const t = v.dimensions.findIndex((d) => d.name === STD_TIME);
  const otherCount = dims.reduce((n, [a, b], d) => (d === t ? n : n * (b - a)), 1);
  const mine = runs.filter((_, i) => ownsStep(i, share));
  const total = ownStepCount(runs.length, share);
  // Arrays of this walk's own, offered to the reader run after run: the reader's own arrays
  // are never reused (one might be shared with a cache of its own).
  const spare: TypedArray[] = [];
  /** Arrays a run's use still holds (a write from them in flight): each back in `spare` once its hold settles. */
  const holding = new Set<Promise<void>>();
  let offer = true; // until the reader shows it does not fill them
  const arrayFor = async (length: number): Promise<TypedArray | undefined> => {
    if (!offer) return undefined;
    for (;;) {
      const i = spare.findIndex((a) => a.length >= length);
      if (i >= 0) return spare.splice(i, 1)[0];
      const fresh = walk.arrays?.(length);
      if (fresh) return fresh;
      // The kernel's arrays all held: the first let go, rather than one the kernel cannot take.
      if (holding.size === 0) return new PIXEL_ARRAYS[v.pixelType](length);
      await Promise.race(holding);
    }
  };
  const read = (run: IndexRange) => {
    const length = (run[1] - run[0]) * band.width * band.height * otherCount;
    const got = arrayFor(length).then(async (own) => {
      const selection = { dims: dims.map((r, d) => (d === t ? run : r)), window: band, signal, into: own?.subarray(0, length) };
      return { slab: await (walk.source ? walk.source(selection) : v.read(selection)), own };
    });
    got.catch(() => {}); // awaited in turn; never an unhandled rejection meanwhile
    return got;
  };
  let next = mine.length > 0 ? read(mine[0]) : undefined;
  for (let i = 0; i < mine.length; i++) {
    signal?.throwIfAborted();
    const { slab, own } = await next!;
    next = i + 1 < mine.length ? read(mine[i + 1]) : undefined;
    // Before this run's computing (synchronous, in a kernel): the next run's reads reach their
    // chunks' reads and fetches (io/hdf5/chunkFetcher.ts) only through several awaits, and a
    // fetch posted after the computing overlaps none of it (a LINEAR trend 1.5 s, not 2.0).
    await new Promise((resolve) => setImmediate(resolve));
    let hold: Promise<unknown> | undefined;
    await use(mine[i][0], slab.data, (until) => void (hold = hold ? Promise.all([hold, until]) : until));
    if (!own || slab.data.buffer !== own.buffer) offer = false;
    else if (!hold) spare.push(own);
    else {
      const back: Promise<void> = hold.then(() => {
        holding.delete(back);
        spare.push(own);
      });
      back.catch(() => {}); // awaited below, or by the next read that waits for an array
      holding.add(back);
    }
    walk.onProgress?.((i + 1) / total);
  }
  await Promise.all(holding);
}
