/**
 * An input stored a few time steps per chunk, transposed once into time-whole spatial tiles
 * in the job's scratch, for the methods that need each pixel's whole series at once (medians,
 * Mann-Kendall, Sen's slope): one pass reads runs of slices in storage order, every stored
 * chunk once (over the window, or over blocks of whole tiles when a run over the window
 * would be too large), and writes each tile's part of each run at its place; the transposed
 * cube then answers the tile walk's reads with one positional read per tile. A unit's tiles
 * lie one after the other in one file, held open through the pass (a file a tile, opened
 * for each write, cost four trips through libuv's pool a write). No codec: the scratch is
 * read once and removed, so compressing it would cost more than it saves.
 */
import {
  type Cube,
  type IndexRange,
  PIXEL_ARRAYS,
  STD_TIME,
  type Selection,
  type Slab,
  type TypedArray,
  type Variable,
  type Window,
  describedAs,
  variableNamed,
} from "../cube/types.js";
import { combinationAt, combinationCount, strides } from "../cube/combinations.js";
import { type RunWalk, type StreamUnit, eachRun } from "./runs.js";
import { windowTiles } from "./tiles.js";
import { TilePartsKernel } from "../kernels/tileParts.js";

/** What the transpose needs of the job's scratch: named files held open for positional access. */
export interface TileScratch {
  openAt(
    name: string,
    access: "read" | "write",
  ): Promise<{
    writeAt(array: ArrayBufferView, position: number): Promise<void>;
    readAt(into: ArrayBufferView, position: number): Promise<void>;
    close(): Promise<void>;
  }>;
}

export interface TransposeLayout {
  /** The part of the grid transposed (the analysis window, north-up pixels). */
  readonly window: Window;
  /** Each variable's tile, the tile walk's own, so that each of its reads is one tile. */
  readonly tiles: Readonly<Record<string, { readonly height: number; readonly width: number }>>;
  /** Each variable's runs of slices along StdTime, whole stored chunks, in storage order. */
  readonly runs: Readonly<Record<string, readonly IndexRange[]>>;
  /** Rows and columns of the window a unit transposes (whole tiles, but at its edges); its own for one unit. */
  readonly bandRows: number;
  readonly bandColumns: number;
}

/** Each variable's tile-parts kernel, kept by a share from one unit to the next (transposeUnit). */
export type TransposeKernels = Map<string, TilePartsKernel>;

/**
 * Write this share's runs of `unit` (a variable at one index of its other dimensions, over
 * one block of the window, whole tiles) into the block's tiles. `kernels` keeps each
 * variable's kernel (three runs' worth of memory) for the share's next unit of it.
 * @example
 * for (const unit of streamUnits(cube, { variables, window, bandRows, bandColumns, runs })) await transposeUnit(cube, layout, unit, scratch, { share });
 */
export async function transposeUnit(
  cube: Cube,
  layout: TransposeLayout,
  unit: StreamUnit,
  scratch: TileScratch,
  walk: RunWalk,
  kernels: TransposeKernels = new Map(),
): Promise<void> {
  const v = variableNamed(cube, unit.variable);
  const { window } = layout;
  const { band } = unit;
  const { height: tileHeight, width: tileWidth } = layout.tiles[v.name];
  // The block is whole tiles, but where it ends at the window's bottom or right edge.
  const whole = (from: number, size: number, start: number, extent: number, tile: number) =>
    (from - start) % tile === 0 && (from + size === start + extent || size % tile === 0);
  if (!whole(band.y, band.height, window.y, window.height, tileHeight) || !whole(band.x, band.width, window.x, window.width, tileWidth))
    throw new RangeError("a transposed unit's block is whole tiles of the window");
  const Values = PIXEL_ARRAYS[v.pixelType];
  const all = tilesOf(layout, v.name);
  const allStarts = tileStarts(all, v.dimensions[timeAxis(v)].values.length);
  // The block's tiles, in the order the kernel cuts them (rows of tiles, each left to right).
  const inside = (tile: Window) => tile.y >= band.y && tile.y < band.y + band.height && tile.x >= band.x && tile.x < band.x + band.width;
  const inBlock = all.flatMap((tile, i) => (inside(tile) ? [i] : []));
  const tiles = inBlock.map((i) => all[i]);
  const starts = inBlock.map((i) => allStarts[i]);
  const file = await scratch.openAt(unitName(cube.variables.indexOf(v), v, unit.dims), "write");
  let kernel = kernels.get(v.name);
  if (!kernel) {
    const longest = Math.max(...layout.runs[v.name].map(([a, b]) => b - a));
    const blockPixels = Math.min(layout.bandRows, window.height) * Math.min(layout.bandColumns, window.width);
    kernels.set(v.name, (kernel = new TilePartsKernel(longest * blockPixels, v.pixelType)));
  }
  // A run's parts are written while the walk reads the next run (on libuv's pool, unless the
  // scratch writes on this thread): the cut after waits for them, since it reuses their memory.
  let writing: Promise<unknown> = Promise.resolve();
  try {
    await eachRun(v, layout.runs[v.name], unit.dims, unit.band, { ...walk, arrays: (n) => kernel.runArray(n) }, async (t0, read) => {
      const values = read instanceof Values ? read : Values.from(read as ArrayLike<number>);
      const steps = values.length / (band.width * band.height);
      await writing;
      const parts = kernel.cut(values, { steps, height: band.height, width: band.width }, tileHeight, tileWidth);
      let at = 0;
      writing = Promise.all(
        tiles.map((tile, i) => {
          const bytes = steps * tile.height * tile.width * values.BYTES_PER_ELEMENT;
          at += bytes;
          return file.writeAt(parts.subarray(at - bytes, at), (starts[i] + t0 * tile.height * tile.width) * values.BYTES_PER_ELEMENT);
        }),
      );
      writing.catch(() => {}); // awaited in turn; never an unhandled rejection meanwhile
    });
    await writing;
  } finally {
    await writing.catch(() => {});
    await file.close();
  }
}

/**
 * `cube` with the laid-out variables read from their transposed tiles (all of them written);
 * chunked as those tiles, time whole. Closing it leaves `cube` open.
 * @example
 * await computeAnomaly(transposedCube(cube, layout, scratch), plan, sink, walk);
 */
export function transposedCube(cube: Cube, layout: TransposeLayout, scratch: TileScratch): Cube {
  return {
    grid: cube.grid,
    attributes: cube.attributes,
    skipped: cube.skipped,
    variables: cube.variables.map((v, i) => (layout.tiles[v.name] ? transposedVariable(v, i, layout, scratch) : v)),
    close: async () => {},
  };
}

function transposedVariable(v: Variable, index: number, layout: TransposeLayout, scratch: TileScratch): Variable {
  const { window } = layout;
  const tile = layout.tiles[v.name];
  const Values = PIXEL_ARRAYS[v.pixelType];
  const t = timeAxis(v);
  const slices = v.dimensions[t].values.length;
  const across = Math.ceil(window.width / tile.width);
  const starts = tileStarts(tilesOf(layout, v.name), slices);
  return {
    ...describedAs(v),
    chunkShape: [...v.dimensions.map((_, i) => (i === t ? slices : 1)), tile.height, tile.width],
    async read(selection: Selection = {}): Promise<Slab> {
      const dims = selection.dims ?? v.dimensions.map((d): IndexRange => [0, d.values.length]);
      const want = selection.window ?? window;
      if (
        want.x < window.x ||
        want.y < window.y ||
        want.x + want.width > window.x + window.width ||
        want.y + want.height > window.y + window.height
      )
        throw new RangeError(`the transposed ${v.name} holds only the analysis window`);
      const counts = dims.map(([a, b]) => b - a);
      const shape = [...counts, want.height, want.width];
      const length = shape.reduce((a, b) => a * b, 1);
      const out = selection.into instanceof Values && selection.into.length === length ? selection.into : new Values(length);
      const steps = strides(shape);
      const [t0, t1] = dims[t];
      const others = counts.map((n, i) => (i === t ? 1 : n));
      // Tiles the window touches, as rows and columns of the layout.
      const [r0, r1] = [Math.floor((want.y - window.y) / tile.height), Math.ceil((want.y + want.height - window.y) / tile.height)];
      const [c0, c1] = [Math.floor((want.x - window.x) / tile.width), Math.ceil((want.x + want.width - window.x) / tile.width)];
      for (let k = 0; k < combinationCount(others); k++) {
        const at = combinationAt(k, others).map((i, d) => (d === t ? t0 : dims[d][0] + i));
        const file = await scratch.openAt(
          unitName(
            index,
            v,
            at.map((i): IndexRange => [i, i + 1]),
          ),
          "read",
        );
        try {
          const base = at.reduce((sum, i, d) => sum + (d === t ? 0 : (i - dims[d][0]) * steps[d]), 0);
          for (let tr = r0; tr < r1; tr++) {
            for (let tc = c0; tc < c1; tc++) {
              selection.signal?.throwIfAborted();
              const ty = window.y + tr * tile.height;
              const tx = window.x + tc * tile.width;
              const th = Math.min(tile.height, window.y + window.height - ty);
              const tw = Math.min(tile.width, window.x + window.width - tx);
              // One whole tile at one index of the other dimensions (the tile walk's read) is
              // stored as the slab lays it out: read straight into it.
              const whole = out.length === (t1 - t0) * th * tw && tx === want.x && ty === want.y && tw === want.width && th === want.height;
              const stored = whole ? out : new Values((t1 - t0) * th * tw);
              await file.readAt(stored, (starts[tr * across + tc] + t0 * th * tw) * stored.BYTES_PER_ELEMENT);
              if (!whole) copyOverlap(stored, { x: tx, y: ty, width: tw, height: th }, out, want, base, steps[t], t1 - t0);
            }
          }
        } finally {
          await file.close();
        }
      }
      return { data: out, shape };
    },
  };
}

/** Copy the part of a tile's `steps` slices (`from`, over `tile`) that lies in `want` into `out`. */
function copyOverlap(from: TypedArray, tile: Window, out: TypedArray, want: Window, base: number, stepStride: number, steps: number): void {
  const x0 = Math.max(tile.x, want.x);
  const x1 = Math.min(tile.x + tile.width, want.x + want.width);
  const y0 = Math.max(tile.y, want.y);
  const y1 = Math.min(tile.y + tile.height, want.y + want.height);
  for (let s = 0; s < steps; s++) {
    for (let y = y0; y < y1; y++) {
      const src = (s * tile.height + (y - tile.y)) * tile.width + (x0 - tile.x);
      const dst = base + s * stepStride + (y - want.y) * want.width + (x0 - want.x);
      out.set(from.subarray(src, src + x1 - x0) as never, dst);
    }
  }
}

function tilesOf(layout: TransposeLayout, name: string) {
  const { height, width } = layout.tiles[name];
  return windowTiles(layout.window, height, width);
}

/** Where each tile starts in its unit's file, in values: the tiles one after the other, each `slices` slices deep. */
function tileStarts(tiles: readonly Window[], slices: number): number[] {
  const starts: number[] = [];
  let at = 0;
  for (const tile of tiles) {
    starts.push(at);
    at += slices * tile.height * tile.width;
  }
  return starts;
}

const timeAxis = (v: Variable) => v.dimensions.findIndex((d) => d.name === STD_TIME);

/** Scratch name of a unit's tiles: the variable's place in the cube, its index along each other dimension. */
function unitName(index: number, v: Variable, dims: readonly IndexRange[]): string {
  const others = dims.filter((_, i) => v.dimensions[i].name !== STD_TIME).map(([a]) => a);
  return `x${index}-${others.join("_")}`;
}
