/**
 * The warp: reproject and resample a cube onto another grid. `targetGrid` plans the output
 * grid (CRS, cell size, extent); `warpCube` returns a lazy Cube view on it whose variables
 * read a target window by mapping each target cell centre to the source, reading the source
 * window that covers those points (with the non-spatial `dims` asked for) and resampling.
 *
 * Resampling (each the standard kernel over cell centres):
 * - NEAREST: the source cell containing the target cell centre (on a cell boundary, the
 *   east / south one). Pixel type and nodata as the input.
 * - BILINEAR: the 2x2 source cells around the point. If any of them is nodata (or beyond a
 *   source edge that does not wrap), the value falls back to NEAREST's: the nodata mask is then
 *   exactly NEAREST's, so coastlines neither grow nor shrink, and values are interpolated
 *   wherever all four neighbours are valid. Float32 out (float64 stays float64), nodata NaN.
 * - CUBIC: Keys cubic convolution (a = -0.5) over the 4x4 cells around the point; with any
 *   of them nodata or missing it falls back to BILINEAR (and so on to NEAREST). Float32 out
 *   (float64 stays float64), nodata NaN.
 * Target cells whose centre has no image in the source CRS, or falls outside the source, are
 * nodata. A geographic source wraps longitudes by 360 (a 0..360 grid serves -180..180
 * targets); one that is global in longitude also takes neighbours across its seam.
 *
 * Pure: the source's own `read` does the I/O; proj4 (through ./crs.ts) does the projection.
 */
import { InvalidInputError } from "../cube/errors.js";
import { gridFromTransform, windowGrid } from "../cube/grid.js";
import {
  type Crs,
  type Cube,
  type Grid,
  type IndexRange,
  type PixelType,
  type Selection,
  type Slab,
  type TypedArray,
  type Variable,
  type Window,
  describedAs,
} from "../cube/types.js";
import {
  MERCATOR_MAX_LATITUDE,
  type PointTransform,
  crsDefinition,
  isCylindricalDefinition,
  isGeographicDefinition,
  isMercatorDefinition,
  pointTransform,
  sameCrs,
} from "./crs.js";

export type ResamplingMethod = "NEAREST" | "BILINEAR" | "CUBIC";
export const RESAMPLING_METHODS: readonly ResamplingMethod[] = ["NEAREST", "BILINEAR", "CUBIC"];

/** Most cells one output slice of a warp may have. */
export const MAX_WARP_CELLS = 250_000_000;
/** Budget for one source read of a warped window (source values of every plane read at once). */
export const WARP_READ_BUDGET_BYTES = 128 * 1024 * 1024;

export interface Envelope {
  readonly xmin: number;
  readonly ymin: number;
  readonly xmax: number;
  readonly ymax: number;
}

export interface TargetOptions {
  /** Output CRS; absent = the source's. */
  readonly outCrs?: Crs;
  /** Square cell edge in the output CRS's units; absent = the source's (converted at the centre when reprojecting). */
  readonly cellSize?: number;
  /** Envelope in the output CRS the output is clipped to. */
  readonly extent?: Envelope;
  /** Parameter named by errors (default "context"). */
  readonly parameter?: string;
}

const EPS = 1e-9;

/**
 * The grid a warp writes. Same CRS: the source's cell lattice, re-cut at `cellSize` from the
 * source's north-west corner. Another CRS: the envelope of the source (its edges and an
 * interior lattice, transformed to the target CRS; a longitude-global source counts as
 * -180..180, Mercator targets stop at ±85.0511°), square cells of `cellSize` or the source
 * cell size converted at the source's centre. `extent` clips either (a geographic grid is
 * also matched 360° east or west). Sizes round up; more than MAX_WARP_CELLS is a 400.
 * @example
 * const target = targetGrid(cube.grid, { outCrs: { epsg: 3857 }, cellSize: 200000 });
 */
export function targetGrid(source: Grid, options: TargetOptions = {}): Grid {
  const P = options.parameter ?? "context";
  const { cellSize, extent } = options;
  if (cellSize !== undefined && !(Number.isFinite(cellSize) && cellSize > 0)) {
    throw new InvalidInputError(`context.cellSize must be a positive number; got ${cellSize}`, { parameter: P });
  }
  const outCrs = options.outCrs ?? source.crs;
  const [, , t2, , t4, t5] = source.transform;
  const reproject = options.outCrs !== undefined && !sameGridCrs(source.crs, options.outCrs);
  if (!reproject && t2 === 0 && t4 === 0 && t5 < 0) return latticeTarget(source, cellSize, extent, P);

  const srcDef = definitionOf(source.crs, "the input raster", P);
  const dstDef = reproject ? definitionOf(outCrs, "context.outSR", P) : srcDef;
  const tr = pointTransform(srcDef, dstDef);
  const srcGeo = isGeographicDefinition(srcDef);
  const dstGeo = isGeographicDefinition(dstDef);
  const env = sourceEnvelope(source, srcGeo, isMercatorDefinition(dstDef));
  const fwd = (x: number, y: number): [number, number] => (tr ? tr.forward(x, y) : [x, y]);
  const inv = (x: number, y: number): [number, number] => (tr ? tr.inverse(x, y) : [x, y]);
  const [dx, dy] = cellSizes(source);
  const tol = 0.01 * Math.min(dx, dy);
  // The envelope's edges densified, plus an interior lattice (extremes can be inside: poles).
  const EDGE = 256;
  const INNER = 32;
  let b = { xmin: Infinity, ymin: Infinity, xmax: -Infinity, ymax: -Infinity };
  const add = (x: number, y: number) => {
    const [tx, ty] = fwd(x, y);
    if (!Number.isFinite(tx) || !Number.isFinite(ty)) return;
    const [bx, by] = inv(tx, ty);
    const ex = srcGeo ? Math.abs(mod(bx - x + 180, 360) - 180) : Math.abs(bx - x);
    if (!(ex <= tol && Math.abs(by - y) <= tol)) return;
    b = { xmin: Math.min(b.xmin, tx), ymin: Math.min(b.ymin, ty), xmax: Math.max(b.xmax, tx), ymax: Math.max(b.ymax, ty) };
  };
  const lerp = (a: number, c: number, f: number) => a + (c - a) * f;
  for (let i = 0; i <= EDGE; i++) {
    const f = i / EDGE;
    add(lerp(env.xmin, env.xmax, f), env.ymin);
    add(lerp(env.xmin, env.xmax, f), env.ymax);
    add(env.xmin, lerp(env.ymin, env.ymax, f));
    add(env.xmax, lerp(env.ymin, env.ymax, f));
  }
  for (let i = 1; i < INNER; i++)
    for (let j = 1; j < INNER; j++) add(lerp(env.xmin, env.xmax, i / INNER), lerp(env.ymin, env.ymax, j / INNER));
  if (!(b.xmin < b.xmax) || !(b.ymin < b.ymax)) {
    throw new InvalidInputError("the input raster has no area in the coordinate system of context.outSR", { parameter: P });
  }
  const cell =
    cellSize ?? centreCellSize(env, dx, dy, fwd) ?? Math.hypot(b.xmax - b.xmin, b.ymax - b.ymin) / Math.hypot(source.width, source.height);
  let area: Envelope = b;
  if (extent) {
    const clipped = clip(b, extent, dstGeo);
    if (!clipped) throw new InvalidInputError("context.extent does not overlap the input raster", { parameter: P });
    area = clipped;
  }
  const width = Math.max(1, Math.ceil((area.xmax - area.xmin) / cell - EPS));
  const height = Math.max(1, Math.ceil((area.ymax - area.ymin) / cell - EPS));
  checkSize(width, height, P);
  return gridFromTransform(width, height, [area.xmin, cell, 0, area.ymax, 0, -cell], outCrs);
}

/** Same CRS, north-up: the source lattice re-cut at `cellSize` from its north-west corner, clipped. */
function latticeTarget(source: Grid, cellSize: number | undefined, extent: Envelope | undefined, P: string): Grid {
  const [t0, t1, , t3, , t5] = source.transform;
  const dx = cellSize ?? Math.abs(t1);
  const dy = cellSize ?? Math.abs(t5);
  const cols = Math.max(1, Math.ceil((source.width * Math.abs(t1)) / dx - EPS));
  const rows = Math.max(1, Math.ceil((source.height * Math.abs(t5)) / dy - EPS));
  let w: Window = { x: 0, y: 0, width: cols, height: rows };
  if (extent) {
    const geographic = source.crs.epsg === 4326 || isGeographic(source.crs);
    const best = (geographic ? [0, 360, -360] : [0])
      .map((s) => {
        const c0 = Math.max(0, Math.floor((extent.xmin + s - t0) / dx + EPS));
        const c1 = Math.min(cols, Math.ceil((extent.xmax + s - t0) / dx - EPS));
        const r0 = Math.max(0, Math.floor((t3 - extent.ymax) / dy + EPS));
        const r1 = Math.min(rows, Math.ceil((t3 - extent.ymin) / dy - EPS));
        return c1 > c0 && r1 > r0 ? { x: c0, y: r0, width: c1 - c0, height: r1 - r0 } : undefined;
      })
      .filter((x): x is Window => x !== undefined)
      .sort((a, b) => b.width * b.height - a.width * a.height)[0];
    if (!best) throw new InvalidInputError("context.extent does not overlap the input raster", { parameter: P });
    w = best;
  }
  checkSize(w.width, w.height, P);
  if (cellSize === undefined) return windowGrid(source, w);
  return gridFromTransform(w.width, w.height, [t0 + w.x * dx, dx, 0, t3 - w.y * dy, 0, -dy], source.crs);
}

function checkSize(width: number, height: number, P: string): void {
  if (width * height > MAX_WARP_CELLS) {
    throw new InvalidInputError(
      `the output would be ${width} × ${height} cells, more than the ${MAX_WARP_CELLS.toLocaleString("en-US")} a warp may make; choose a larger context.cellSize or a smaller context.extent`,
      { parameter: P },
    );
  }
}

function definitionOf(crs: Crs, what: string, P: string): string {
  const def = crsDefinition(crs);
  if (def) return def;
  const named = crs.epsg !== undefined ? `EPSG:${crs.epsg}` : crs.wkt ? "its WKT" : "no coordinate system";
  throw new InvalidInputError(
    `${what} has ${crs.epsg !== undefined || crs.wkt ? `a coordinate system Strata cannot use (${named})` : named}, so it cannot be reprojected`,
    {
      parameter: P,
    },
  );
}

function isGeographic(crs: Crs): boolean {
  const def = crsDefinition(crs);
  return def !== undefined && isGeographicDefinition(def);
}

/** Equal CRSs, or two grids that both name none. */
function sameGridCrs(a: Crs, b: Crs): boolean {
  if (a === b) return true;
  const none = (c: Crs) => c.epsg === undefined && !c.wkt;
  if (none(a) && none(b)) return true;
  return sameCrs(a, b);
}

function cellSizes(g: Grid): [number, number] {
  const [, t1, t2, , t4, t5] = g.transform;
  return [Math.hypot(t1, t4), Math.hypot(t2, t5)];
}

/** The source's envelope in its CRS, for planning (latitudes clamped; longitude-global = -180..180). */
function sourceEnvelope(g: Grid, geographic: boolean, mercatorTarget: boolean): Envelope {
  const [t0, t1, t2, t3, t4, t5] = g.transform;
  const xs = [t0, t0 + g.width * t1, t0 + g.height * t2, t0 + g.width * t1 + g.height * t2];
  const ys = [t3, t3 + g.width * t4, t3 + g.height * t5, t3 + g.width * t4 + g.height * t5];
  let env = { xmin: Math.min(...xs), xmax: Math.max(...xs), ymin: Math.min(...ys), ymax: Math.max(...ys) };
  if (geographic) {
    const lat = mercatorTarget ? MERCATOR_MAX_LATITUDE : 90;
    env = { ...env, ymin: Math.max(-lat, env.ymin), ymax: Math.min(lat, env.ymax) };
    if (env.xmax - env.xmin >= 360 - 1e-6 * Math.abs(t1)) env = { ...env, xmin: -180, xmax: 180 };
  }
  return env;
}

/** sqrt(|det J|) of the source-to-target map over one source cell at the envelope's centre. */
function centreCellSize(env: Envelope, dx: number, dy: number, fwd: (x: number, y: number) => [number, number]): number | undefined {
  const cx = (env.xmin + env.xmax) / 2;
  const cy = (env.ymin + env.ymax) / 2;
  const [ax, ay] = fwd(cx - dx / 2, cy);
  const [bx, by] = fwd(cx + dx / 2, cy);
  const [cx2, cy2] = fwd(cx, cy - dy / 2);
  const [dx2, dy2] = fwd(cx, cy + dy / 2);
  const det = Math.abs((bx - ax) * (dy2 - cy2) - (by - ay) * (dx2 - cx2));
  const s = Math.sqrt(det);
  return Number.isFinite(s) && s > 0 ? s : undefined;
}

function clip(b: Envelope, e: Envelope, geographic: boolean): Envelope | undefined {
  let best: Envelope | undefined;
  let bestArea = 0;
  for (const s of geographic ? [0, 360, -360] : [0]) {
    const c = {
      xmin: Math.max(b.xmin, e.xmin + s),
      xmax: Math.min(b.xmax, e.xmax + s),
      ymin: Math.max(b.ymin, e.ymin),
      ymax: Math.min(b.ymax, e.ymax),
    };
    const area = (c.xmax - c.xmin) * (c.ymax - c.ymin);
    if (c.xmax > c.xmin && c.ymax > c.ymin && area > bestArea) [best, bestArea] = [c, area];
  }
  return best;
}

/**
 * An envelope of CRS `from` expressed in CRS `to` (proj4 definitions): the bounding box of
 * its edges densified (geographic latitudes clamped to ±90, or ±85.0511° into Mercator);
 * undefined when no point of it has an image.
 * @example
 * transformEnvelope({ xmin: -10, ymin: 40, xmax: 10, ymax: 50 }, epsgDefinition(4326)!, epsgDefinition(3857)!);
 */
export function transformEnvelope(env: Envelope, from: string, to: string): Envelope | undefined {
  const tr = pointTransform(from, to);
  if (!tr) return env;
  let e = env;
  if (isGeographicDefinition(from)) {
    const lat = isMercatorDefinition(to) ? MERCATOR_MAX_LATITUDE : 90;
    e = { ...e, ymin: Math.max(-lat, e.ymin), ymax: Math.min(lat, e.ymax) };
    if (!(e.ymin < e.ymax)) return undefined;
  }
  const N = 64;
  let b = { xmin: Infinity, ymin: Infinity, xmax: -Infinity, ymax: -Infinity };
  const add = (x: number, y: number) => {
    const [tx, ty] = tr.forward(x, y);
    if (Number.isFinite(tx) && Number.isFinite(ty))
      b = { xmin: Math.min(b.xmin, tx), ymin: Math.min(b.ymin, ty), xmax: Math.max(b.xmax, tx), ymax: Math.max(b.ymax, ty) };
  };
  for (let i = 0; i <= N; i++) {
    const f = i / N;
    add(e.xmin + (e.xmax - e.xmin) * f, e.ymin);
    add(e.xmin + (e.xmax - e.xmin) * f, e.ymax);
    add(e.xmin, e.ymin + (e.ymax - e.ymin) * f);
    add(e.xmax, e.ymin + (e.ymax - e.ymin) * f);
  }
  return b.xmin < b.xmax && b.ymin < b.ymax ? b : undefined;
}

/**
 * The window of `source` that `target` is, when it is one: same CRS, same cell size and
 * orientation, an origin a whole number of cells away, and inside the source.
 * @example
 * alignedWindow(grid, windowGrid(grid, { x: 2, y: 1, width: 3, height: 3 })); // { x: 2, y: 1, width: 3, height: 3 }
 */
export function alignedWindow(source: Grid, target: Grid): Window | undefined {
  if (!sameGridCrs(source.crs, target.crs)) return undefined;
  const [s0, s1, s2, s3, s4, s5] = source.transform;
  const [g0, g1, g2, g3, g4, g5] = target.transform;
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1e-300);
  if (!close(s1, g1) || !close(s5, g5) || s2 !== 0 || s4 !== 0 || g2 !== 0 || g4 !== 0) return undefined;
  const fx = (g0 - s0) / s1;
  const fy = (g3 - s3) / s5;
  const x = Math.round(fx) + 0; // never -0
  const y = Math.round(fy) + 0;
  if (Math.abs(fx - x) > 1e-6 || Math.abs(fy - y) > 1e-6) return undefined;
  if (x < 0 || y < 0 || x + target.width > source.width || y + target.height > source.height) return undefined;
  return { x, y, width: target.width, height: target.height };
}

export interface WarpOptions {
  /** Largest source read (bytes, all planes); bigger ones are split by planes, then by area. Default WARP_READ_BUDGET_BYTES. */
  readonly readBudgetBytes?: number;
}

/**
 * A Cube view of `cube` on `target`, resampled by `method`. When `target` is a window of the
 * source grid (same CRS and cells), the view only offsets reads and resamples nothing.
 * Reads are lazy: a variable's `read({ dims, window })` reads just the source cells the
 * window needs, through the source variable's own `read` with the same `dims`.
 * @example
 * const warped = warpCube(cube, targetGrid(cube.grid, { outCrs: { epsg: 3857 }, cellSize: 200000 }), "BILINEAR");
 * const slab = await warped.variables[0].read({ dims: [[0, 1]] });
 */
export function warpCube(cube: Cube, target: Grid, method: ResamplingMethod, options: WarpOptions = {}): Cube {
  const aligned = alignedWindow(cube.grid, target);
  if (aligned) return windowCube(cube, aligned);
  const mapper = cellMapper(cube.grid, target);
  const budget = options.readBudgetBytes ?? WARP_READ_BUDGET_BYTES;
  return {
    grid: target,
    variables: cube.variables.map((v) => warpVariable(v, cube.grid, target, method, mapper, budget)),
    attributes: cube.attributes,
    skipped: cube.skipped,
    close: () => cube.close(),
  };
}

/** A Cube view of a window of `cube` (no resampling). */
export function windowCube(cube: Cube, w: Window): Cube {
  const grid = windowGrid(cube.grid, w);
  const variables = cube.variables.map((v): Variable => ({
    ...describedAs(v),
    chunkShape: v.chunkShape,
    read: (sel: Selection = {}) => {
      const r = sel.window ?? { x: 0, y: 0, width: w.width, height: w.height };
      checkWindow(r, grid);
      return v.read({ ...sel, window: { x: w.x + r.x, y: w.y + r.y, width: r.width, height: r.height } });
    },
  }));
  return { grid, variables, attributes: cube.attributes, skipped: cube.skipped, close: () => cube.close() };
}

function checkWindow(w: Window, g: Grid): void {
  if (w.x < 0 || w.y < 0 || w.width < 0 || w.height < 0 || w.x + w.width > g.width || w.y + w.height > g.height) {
    throw new RangeError(`window ${JSON.stringify(w)} is outside the ${g.width}×${g.height} grid`);
  }
}

// ---- where target cells fall in the source ---------------------------------------------------

/** Source pixel coordinates (cell centres at whole numbers) of each cell of a target window; NaN = none. */
interface CellMap {
  readonly px: Float64Array;
  readonly py: Float64Array;
}

interface CellMapper {
  map(w: Window): CellMap;
  /** True when the source is geographic and global in longitude: columns wrap. */
  readonly wrap: boolean;
}

/**
 * Block edge of the coarse lattice of exact transforms, and the error (in source cells)
 * allowed when interpolating it: 1/100 of a cell (GDAL's gdalwarp allows 1/8), so values
 * stay within 1% of one cell's gradient of the exact ones. Blocks that miss it are exact.
 */
const LATTICE = 16;
const LATTICE_TOLERANCE = 0.01;
/** Cells of target-to-source maps kept for reuse (16 bytes each). */
const MAP_CACHE_CELLS = 2048 * 2048;

function cellMapper(source: Grid, target: Grid): CellMapper {
  const same = sameGridCrs(source.crs, target.crs);
  const srcDef = same ? undefined : definitionOf(source.crs, "the input raster", "context");
  const dstDef = same ? undefined : definitionOf(target.crs, "the output", "context");
  const tr: PointTransform | undefined = srcDef && dstDef ? pointTransform(srcDef, dstDef) : undefined;
  const geographic = srcDef ? isGeographicDefinition(srcDef) : isGeographic(source.crs);
  const [s0, s1, s2, s3, s4, s5] = source.transform;
  const det = s1 * s5 - s2 * s4;
  const [g0, g1, g2, g3, g4, g5] = target.transform;
  const tol = 0.01 * Math.min(...cellSizes(target));
  // Cylindrical targets repeat every turn of the globe: x beyond the principal turn is valid.
  const periodic = dstDef !== undefined && isCylindricalDefinition(dstDef);
  const wrap = geographic && source.width * Math.abs(s1) >= 360 - 1e-6 * Math.abs(s1) && s2 === 0;
  const west = Math.min(s0, s0 + source.width * s1);

  /** Source pixel coordinates of target pixel (col + 0.5, row + 0.5), into out[k]. */
  const exact = (col: number, row: number, out: CellMap, k: number) => {
    const tx = g0 + (col + 0.5) * g1 + (row + 0.5) * g2;
    const ty = g3 + (col + 0.5) * g4 + (row + 0.5) * g5;
    let sx = tx;
    let sy = ty;
    if (tr) {
      [sx, sy] = tr.inverse(tx, ty);
      const [bx, by] = tr.forward(sx, sy);
      // A point with no true image (beyond a projection's domain) does not come back.
      if (!((periodic || Math.abs(bx - tx) <= tol) && Math.abs(by - ty) <= tol)) sx = NaN;
    }
    if (geographic) sx = west + mod(sx - west, 360);
    const ux = sx - s0;
    const uy = sy - s3;
    out.px[k] = (s5 * ux - s2 * uy) / det - 0.5;
    out.py[k] = (-s4 * ux + s1 * uy) / det - 0.5;
    if (Number.isNaN(out.px[k]) || Number.isNaN(out.py[k])) out.px[k] = out.py[k] = NaN;
  };

  const point = (col: number, row: number): [number, number] => {
    exact(col, row, probe, 0);
    return [probe.px[0], probe.py[0]];
  };
  const probe = { px: new Float64Array(1), py: new Float64Array(1) };
  // The lattice is laid on the whole target grid (nodes every LATTICE cells and on the last
  // row and column), so a cell's position never depends on the window it is read through.
  const lattice = tr !== undefined && target.width >= 2 * LATTICE && target.height >= 2 * LATTICE;
  const lastBlockX = Math.floor((target.width - 2) / LATTICE);
  const lastBlockY = Math.floor((target.height - 2) / LATTICE);
  const span = (k: number, last: number, size: number): [number, number] => [k * LATTICE, k === last ? size - 1 : (k + 1) * LATTICE];

  // Between cylindrical CRSs (longitude/latitude, Mercator, ...) with the same meridian a
  // column keeps one source x and a row one source y: transform one row and one column only.
  // Checked on a 5 x 5 sample of the grid against the exact map.
  const midR = target.height >> 1;
  const midC = target.width >> 1;
  let separable =
    tr !== undefined &&
    isCylindricalDefinition(srcDef!) &&
    isCylindricalDefinition(dstDef!) &&
    s2 === 0 &&
    s4 === 0 &&
    g2 === 0 &&
    g4 === 0;
  for (let i = 0; i <= 4 && separable; i++) {
    for (let j = 0; j <= 4 && separable; j++) {
      const c = Math.round((i * (target.width - 1)) / 4);
      const r = Math.round((j * (target.height - 1)) / 4);
      const [ex, ey] = point(c, r);
      const sx = point(c, midR)[0];
      const sy = point(midC, r)[1];
      separable = Number.isNaN(ex) ? Number.isNaN(sx) || Number.isNaN(sy) : Math.abs(ex - sx) <= 1e-6 && Math.abs(ey - sy) <= 1e-6;
    }
  }

  const compute = (w: Window): CellMap => {
    const n = w.width * w.height;
    const out = { px: new Float64Array(n), py: new Float64Array(n) };
    if (separable) {
      const xs = Float64Array.from({ length: w.width }, (_, c) => point(w.x + c, midR)[0]);
      const ys = Float64Array.from({ length: w.height }, (_, r) => point(midC, w.y + r)[1]);
      for (let r = 0, k = 0; r < w.height; r++) {
        for (let c = 0; c < w.width; c++, k++) {
          const ok = !Number.isNaN(xs[c]) && !Number.isNaN(ys[r]);
          out.px[k] = ok ? xs[c] : Number.NaN;
          out.py[k] = ok ? ys[r] : Number.NaN;
        }
      }
      return out;
    }
    if (!lattice) {
      for (let r = 0; r < w.height; r++) for (let c = 0; c < w.width; c++) exact(w.x + c, w.y + r, out, r * w.width + c);
      return out;
    }
    const bx0 = Math.min(lastBlockX, Math.floor(w.x / LATTICE));
    const bx1 = Math.min(lastBlockX, Math.floor((w.x + w.width - 1) / LATTICE));
    const by0 = Math.min(lastBlockY, Math.floor(w.y / LATTICE));
    const by1 = Math.min(lastBlockY, Math.floor((w.y + w.height - 1) / LATTICE));
    for (let j = by0; j <= by1; j++) {
      const [r0, r1] = span(j, lastBlockY, target.height);
      for (let i = bx0; i <= bx1; i++) {
        const [c0, c1] = span(i, lastBlockX, target.width);
        const corners = [point(c0, r0), point(c1, r0), point(c0, r1), point(c1, r1)];
        let ok = corners.every(([x]) => !Number.isNaN(x));
        if (ok && geographic) {
          const xs = corners.map(([x]) => x);
          ok = Math.max(...xs) - Math.min(...xs) < source.width / 4; // not across the longitude seam
        }
        const [[x00, y00], [x01, y01], [x10, y10], [x11, y11]] = corners;
        const at = (c: number, r: number): [number, number] => {
          const tx = (c - c0) / (c1 - c0);
          const ty = (r - r0) / (r1 - r0);
          return [
            (x00 * (1 - tx) + x01 * tx) * (1 - ty) + (x10 * (1 - tx) + x11 * tx) * ty,
            (y00 * (1 - tx) + y01 * tx) * (1 - ty) + (y10 * (1 - tx) + y11 * tx) * ty,
          ];
        };
        if (ok) {
          // Interpolation must hold within LATTICE_TOLERANCE source cells at the block's centre and edge midpoints.
          const cm = (c0 + c1) >> 1;
          const rm = (r0 + r1) >> 1;
          for (const [c, r] of [
            [cm, rm],
            [cm, r0],
            [c0, rm],
          ] as const) {
            const [ex, ey] = point(c, r);
            const [ix, iy] = at(c, r);
            if (!(Math.abs(ix - ex) <= LATTICE_TOLERANCE && Math.abs(iy - ey) <= LATTICE_TOLERANCE)) {
              ok = false;
              break;
            }
          }
        }
        for (let r = Math.max(r0, w.y); r <= Math.min(r1, w.y + w.height - 1); r++) {
          for (let c = Math.max(c0, w.x); c <= Math.min(c1, w.x + w.width - 1); c++) {
            const k = (r - w.y) * w.width + (c - w.x);
            if (!ok) exact(c, r, out, k);
            else [out.px[k], out.py[k]] = at(c, r);
          }
        }
      }
    }
    return out;
  };

  // Every variable, slice and plane batch read through a window shares its map: keep the
  // most recent maps up to MAP_CACHE_CELLS cells (a whole 2048 x 2048 output), the newest always.
  const cache = new Map<string, CellMap>();
  let cached = 0;
  return {
    wrap,
    map(w) {
      const key = `${w.x},${w.y},${w.width},${w.height}`;
      let m = cache.get(key);
      if (m) {
        cache.delete(key); // most recently used last
      } else {
        m = compute(w);
        cached += m.px.length;
        for (const [k, old] of cache) {
          if (cached <= MAP_CACHE_CELLS) break;
          cache.delete(k);
          cached -= old.px.length;
        }
      }
      cache.set(key, m);
      return m;
    },
  };
}

// ---- resampling ---------------------------------------------------------------------------

const BYTES: Record<PixelType, number> = { U8: 1, S8: 1, U16: 2, S16: 2, U32: 4, S32: 4, F32: 4, F64: 8 };

function allocate(type: PixelType, n: number): TypedArray {
  switch (type) {
    case "U8":
      return new Uint8Array(n);
    case "S8":
      return new Int8Array(n);
    case "U16":
      return new Uint16Array(n);
    case "S16":
      return new Int16Array(n);
    case "U32":
      return new Uint32Array(n);
    case "S32":
      return new Int32Array(n);
    case "F32":
      return new Float32Array(n);
    case "F64":
      return new Float64Array(n);
  }
}

/**
 * The nodata of a warped integer variable that has none: cells outside the source need one
 * (the type's largest value for unsigned types, its smallest for signed ones).
 */
function integerNodata(type: PixelType): number {
  switch (type) {
    case "U8":
      return 255;
    case "U16":
      return 65535;
    case "U32":
      return 4294967295;
    case "S8":
      return -128;
    case "S16":
      return -32768;
    default:
      return -2147483648;
  }
}

/** Pixel type and nodata of a variable warped with `method`. */
export function warpedPixelType(
  v: Pick<Variable, "pixelType" | "nodata">,
  method: ResamplingMethod,
): { pixelType: PixelType; nodata: number } {
  if (method !== "NEAREST") return { pixelType: v.pixelType === "F64" ? "F64" : "F32", nodata: NaN };
  const float = v.pixelType === "F32" || v.pixelType === "F64";
  return { pixelType: v.pixelType, nodata: v.nodata ?? (float ? NaN : integerNodata(v.pixelType)) };
}

/** Keys cubic convolution kernel, a = -0.5. */
function keys(t: number): number {
  const x = Math.abs(t);
  if (x <= 1) return (1.5 * x - 2.5) * x * x + 1;
  if (x < 2) return ((-0.5 * x + 2.5) * x - 4) * x + 2;
  return 0;
}

function warpVariable(v: Variable, source: Grid, target: Grid, method: ResamplingMethod, mapper: CellMapper, budget: number): Variable {
  const { pixelType, nodata } = warpedPixelType(v, method);
  const [cy, cx] = v.chunkShape.slice(-2);
  const scale = (c: number, src: number, dst: number) => (c >= src ? dst : Math.max(1, Math.min(dst, Math.round((dst * c) / src))));
  const chunkShape = [...v.chunkShape.slice(0, -2), scale(cy, source.height, target.height), scale(cx, source.width, target.width)];
  const margin = method === "NEAREST" ? 0 : method === "BILINEAR" ? 1 : 2;
  const srcBytes = BYTES[v.pixelType];

  const read = async (sel: Selection = {}): Promise<Slab> => {
    sel.signal?.throwIfAborted();
    const w = sel.window ?? { x: 0, y: 0, width: target.width, height: target.height };
    checkWindow(w, target);
    const dims: IndexRange[] = v.dimensions.map((d, i) => sel.dims?.[i] ?? [0, d.values.length]);
    const counts = dims.map(([a, b]) => b - a);
    const planes = counts.reduce((n, c) => n * c, 1);
    const out = allocate(pixelType, planes * w.width * w.height);
    out.fill(nodata);
    if (out.length > 0) {
      const map = mapper.map(w);
      await fill(out, w, map, { x: 0, y: 0, width: w.width, height: w.height }, dims, 0, sel.signal);
    }
    return { data: out, shape: [...counts, w.height, w.width] };
  };

  /** Resample the cells of `region` (relative to the read window `w`) for the planes of `dims`, starting at plane `p0`. */
  const fill = async (
    out: TypedArray,
    w: Window,
    map: CellMap,
    region: Window,
    dims: readonly IndexRange[],
    p0: number,
    signal: AbortSignal | undefined,
  ): Promise<void> => {
    const bounds = sourceBounds(map, w, region, source, margin, mapper.wrap);
    if (!bounds) return;
    const planes = dims.reduce((n, [a, b]) => n * (b - a), 1);
    const cost = bounds.read.width * bounds.read.height * planes * srcBytes;
    if (cost > budget) {
      const k = dims.findIndex(([a, b]) => b - a > 1);
      if (k >= 0) {
        // Split the planes: dimensions before k are single, so the halves are contiguous.
        const [a, b] = dims[k];
        const mid = a + ((b - a) >> 1);
        const after = dims.slice(k + 1).reduce((n, [x, y]) => n * (y - x), 1);
        await fill(
          out,
          w,
          map,
          region,
          dims.map((d, i) => (i === k ? [a, mid] : d)),
          p0,
          signal,
        );
        await fill(
          out,
          w,
          map,
          region,
          dims.map((d, i) => (i === k ? [mid, b] : d)),
          p0 + (mid - a) * after,
          signal,
        );
        return;
      }
      if (region.width * region.height > 1) {
        const halves: Window[] =
          region.width >= region.height
            ? [
                { ...region, width: region.width >> 1 },
                { ...region, x: region.x + (region.width >> 1), width: region.width - (region.width >> 1) },
              ]
            : [
                { ...region, height: region.height >> 1 },
                { ...region, y: region.y + (region.height >> 1), height: region.height - (region.height >> 1) },
              ];
        for (const h of halves) await fill(out, w, map, h, dims, p0, signal);
        return;
      }
    }
    signal?.throwIfAborted();
    const slab = await v.read({ dims, window: bounds.read, signal });
    resample(
      slab.data,
      v.nodata,
      out,
      w,
      map,
      region,
      bounds,
      { width: source.width, height: source.height, wrap: mapper.wrap },
      planes,
      p0,
      method,
    );
  };

  return {
    name: v.name,
    description: v.description,
    unit: v.unit,
    pixelType,
    nodata,
    dimensions: v.dimensions,
    chunkShape,
    attributes: v.attributes,
    read,
  };
}

interface SourceBounds {
  /** The source window read. */
  readonly read: Window;
  /** True when the read is the whole width of a longitude-global source and columns wrap around it. */
  readonly wrapped: boolean;
}

/** The source window covering the cells of `region` with `margin` neighbours; undefined when none falls inside. */
function sourceBounds(map: CellMap, w: Window, region: Window, source: Grid, margin: number, wrap: boolean): SourceBounds | undefined {
  const W = source.width;
  const H = source.height;
  let cmin = Infinity;
  let cmax = -Infinity;
  let rmin = Infinity;
  let rmax = -Infinity;
  // NEAREST needs the cell floor(p + 0.5); BILINEAR floor(p) .. +1; CUBIC floor(p) - 1 .. +2.
  const base = margin === 0 ? 0.5 : 0;
  const lo = margin === 0 ? 0 : 1 - margin;
  const hi = margin === 0 ? 0 : margin;
  const { px, py } = map;
  for (let r = region.y; r < region.y + region.height; r++) {
    for (let k = r * w.width + region.x, end = k + region.width; k < end; k++) {
      const x = px[k];
      const y = py[k];
      if (!(y >= -0.5 && y < H - 0.5) || !(wrap ? x === x : x >= -0.5 && x < W - 0.5)) continue;
      const fc = Math.floor(x + base);
      const fr = Math.floor(y + base);
      if (fc + lo < cmin) cmin = fc + lo;
      if (fc + hi > cmax) cmax = fc + hi;
      if (fr + lo < rmin) rmin = fr + lo;
      if (fr + hi > rmax) rmax = fr + hi;
    }
  }
  if (cmin > cmax) return undefined;
  const r0 = Math.max(0, rmin);
  const r1 = Math.min(H - 1, rmax);
  if (wrap && (cmin < 0 || cmax > W - 1)) return { read: { x: 0, y: r0, width: W, height: r1 - r0 + 1 }, wrapped: true };
  const c0 = Math.max(0, cmin);
  const c1 = Math.min(W - 1, cmax);
  return { read: { x: c0, y: r0, width: c1 - c0 + 1, height: r1 - r0 + 1 }, wrapped: false };
}

/** Cells whose offsets and weights are worked out at once, then applied to every plane. */
const CHUNK = 1024;

/** Offsets and weights of up to CHUNK cells, reused for every plane. */
interface Taps {
  /** Output offset of each cell in its plane. */
  readonly outK: Int32Array;
  /** Source offset of NEAREST's cell. */
  readonly near: Int32Array;
  /** BILINEAR: the 4 source offsets (-1 = not read) and the fractions tx, ty. */
  readonly lin: Int32Array;
  readonly linW: Float64Array;
  /** CUBIC: 4 local columns and 4 row offsets (all read, else `cubOk` is 0), and 4 + 4 weights. */
  readonly cubC: Int32Array;
  readonly cubR: Int32Array;
  readonly cubOk: Uint8Array;
  readonly cubW: Float64Array;
}

function makeTaps(method: ResamplingMethod): Taps {
  const lin = method === "NEAREST" ? 0 : CHUNK;
  const cub = method === "CUBIC" ? CHUNK : 0;
  return {
    outK: new Int32Array(CHUNK),
    near: new Int32Array(CHUNK),
    lin: new Int32Array(lin * 4),
    linW: new Float64Array(lin * 2),
    cubC: new Int32Array(cub * 4),
    cubR: new Int32Array(cub * 4),
    cubOk: new Uint8Array(cub),
    cubW: new Float64Array(cub * 8),
  };
}

/**
 * Resample the cells of `region` (of the read window `w`, whose map is `map`) from `src`
 * (the source window `bounds.read`, `planes` planes) into `out` from plane `p0` on.
 */
function resample(
  src: TypedArray,
  srcNodata: number | undefined,
  out: TypedArray,
  w: Window,
  map: CellMap,
  region: Window,
  bounds: SourceBounds,
  source: { readonly width: number; readonly height: number; readonly wrap: boolean },
  planes: number,
  p0: number,
  method: ResamplingMethod,
): void {
  const { x: rx, y: ry, width: rw, height: rh } = bounds.read;
  const wrapped = bounds.wrapped;
  const W = source.width;
  const H = source.height;
  const taps = makeTaps(method);
  const { outK, near, lin, linW, cubC, cubR, cubOk, cubW } = taps;
  const bilinear = method !== "NEAREST";
  const cubic = method === "CUBIC";
  /** Local column of source column c, -1 when it was not read. */
  const col = (c: number): number => {
    if (wrapped) {
      const m = c % W;
      return m < 0 ? m + W : m;
    }
    const l = c - rx;
    return l >= 0 && l < rw ? l : -1;
  };
  const row = (r: number): number => {
    const l = r - ry;
    return l >= 0 && l < rh ? l : -1;
  };
  const ctx: ApplyContext = { src, out, nd: srcNodata ?? NaN, plane: rw * rh, n: w.width * w.height, planes, p0, method };
  let m = 0;
  const { px, py } = map;
  for (let r = region.y; r < region.y + region.height; r++) {
    for (let k = r * w.width + region.x, end = k + region.width; k < end; k++) {
      const x = px[k];
      const y = py[k];
      if (!(y >= -0.5 && y < H - 0.5) || !(source.wrap ? x === x : x >= -0.5 && x < W - 0.5)) continue;
      const nc = col(Math.floor(x + 0.5));
      const nr = row(Math.floor(y + 0.5));
      if (nc < 0 || nr < 0) continue;
      outK[m] = k;
      near[m] = nr * rw + nc;
      if (bilinear) {
        const fc = Math.floor(x);
        const fr = Math.floor(y);
        const tx = x - fc;
        const ty = y - fr;
        const c0 = col(fc);
        const c1 = col(fc + 1);
        const r0 = row(fr);
        const r1 = row(fr + 1);
        const t = m * 4;
        lin[t] = r0 < 0 || c0 < 0 ? -1 : r0 * rw + c0;
        lin[t + 1] = r0 < 0 || c1 < 0 ? -1 : r0 * rw + c1;
        lin[t + 2] = r1 < 0 || c0 < 0 ? -1 : r1 * rw + c0;
        lin[t + 3] = r1 < 0 || c1 < 0 ? -1 : r1 * rw + c1;
        linW[m * 2] = tx;
        linW[m * 2 + 1] = ty;
        if (cubic) {
          let ok = 1;
          for (let j = 0; j < 4; j++) {
            const cc = col(fc - 1 + j);
            const rr = row(fr - 1 + j);
            if (cc < 0 || rr < 0) ok = 0;
            cubC[t + j] = cc;
            cubR[t + j] = rr * rw;
            cubW[m * 8 + j] = keys(tx + 1 - j);
            cubW[m * 8 + 4 + j] = keys(ty + 1 - j);
          }
          cubOk[m] = ok;
        }
      }
      if (++m === CHUNK) m = apply(ctx, taps, m);
    }
  }
  apply(ctx, taps, m);
}

interface ApplyContext {
  readonly src: TypedArray;
  readonly out: TypedArray;
  /** Source nodata (NaN when none: `v !== NaN` always holds, and `v === v` catches NaN). */
  readonly nd: number;
  /** Cells of one source plane and of one output plane. */
  readonly plane: number;
  readonly n: number;
  readonly planes: number;
  readonly p0: number;
  readonly method: ResamplingMethod;
}

/** Apply the first `m` cells of `taps` to every plane; returns 0 (the chunk is empty again). */
function apply(ctx: ApplyContext, taps: Taps, m: number): number {
  const { src, out, nd, plane, n, planes, p0, method } = ctx;
  const { outK, near, lin, linW, cubC, cubR, cubOk, cubW } = taps;
  for (let p = 0; p < planes; p++) {
    const s0 = p * plane;
    const o0 = (p0 + p) * n;
    if (method === "NEAREST") {
      for (let q = 0; q < m; q++) out[o0 + outK[q]] = src[s0 + near[q]];
      continue;
    }
    for (let q = 0; q < m; q++) {
      const nv = src[s0 + near[q]];
      if (!(nv === nv && nv !== nd)) {
        out[o0 + outK[q]] = NaN;
        continue;
      }
      let value = NaN;
      if (method === "CUBIC" && cubOk[q] === 1) {
        const t = q * 4;
        const wt = q * 8;
        const c0 = cubC[t];
        const c1 = cubC[t + 1];
        const c2 = cubC[t + 2];
        const c3 = cubC[t + 3];
        const w0 = cubW[wt];
        const w1 = cubW[wt + 1];
        const w2 = cubW[wt + 2];
        const w3 = cubW[wt + 3];
        let sum = 0;
        let ok = true;
        for (let j = 0; j < 4; j++) {
          const b = s0 + cubR[t + j];
          const v0 = src[b + c0];
          const v1 = src[b + c1];
          const v2 = src[b + c2];
          const v3 = src[b + c3];
          if (!(v0 === v0 && v0 !== nd && v1 === v1 && v1 !== nd && v2 === v2 && v2 !== nd && v3 === v3 && v3 !== nd)) {
            ok = false;
            break;
          }
          sum += cubW[wt + 4 + j] * (w0 * v0 + w1 * v1 + w2 * v2 + w3 * v3);
        }
        if (ok) value = sum;
      }
      if (value !== value) {
        const t = q * 4;
        const a = lin[t];
        const b = lin[t + 1];
        const c = lin[t + 2];
        const d = lin[t + 3];
        if (a >= 0 && b >= 0 && c >= 0 && d >= 0) {
          const va = src[s0 + a];
          const vb = src[s0 + b];
          const vc = src[s0 + c];
          const vd = src[s0 + d];
          if (va === va && va !== nd && vb === vb && vb !== nd && vc === vc && vc !== nd && vd === vd && vd !== nd) {
            const tx = linW[q * 2];
            const ty = linW[q * 2 + 1];
            value = (va * (1 - tx) + vb * tx) * (1 - ty) + (vc * (1 - tx) + vd * tx) * ty;
          }
        }
      }
      out[o0 + outK[q]] = value === value ? value : nv;
    }
  }
  return 0;
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}
