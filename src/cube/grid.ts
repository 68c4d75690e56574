/**
 * Grids: build the north-up affine grid from 1-D axis coordinates, and derive coordinates
 * from a transform. Pure functions, no I/O.
 */
import { UnsupportedDataError } from "./errors.js";
import type { Crs, GeoTransform, Grid } from "./types.js";

/**
 * How far an axis may stray from even spacing and still be presented as an affine grid,
 * as a fraction of one cell. Gaussian latitudes (T42: at most ~1% of a cell) pass; the exact
 * coordinates are kept in Grid.x/y. GDAL's netCDF driver accepts similar near-regular axes.
 */
export const AXIS_TOLERANCE = 0.1;

export interface AxisFit {
  /** Spacing (signed, in storage order). */
  readonly step: number;
  /** Largest distance of a coordinate from the fitted line, in cells. */
  readonly deviation: number;
}

/** Least-squares line through the coordinates against their index. */
export function fitAxis(values: ArrayLike<number>): AxisFit {
  const n = values.length;
  if (n < 2) return { step: 1, deviation: 0 };
  const mi = (n - 1) / 2;
  let mv = 0;
  for (let i = 0; i < n; i++) mv += values[i];
  mv /= n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (i - mi) * (values[i] - mv);
    sxx += (i - mi) * (i - mi);
  }
  const step = sxy / sxx;
  let dev = 0;
  for (let i = 0; i < n; i++) dev = Math.max(dev, Math.abs(values[i] - (mv + step * (i - mi))));
  return { step, deviation: step === 0 ? Infinity : dev / Math.abs(step) };
}

export interface AxesGrid {
  readonly grid: Grid;
  /** True when the source stores rows south-up (y increasing): rows are flipped on read. */
  readonly flipY: boolean;
}

/**
 * Grid from cell-centre axis coordinates in storage order.
 * @example
 * const { grid, flipY } = gridFromAxes(lon, lat, { epsg: 4326 }, "UWND");
 */
export function gridFromAxes(x: ArrayLike<number>, y: ArrayLike<number>, crs: Crs, what: string): AxesGrid {
  const fx = checkAxis(x, "x (columns)", what);
  const fy = checkAxis(y, "y (rows)", what);
  if (fx.step < 0) {
    throw new UnsupportedDataError(`${what}: the x axis runs east to west; Strata reads grids whose columns run west to east`);
  }
  const flipY = y.length > 1 && fy.step > 0;
  const yNorthUp = Float64Array.from(y);
  if (flipY) yNorthUp.reverse();
  const xs = Float64Array.from(x);
  const dx = x.length > 1 ? fx.step : 1;
  const dy = y.length > 1 ? Math.abs(fy.step) : 1;
  // Origin of the fitted line, so a Gaussian axis is centred, not pinned to its first value.
  const x0 = mean(xs) - (dx * (xs.length - 1)) / 2;
  const yTop = mean(yNorthUp) + (dy * (yNorthUp.length - 1)) / 2;
  const transform: GeoTransform = [x0 - dx / 2, dx, 0, yTop + dy / 2, 0, -dy];
  return { grid: { width: xs.length, height: yNorthUp.length, transform, crs, x: xs, y: yNorthUp }, flipY };
}

/** Grid from a transform alone; coordinates are the cell centres it implies. */
export function gridFromTransform(width: number, height: number, transform: GeoTransform, crs: Crs): Grid {
  const [t0, t1, t2, t3, t4, t5] = transform;
  const x = new Float64Array(width);
  const y = new Float64Array(height);
  for (let c = 0; c < width; c++) x[c] = t0 + (c + 0.5) * t1 + 0.5 * t2;
  for (let r = 0; r < height; r++) y[r] = t3 + 0.5 * t4 + (r + 0.5) * t5;
  return { width, height, transform, crs, x, y };
}

/** True when two grids have the same shape, placement and CRS. */
export function sameGrid(a: Grid, b: Grid): boolean {
  if (a.width !== b.width || a.height !== b.height) return false;
  if (a.crs.epsg !== b.crs.epsg || (a.crs.epsg === undefined && a.crs.wkt !== b.crs.wkt)) return false;
  const tol = 1e-9 * Math.max(1, ...a.transform.map(Math.abs));
  return a.transform.every((v, i) => Math.abs(v - b.transform[i]) <= tol);
}

function checkAxis(values: ArrayLike<number>, axis: string, what: string): AxisFit {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i]))
      throw new UnsupportedDataError(`${what}: the ${axis} coordinates contain a missing or non-finite value`);
  }
  const fit = fitAxis(values);
  if (!(fit.deviation <= AXIS_TOLERANCE)) {
    throw new UnsupportedDataError(
      `${what}: the ${axis} coordinates are not evenly spaced (they stray ${fit.deviation.toFixed(2)} cells from a regular axis); Strata reads regular grids only`,
    );
  }
  return fit;
}

function mean(a: Float64Array): number {
  let s = 0;
  for (const v of a) s += v;
  return a.length ? s / a.length : 0;
}

/** The grid of a window of `grid` (same CRS and cell size, exact coordinates kept). */
export function windowGrid(grid: Grid, w: { x: number; y: number; width: number; height: number }): Grid {
  const [t0, t1, t2, t3, t4, t5] = grid.transform;
  return {
    width: w.width,
    height: w.height,
    transform: [t0 + w.x * t1 + w.y * t2, t1, t2, t3 + w.x * t4 + w.y * t5, t4, t5],
    crs: grid.crs,
    x: grid.x.slice(w.x, w.x + w.width),
    y: grid.y.slice(w.y, w.y + w.height),
  };
}

/**
 * The pixel window of `grid` covering an envelope in the grid's CRS (cells whose area
 * intersects it), or undefined when they do not overlap. North-up grids without rotation.
 */
export function envelopeWindow(
  grid: Grid,
  env: { xmin: number; ymin: number; xmax: number; ymax: number },
): { x: number; y: number; width: number; height: number } | undefined {
  const [t0, t1, , t3, , t5] = grid.transform;
  const c0 = Math.max(0, Math.floor((env.xmin - t0) / t1 + 1e-9));
  const c1 = Math.min(grid.width, Math.ceil((env.xmax - t0) / t1 - 1e-9));
  const r0 = Math.max(0, Math.floor((env.ymax - t3) / t5 + 1e-9));
  const r1 = Math.min(grid.height, Math.ceil((env.ymin - t3) / t5 - 1e-9));
  return c1 > c0 && r1 > r0 ? { x: c0, y: r0, width: c1 - c0, height: r1 - r0 } : undefined;
}
