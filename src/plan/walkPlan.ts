/**
 * How to walk an input for a per-pixel time analysis, chosen from how the input is stored
 * (DESIGN.md, "How to walk a cube fast"):
 * - `tile`: spatial tiles through the whole time axis, when that reads each stored chunk
 *   once (time stored whole, one tile covers the window, or the tiles hold whole chunks) or
 *   when nothing else fits;
 * - `stream`: runs of slices in storage order over bands of rows, for methods whose state is
 *   per-pixel accumulators of groups × grid; every stored chunk is read once per band it
 *   meets and pass, and the band is the whole window unless the accumulators would not fit
 *   or a run of whole chunks over it would be too large (chunks of many time steps: then
 *   bands of whole chunk rows, cut in blocks of whole chunks when a run over a band still
 *   would be, no wider than the output's chunks);
 * - `transpose`: for methods that need each pixel's whole series (medians, Kendall), runs of
 *   slices in storage order over the whole window (or over blocks of whole chunks, when a
 *   run of whole chunks over the window would be too large), written once into time-whole
 *   tiles of the job's scratch, which the tile walk then reads.
 * The plan says why it was chosen, for the job's messages. Knows the cube model only.
 */
import { overviewAligned } from "../analysis/tiles.js";
import { STD_TIME, type IndexRange, type Variable, type Window } from "../cube/types.js";
import { readsPerChunk } from "./chunkReads.js";

/** Values read at once by a stream, about (counted as float64). */
const RUN_BYTES = 16 * 1024 * 1024;

/** Runs a stream is cut into at least, where there are chunks enough. */
const MIN_RUNS = 8;

/** Memory for one band's accumulators on one thread. */
export const ACCUMULATOR_BUDGET_BYTES = 192 * 1024 * 1024;

export interface StreamShape {
  /** Bytes of state per pixel and group (sums, counts ...). */
  readonly bytesPerPixelGroup: number;
  /** Groups the method keeps apart (12 for RECURRING_MONTHLY, 1 for a trend). */
  readonly groups: number;
  /** Rows of an output chunk at most: bands as tall as that are whole multiples of it. */
  readonly outputRows: number;
}

export type WalkPlan =
  | { readonly kind: "tile"; readonly reason: string }
  | {
      readonly kind: "stream";
      readonly reason: string;
      /** Rows of the window per band (the last may be shorter); the window's height for one band. */
      readonly bandRows: number;
      /** Columns per block of a band (whole chunks when a band's runs would be too large); the window's width otherwise. */
      readonly bandColumns: number;
      /** Runs of slices along StdTime, each a whole number of stored chunks. */
      readonly runs: readonly IndexRange[];
    }
  | {
      readonly kind: "transpose";
      readonly reason: string;
      /** Rows and columns of the window per block (whole chunks; the window's for one block). */
      readonly bandRows: number;
      readonly bandColumns: number;
      /** Runs of slices along StdTime over a block, each a whole number of stored chunks. */
      readonly runs: readonly IndexRange[];
      /** The tile walk's tile it was planned for (cubeWalk fits the variables' tiles to the blocks). */
      readonly tile: TileShape;
    };

/** A spatial tile: rows × columns. */
export interface TileShape {
  readonly height: number;
  readonly width: number;
}

/**
 * @example
 * const plan = chooseWalk(v, window, { bytesPerPixelGroup: 21, groups: 12, outputRows: 512 }, { height: 48, width: 48 });
 * if (plan.kind === "stream") for (const [t0, t1] of plan.runs) ...
 */
export function chooseWalk(
  v: Variable,
  window: Window,
  shape: StreamShape | undefined,
  /** The tile the tile walk would take. */
  tile: { readonly height: number; readonly width: number },
  accumulatorBudgetBytes = ACCUMULATOR_BUDGET_BYTES,
): WalkPlan {
  const t = v.dimensions.findIndex((d) => d.name === STD_TIME);
  const slices = v.dimensions[t]?.values.length ?? 1;
  const timeChunk = Math.max(1, v.chunkShape[t] ?? slices);
  const tiles = Math.ceil(window.height / tile.height) * Math.ceil(window.width / tile.width);
  if (timeChunk >= slices)
    return {
      kind: "tile",
      reason: `${v.name} is stored with its ${slices} time steps in each chunk, so tiles through time read each chunk once`,
    };
  if (tiles === 1) return { kind: "tile", reason: `${v.name} is small enough to hold whole (one tile through its ${slices} time steps)` };
  if (readsPerChunk(v, window, tile) === 1) {
    return {
      kind: "tile",
      reason: `${v.name} is stored ${v.chunkShape.join(" × ")} a chunk, so ${tiles} tiles of ${tile.height} × ${tile.width} pixels through its ${slices} time steps hold whole chunks and read each chunk once`,
    };
  }
  if (!shape) {
    const rows = chunkRowBand(v, window, window.height, timeChunk);
    const columns = chunkColumnBlock(v, window, rows, timeChunk);
    const runs = storageRuns(slices, timeChunk, rows * columns * 8);
    const fitted = transposedTile([tile], rows, columns, window) ?? tile;
    const transposed = Math.ceil(window.height / fitted.height) * Math.ceil(window.width / fitted.width);
    const blocks = Math.ceil(window.height / rows) * Math.ceil(window.width / columns);
    const how =
      blocks === 1
        ? `(${runs.length} runs, each chunk read once)`
        : `in ${blocks} blocks of ${rows} × ${columns} pixels, as a run of whole chunks over the window would exceed ${mb(RUN_BYTES)} (${runs.length} runs a block, each chunk read once),`;
    return {
      kind: "transpose",
      reason: `${v.name} is stored ${timeChunk} time step(s) per chunk and this method needs each pixel's whole series: transposing its ${slices} time steps once in storage order ${how} into ${transposed} time-whole tiles`,
      bandRows: rows,
      bandColumns: columns,
      runs,
      tile,
    };
  }
  const perRow = shape.bytesPerPixelGroup * shape.groups * window.width;
  const fitRows = Math.floor(accumulatorBudgetBytes / perRow);
  const bandRows =
    fitRows >= window.height
      ? window.height
      : fitRows >= shape.outputRows
        ? Math.floor(fitRows / shape.outputRows) * shape.outputRows
        : overviewAligned(fitRows);
  if (bandRows < 1) {
    return {
      kind: "tile",
      reason: `${shape.groups} groups of accumulators for one row of ${window.width} pixels would exceed ${mb(accumulatorBudgetBytes)}; walking ${tiles} tiles through time instead`,
    };
  }
  const rows = chunkRowBand(v, window, Math.min(bandRows, window.height), timeChunk);
  // Output chunks no wider than shape.outputRows divide a block's columns.
  const columns = chunkColumnBlock(v, window, rows, timeChunk, shape.outputRows);
  const units = Math.ceil(window.height / rows) * Math.ceil(window.width / columns);
  const runs = storageRuns(slices, timeChunk, rows * columns * 8);
  const reads = readsPerChunk(v, window, { height: rows, width: columns });
  const why = rows < bandRows ? `a run of whole chunks over the window would exceed ${mb(RUN_BYTES)}:` : "accumulators fill";
  const parts = columns < window.width ? `${units} blocks of ${rows} × ${columns} pixels` : `${units} bands of ${rows} rows`;
  const how =
    units === 1
      ? "each chunk is read once per pass"
      : `${why} ${parts}, so each chunk is read ${reads === 1 ? "once" : `${round(reads)} times`} per pass`;
  return {
    kind: "stream",
    reason: `${v.name} is stored ${timeChunk} time step(s) per chunk: streaming its ${slices} time steps in storage order (${runs.length} runs) with ${shape.groups} group(s) of per-pixel accumulators; ${how}`,
    bandRows: rows,
    bandColumns: columns,
    runs,
  };
}

/**
 * The one tile every variable's tile walk takes after a transposition in blocks of
 * `bandRows` × `bandColumns` pixels, so that whole tiles fill each block (each tile is
 * written by one block's runs): the smallest of their tiles, lower and narrower where it
 * must be (each edge then the largest that divides the block's). Undefined when their own
 * tiles do (one block over the window, or edges that divide the block's).
 * @example
 * transposedTile([{ height: 32, width: 32 }], 60, 720, { x: 0, y: 0, width: 720, height: 360 }); // { height: 30, width: 32 }
 */
export function transposedTile(
  tiles: readonly { readonly height: number; readonly width: number }[],
  bandRows: number,
  bandColumns: number,
  window: Window,
): { height: number; width: number } | undefined {
  const rows = bandRows < window.height;
  const columns = bandColumns < window.width;
  const fits = (t: { readonly height: number; readonly width: number }) =>
    (!rows || bandRows % t.height === 0) && (!columns || bandColumns % t.width === 0);
  if (tiles.every(fits)) return undefined;
  const smallest = tiles.reduce((a, b) => (b.height * b.width < a.height * a.width ? b : a));
  return {
    height: rows ? divisorAtMost(bandRows, smallest.height) : smallest.height,
    width: columns ? divisorAtMost(bandColumns, smallest.width) : smallest.width,
  };
}

/** The largest divisor of n that is at most `most`. */
function divisorAtMost(n: number, most: number): number {
  let d = Math.max(1, Math.min(most, n));
  while (n % d !== 0) d--;
  return d;
}

/**
 * Columns of blocks `rows` tall: the window's width while a run of one time chunk over it
 * stays within RUN_BYTES (or the chunks span it), else whole chunk columns, as many as stay
 * within it and within `most` (one chunk at least).
 */
function chunkColumnBlock(v: Variable, window: Window, rows: number, timeChunk: number, most = Infinity): number {
  const chunkColumns = Math.min(window.width, Math.max(1, v.chunkShape.at(-1) ?? window.width));
  const perColumn = timeChunk * rows * 8;
  if (window.width * perColumn <= RUN_BYTES || chunkColumns >= window.width) return window.width;
  const fit = Math.min(RUN_BYTES / perColumn, most);
  return Math.max(chunkColumns, Math.floor(fit / chunkColumns) * chunkColumns);
}

/**
 * Rows of a band no larger than `rows` whose runs (whole chunks of `timeChunk` steps) fit
 * RUN_BYTES, at least one row of chunks: chunks of 365 steps × 60 rows are read in bands of
 * 60 rows, each chunk once, where the window's 360 rows made runs of 757 MB.
 */
function chunkRowBand(v: Variable, window: Window, rows: number, timeChunk: number): number {
  const chunkRows = Math.min(window.height, Math.max(1, v.chunkShape.at(-2) ?? window.height));
  const perRow = timeChunk * window.width * 8;
  if (rows * perRow <= RUN_BYTES || chunkRows >= rows) return rows;
  return Math.max(chunkRows, Math.floor(RUN_BYTES / perRow / chunkRows) * chunkRows);
}

const round = (x: number) => Math.round(x * 10) / 10;

/**
 * Runs of whole stored chunks along time, about RUN_BYTES of a band each (several chunks a
 * run when slices are small: fewer, larger reads), and at least MIN_RUNS where the chunks
 * allow, so threads have runs to share.
 */
function storageRuns(slices: number, timeChunk: number, bandBytes: number): IndexRange[] {
  const chunksPerRun = Math.max(1, Math.min(Math.floor(RUN_BYTES / (timeChunk * bandBytes)), Math.floor(slices / timeChunk / MIN_RUNS)));
  const step = timeChunk * chunksPerRun;
  const runs: IndexRange[] = [];
  for (let s = 0; s < slices; s += step) runs.push([s, Math.min(slices, s + step)]);
  return runs;
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** The walk of a whole cube: tiles unless every variable streams (or every one transposes). */
export type CubeWalk =
  | { readonly kind: "tile"; readonly note: string }
  | {
      readonly kind: "stream" | "transpose";
      readonly note: string;
      /** Rows per band. */
      readonly bandRows: number;
      /** Columns per block. */
      readonly bandColumns: number;
      /** A transposition's one tile for every variable's tile walk, fitted to its blocks (absent: their own tiles fit). */
      readonly tile?: TileShape;
      /** Each variable's runs. */
      readonly runs: Readonly<Record<string, readonly IndexRange[]>>;
      /** The most shares a pass splits into: the fewest runs of any variable. */
      readonly shares: number;
    };

/**
 * Stream (or transpose) only when every variable does (they share the grid, so one band
 * height and block width serve).
 * @example
 * const walk = cubeWalk(new Map([["tas", chooseWalk(v, window, shape, tiles)]]), window, "tiles through time");
 */
export function cubeWalk(walks: ReadonlyMap<string, WalkPlan>, window: Window, tiles: string): CubeWalk {
  const all = [...walks.values()];
  const note = all.map((w) => w.reason).join("; ");
  for (const kind of ["stream", "transpose"] as const) {
    const alike = all.filter((w): w is Extract<WalkPlan, { kind: typeof kind }> => w.kind === kind);
    if (alike.length === 0 || alike.length < all.length) continue;
    const bandRows = Math.min(...alike.map((w) => w.bandRows));
    const bandColumns = Math.min(...alike.map((w) => w.bandColumns));
    const tile =
      kind === "transpose"
        ? transposedTile(
            alike.map((w) => (w as Extract<WalkPlan, { kind: "transpose" }>).tile),
            bandRows,
            bandColumns,
            window,
          )
        : undefined;
    return {
      kind,
      note: `${kind === "stream" ? "Streaming in storage order" : "Transposing in storage order"}: ${note}.`,
      bandRows,
      bandColumns,
      runs: Object.fromEntries([...walks].map(([name, w]) => [name, (w as (typeof alike)[number]).runs])),
      shares: Math.min(...alike.map((w) => w.runs.length)),
      ...(tile ? { tile } : {}),
    };
  }
  return { kind: "tile", note: `Walking ${tiles}: ${note}.` };
}

/** A task's walk: the cube's, with the task's plan given its bands and runs when it streams, its fitted tile when it transposes in blocks. */
export type TaskWalk<P> =
  | { readonly kind: "tile"; readonly note: string }
  | {
      readonly kind: "stream";
      readonly note: string;
      readonly shares: number;
      readonly plan: P & {
        readonly bandRows: number;
        readonly bandColumns: number;
        readonly runs: Readonly<Record<string, readonly IndexRange[]>>;
      };
    }
  | {
      readonly kind: "transpose";
      readonly note: string;
      readonly shares: number;
      /** Rows and columns per block of the transposition (transposedTile fits the tile walk's tiles to them). */
      readonly bandRows: number;
      readonly bandColumns: number;
      readonly runs: Readonly<Record<string, readonly IndexRange[]>>;
      /** The task's plan for its tile walk over the transposed input, its tile fitted to the blocks where it must be. */
      readonly plan: P;
    };

/**
 * @example
 * const walk = taskWalk(cubeWalk(walks, plan.window, "tiles through time"), plan);
 */
export function taskWalk<P extends { readonly tile?: number | TileShape }>(walk: CubeWalk, plan: P): TaskWalk<P> {
  if (walk.kind === "tile") return walk;
  if (walk.kind === "transpose")
    return {
      kind: "transpose",
      note: walk.note,
      shares: walk.shares,
      bandRows: walk.bandRows,
      bandColumns: walk.bandColumns,
      runs: walk.runs,
      plan: walk.tile ? { ...plan, tile: walk.tile } : plan,
    };
  const { bandRows, bandColumns, runs } = walk;
  return { kind: "stream", note: walk.note, shares: walk.shares, plan: { ...plan, bandRows, bandColumns, runs } };
}
