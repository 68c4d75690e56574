/**
 * The grid whose extent a service reports (root `extent`, `initialExtent`, `fullExtent`, and
 * the default exportImage bbox). Map clients take longitudes in -180..180: the Maps SDK
 * projects the extent to Web Mercator as it is, so a global grid stored 0..360 reported as
 * 0..360 would sit half beyond the world's east edge. So a geographic grid is reported as
 * analysis/seam.ts presents it for -180..180: a grid that goes round the earth from the cell
 * edge at or just west of -180 (its cells' edges kept, so a 0..360 grid of any cell size
 * reports exactly -180..180), a regional one moved by whole turns to overlap -180..180 most.
 * The data are not moved: exportImage, identify and the other queries read longitudes modulo
 * 360 anyway.
 */
import { seamFor, seamGrid } from "../analysis/seam.js";
import type { Grid } from "../cube/types.js";

/** Longitudes map clients expect. */
const WORLD = { xmin: -180, xmax: 180 } as const;

/**
 * The grid as a service reports it (the stored grid when it already lies in -180..180).
 * @example
 * gridEnvelope(servedGrid(grid0to360)); // { xmin: -180, ymin: -90, xmax: 180, ymax: 90 }
 */
export function servedGrid(grid: Grid): Grid {
  const seam = seamFor(grid, WORLD);
  return seam ? seamGrid(grid, seam) : grid;
}
