/**
 * Longitudes across the seam. A geographic grid stores its columns in one convention (0..360,
 * -180..180, or the navy winds' 20..370); an extent names ground in its own. `seamFor` finds
 * how to present the grid so that the extent's ground is one run of columns numbered in the
 * extent's convention: for a grid that goes round the whole earth, the columns rotated to start
 * at the extent's western edge (a window may then wrap past the last stored column); for a
 * regional grid, its longitudes moved by whole turns. `seamCube` is that presentation, a lazy
 * view whose reads split a window at the wrap into two reads of the source and join them.
 */
import { windowGrid } from "../cube/grid.js";
import { crsDefinition, isGeographicDefinition } from "./crs.js";
import { type Cube, type Grid, type Selection, type Slab, type Variable, type Window, describedAs } from "../cube/types.js";

/** The grid presented with column `firstColumn` of the source first and its west edge at `originX`. */
export interface Seam {
  readonly firstColumn: number;
  readonly originX: number;
}

const EPS = 1e-9;

/** North-up, unrotated, in degrees of longitude: the grids whose columns may be renumbered. */
function isLongitudeLattice(grid: Grid): boolean {
  const [, t1, t2, , t4, t5] = grid.transform;
  if (!(t1 > 0 && t2 === 0 && t4 === 0 && t5 < 0)) return false;
  const definition = crsDefinition(grid.crs);
  return definition !== undefined && isGeographicDefinition(definition);
}

/** Columns that go once round the earth. */
function goesRound(grid: Grid): boolean {
  const dx = grid.transform[1];
  return Math.abs(grid.width * dx - 360) <= 1e-6 * dx;
}

/**
 * How to present `grid` so that the longitudes [xmin, xmax] are contiguous columns in their own
 * convention, or undefined when the grid already does (or is not a lattice of a geographic CRS).
 * @example
 * // 36 columns of 10° centred on 20..370: -30..30 starts at the column centred on 330 (index 31)
 * seamFor(grid, { xmin: -30, xmax: 30 }); // { firstColumn: 31, originX: -35 }
 */
export function seamFor(grid: Grid, extent: { readonly xmin: number; readonly xmax: number }): Seam | undefined {
  if (!isLongitudeLattice(grid)) return undefined;
  const [t0, dx] = grid.transform;
  if (goesRound(grid)) {
    const k = Math.floor((extent.xmin - t0) / dx + EPS);
    const firstColumn = mod(k, grid.width);
    const originX = t0 + k * dx;
    return firstColumn === 0 && Math.abs(originX - t0) <= EPS * dx ? undefined : { firstColumn, originX };
  }
  // A regional grid: the whole turns that overlap the extent most (no move on a tie).
  const west = t0;
  const east = t0 + grid.width * dx;
  let best = 0;
  let bestOverlap = Math.min(east, extent.xmax) - Math.max(west, extent.xmin);
  for (const turns of [1, -1, 2, -2]) {
    const s = 360 * turns;
    const overlap = Math.min(east - s, extent.xmax) - Math.max(west - s, extent.xmin);
    if (overlap > bestOverlap + EPS * dx) [best, bestOverlap] = [s, overlap];
  }
  return best === 0 ? undefined : { firstColumn: 0, originX: t0 - best };
}

/**
 * The grid as `seam` presents it: columns rotated, origin moved, exact coordinates kept
 * (moved by whole turns to run on from the origin).
 */
export function seamGrid(grid: Grid, seam: Seam): Grid {
  const [, t1, t2, t3, t4, t5] = grid.transform;
  const x = new Float64Array(grid.width);
  for (let i = 0; i < grid.width; i++) {
    const source = grid.x[(seam.firstColumn + i) % grid.width];
    const centre = seam.originX + (i + 0.5) * t1;
    x[i] = source + 360 * Math.round((centre - source) / 360);
  }
  return { ...windowGrid(grid, { x: 0, y: 0, width: grid.width, height: grid.height }), transform: [seam.originX, t1, t2, t3, t4, t5], x };
}

/**
 * A Cube view of `cube` presented as `seam` says; a window that runs past the last stored column
 * is read as two windows of the source, joined.
 * @example
 * const view = seamCube(cube, seamFor(cube.grid, { xmin: -30, xmax: 30 })!);
 * const slab = await view.variables[0].read({ window: { x: 0, y: 0, width: 7, height: view.grid.height } });
 */
export function seamCube(cube: Cube, seam: Seam): Cube {
  const grid = seamGrid(cube.grid, seam);
  const width = cube.grid.width;
  const variables = cube.variables.map((v): Variable => ({
    ...describedAs(v),
    chunkShape: v.chunkShape,
    read: async (sel: Selection = {}): Promise<Slab> => {
      const w = sel.window ?? { x: 0, y: 0, width: grid.width, height: grid.height };
      if (w.x < 0 || w.width < 0 || w.x + w.width > width) {
        throw new RangeError(`window ${JSON.stringify(w)} is outside the ${grid.width}×${grid.height} grid`);
      }
      const start = (seam.firstColumn + w.x) % width;
      const first = Math.min(w.width, width - start);
      if (first === w.width) return v.read({ ...sel, window: { ...w, x: start } });
      // Each half gets arrays of its own: a caller's `into` is the size of the whole window.
      const { into: _whole, ...rest } = sel;
      const [a, b] = await Promise.all([
        v.read({ ...rest, window: { ...w, x: start, width: first } }),
        v.read({ ...rest, window: { ...w, x: 0, width: w.width - first } }),
      ]);
      return { data: joinColumns(a, b, first, w), shape: [...a.shape.slice(0, -1), w.width] };
    },
  }));
  return { grid, variables, attributes: cube.attributes, skipped: cube.skipped, close: () => cube.close() };
}

/** Rows of `a` (width `first`) followed by the same rows of `b`. */
function joinColumns(a: Slab, b: Slab, first: number, w: Window): Slab["data"] {
  const second = w.width - first;
  const rows = a.data.length / first;
  const out = new (a.data.constructor as new (n: number) => Slab["data"])(rows * w.width);
  for (let r = 0; r < rows; r++) {
    out.set(a.data.subarray(r * first, (r + 1) * first) as never, r * w.width);
    out.set(b.data.subarray(r * second, (r + 1) * second) as never, r * w.width + first);
  }
  return out;
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}
