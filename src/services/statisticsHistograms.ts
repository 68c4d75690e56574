/**
 * computeStatisticsHistograms (SPEC §11): statistics and a 256-bin histogram of one slice
 * over an area (envelope or polygon, holes by the even-odd rule) given in its own spatial
 * reference. The area is mapped into the grid's pixel space vertex by vertex (edges densified
 * when the CRSs differ, since straight lines do not stay straight); a cell counts when its
 * centre falls inside. Only the window under the area's bounding box is read. On a
 * geographic grid longitudes wrap, so an area across the grid's west edge reads two windows.
 */
import { type ResolvedCrs, isMercatorDefinition } from "../analysis/crs.js";
import { bandNamesOf, sliceReadDims } from "./bands.js";
import { InvalidInputError } from "../cube/errors.js";
import { type Cube, type Grid, type TypedArray, type Variable, type Window } from "../cube/types.js";
import { isNodata } from "./identify.js";
import { selectSlice } from "./slices.js";
import { type Geometry, type MapPoint, gridCrs, parseGeometry, pixelMapper } from "./spatial.js";

/** Bins of the histogram (ArcGIS's size for any pixel type here). */
export const HISTOGRAM_SIZE = 256;

/** Most cells one request may read (a slice of a 0.05° global grid is ~26M). */
export const MAX_STATISTICS_CELLS = 64 * 1024 * 1024;

/** Most pieces one edge is cut into (see pixelRings). */
const MAX_EDGE_PIECES = 256;

/** WGS 84 / Web Mercator semi-major axis, metres. */
const EQUATORIAL_RADIUS = 6378137;

export interface AreaStatistics {
  readonly min: number | null;
  readonly max: number | null;
  readonly mean: number | null;
  readonly standardDeviation: number | null;
  readonly count: number;
}

export interface Histogram {
  readonly size: number;
  readonly min: number;
  readonly max: number;
  readonly counts: number[];
}

/** A point in pixel space (column, row; cell centres at n + 0.5). */
interface Pixel {
  readonly x: number;
  readonly y: number;
}

/** Cells of one row inside the area: columns [c0, c1). */
interface Span {
  readonly row: number;
  readonly c0: number;
  readonly c1: number;
}

/**
 * Statistics (population standard deviation, nodata excluded) and a histogram of the slice
 * over an area, one of each per band (a trend raster's bands in order). A band with no valid
 * cell in the area answers count 0 and null statistics, and no histogram (one of zero counts
 * when the raster has several bands, so histograms stay aligned with bands).
 * @example
 * await computeStatisticsHistograms(cube, { geometry: '{"xmin":0,"ymin":0,"xmax":10,"ymax":10,"spatialReference":{"wkid":4326}}' });
 * // { statistics: [{ min, max, mean, standardDeviation, count }], histograms: [{ size: 256, min, max, counts }] }
 */
export async function computeStatisticsHistograms(
  cube: Cube,
  params: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): Promise<{ statistics: AreaStatistics[]; histograms: Histogram[] }> {
  const { geometry, spatialReference } = parseGeometry(params.geometry, params.geometryType, ["envelope", "polygon"]);
  const slice = selectSlice(cube, { sliceId: params.sliceId, mosaicRule: params.mosaicRule, time: params.time });
  const rings = pixelRings(cube.grid, geometry, spatialReference ?? gridCrs(cube.grid));
  const pieces = windowsOf(cube.grid, rings);
  const bands = slice ? bandNamesOf(slice.variable).length : 1;
  const cells = pieces.reduce((n, p) => n + p.window.width * p.window.height, 0);
  if (cells * bands > MAX_STATISTICS_CELLS) {
    const what = bands > 1 ? ` (× ${bands} bands)` : "";
    throw new InvalidInputError(`geometry covers ${cells} cells${what}; at most ${MAX_STATISTICS_CELLS} can be summarised at once`, {
      parameter: "geometry",
    });
  }
  // One list of parts per band: a read holds the bands one after the other, each a whole window.
  const parts: { data: TypedArray; width: number; spans: Span[] }[][] = Array.from({ length: bands }, () => []);
  if (slice) {
    for (const { window, shift } of pieces) {
      const spans = rowSpans(rings, window, shift);
      if (spans.length === 0) continue;
      const { data } = await slice.variable.read({ dims: sliceReadDims(slice.variable, slice.indices), window, signal });
      const area = window.width * window.height;
      parts.forEach((list, b) => list.push({ data: data.subarray(b * area, (b + 1) * area), width: window.width, spans }));
    }
  }
  const each = parts.map((list) => summarise(list, slice?.variable));
  // Histograms stay aligned with the bands: a multiband raster's empty band has one of zero counts.
  const emptyHistogram = (): Histogram => ({ size: HISTOGRAM_SIZE, min: 0, max: 0, counts: new Array<number>(HISTOGRAM_SIZE).fill(0) });
  return {
    statistics: each.flatMap((e) => e.statistics),
    histograms: bands > 1 ? each.map((e) => e.histograms[0] ?? emptyHistogram()) : each.flatMap((e) => e.histograms),
  };
}

/**
 * The area's rings in pixel space. On a geographic grid each ring is unwrapped so that it
 * does not jump a whole turn between vertices, and later rings start within half a turn of
 * the first ring's middle, so an area across the grid's west edge stays one shape. Edges are cut into
 * pieces: about one per cell crossed when the CRSs differ (so the image of an edge bends as
 * it should), and on a geographic grid at least one per quarter turn (so that unwrapping
 * is never ambiguous, even for an edge from -180 to 180).
 */
function pixelRings(grid: Grid, geometry: Geometry, from: ResolvedCrs): Pixel[][] {
  const toPixel = pixelMapper(grid, from);
  const target = gridCrs(grid);
  const same = target.definition === from.definition;
  const rings: MapPoint[][] =
    geometry.type === "envelope"
      ? [
          [
            { x: geometry.envelope.xmin, y: geometry.envelope.ymin },
            { x: geometry.envelope.xmin, y: geometry.envelope.ymax },
            { x: geometry.envelope.xmax, y: geometry.envelope.ymax },
            { x: geometry.envelope.xmax, y: geometry.envelope.ymin },
          ],
        ]
      : geometry.type === "polygon"
        ? geometry.rings.map((r) => [...r])
        : [];
  const period = target.geographic ? 360 / Math.abs(grid.transform[1]) : undefined;
  const quarter = period === undefined ? undefined : quarterTurn(from);
  const unwrap = (x: number, near: number) => (period === undefined ? x : x - Math.round((x - near) / period) * period);
  const out: Pixel[][] = [];
  let centre: number | undefined;
  for (const ring of rings) {
    const mapped: Pixel[] = [];
    const put = (p: MapPoint): Pixel => {
      const [x, y] = toPixel(p);
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        throw new InvalidInputError(`geometry has a vertex (${p.x}, ${p.y}) with no position in the service's coordinate system`, {
          parameter: "geometry",
        });
      }
      const near = mapped.length > 0 ? mapped[mapped.length - 1].x : (centre ?? x);
      const pixel = { x: unwrap(x, near), y };
      mapped.push(pixel);
      return pixel;
    };
    for (let i = 0; i < ring.length; i++) {
      const a = ring[i];
      const b = ring[(i + 1) % ring.length];
      const pa = put(a);
      let pieces = 1;
      if (!same) {
        const [bx, by] = toPixel(b);
        const across = Math.hypot(unwrap(bx, pa.x) - pa.x, by - pa.y);
        pieces = Math.ceil(Number.isFinite(across) ? across : MAX_EDGE_PIECES);
      }
      if (quarter !== undefined) pieces = Math.max(pieces, Math.ceil(Math.abs(b.x - a.x) / quarter));
      pieces = Math.min(MAX_EDGE_PIECES, pieces);
      for (let k = 1; k < pieces; k++) put({ x: a.x + ((b.x - a.x) * k) / pieces, y: a.y + ((b.y - a.y) * k) / pieces });
    }
    if (mapped.length < 3) continue;
    out.push(mapped);
    if (centre === undefined) {
      const [lo, hi] = range(mapped.map((p) => p.x));
      centre = (lo + hi) / 2;
    }
  }
  return out;
}

/** A quarter turn of longitude in a CRS's x units, when its x goes round the globe. */
function quarterTurn(crs: ResolvedCrs): number | undefined {
  if (crs.geographic) return 90;
  // Mercator x is the equatorial arc: a quarter turn is a quarter of the equator.
  return isMercatorDefinition(crs.definition) ? (Math.PI * EQUATORIAL_RADIUS) / 2 : undefined;
}

/**
 * The windows to read: the cells whose centres lie in the rings' bounding box, once for
 * each whole-turn shift (geographic grids) that brings the box over the grid.
 */
function windowsOf(grid: Grid, rings: readonly Pixel[][]): { window: Window; shift: number }[] {
  if (rings.length === 0) return [];
  const [x0, x1] = range(rings.flat().map((p) => p.x));
  const [y0, y1] = range(rings.flat().map((p) => p.y));
  const geographic = gridCrs(grid).geographic;
  const period = 360 / Math.abs(grid.transform[1]);
  // A whole turn is fine (spans are half-open, so the seam cell counts once); more is not.
  if (geographic && x1 - x0 > period * (1 + 1e-9)) {
    throw new InvalidInputError("geometry spans more than 360° of longitude", { parameter: "geometry" });
  }
  const shifts = geographic ? [-period, 0, period] : [0];
  const r0 = Math.max(0, Math.ceil(y0 - 0.5));
  const r1 = Math.min(grid.height - 1, Math.floor(y1 - 0.5));
  const out: { window: Window; shift: number }[] = [];
  if (r1 < r0) return out;
  for (const shift of shifts) {
    const c0 = Math.max(0, Math.ceil(x0 + shift - 0.5));
    const c1 = Math.min(grid.width - 1, Math.floor(x1 + shift - 0.5));
    if (c1 >= c0) out.push({ window: { x: c0, y: r0, width: c1 - c0 + 1, height: r1 - r0 + 1 }, shift });
  }
  return out;
}

/** Smallest and largest of many values (spreading them into Math.min overflows the stack). */
function range(values: readonly number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/**
 * The cells of a window whose centres are inside the rings (even-odd, so holes are holes):
 * each row's centre line is cut by every edge, and the cuts pair up into runs of cells.
 * Columns are relative to the window; a centre exactly on a left edge is in, on a right edge out.
 */
function rowSpans(rings: readonly Pixel[][], window: Window, shift: number): Span[] {
  const spans: Span[] = [];
  for (let r = 0; r < window.height; r++) {
    const y = window.y + r + 0.5;
    const cuts: number[] = [];
    for (const ring of rings) {
      for (let i = 0; i < ring.length; i++) {
        const a = ring[i];
        const b = ring[(i + 1) % ring.length];
        if (a.y > y !== b.y > y) cuts.push(a.x + shift + ((y - a.y) * (b.x - a.x)) / (b.y - a.y));
      }
    }
    cuts.sort((p, q) => p - q);
    for (let k = 0; k + 1 < cuts.length; k += 2) {
      const c0 = Math.max(window.x, Math.ceil(cuts[k] - 0.5));
      const c1 = Math.min(window.x + window.width, Math.ceil(cuts[k + 1] - 0.5));
      if (c1 > c0) spans.push({ row: r, c0: c0 - window.x, c1: c1 - window.x });
    }
  }
  return spans;
}

/** Two passes over the cells inside: range, count and mean first; then spread and histogram, which need them. */
function summarise(
  parts: readonly { data: TypedArray; width: number; spans: Span[] }[],
  variable: Variable | undefined,
): { statistics: AreaStatistics[]; histograms: Histogram[] } {
  const empty = { statistics: [{ min: null, max: null, mean: null, standardDeviation: null, count: 0 }], histograms: [] };
  if (!variable) return empty;
  let count = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  const each = (visit: (v: number) => void) => {
    for (const { data, width, spans } of parts) {
      for (const { row, c0, c1 } of spans) {
        for (let i = row * width + c0; i < row * width + c1; i++) {
          const v = data[i];
          if (!isNodata(v, variable)) visit(v);
        }
      }
    }
  };
  each((v) => {
    count++;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  });
  if (count === 0) return empty;
  const mean = sum / count;
  const counts = new Array<number>(HISTOGRAM_SIZE).fill(0);
  const width = (max - min) / HISTOGRAM_SIZE;
  let squares = 0;
  each((v) => {
    squares += (v - mean) * (v - mean);
    // The top value belongs to the last bin; a constant area fills bin 0.
    counts[width > 0 ? Math.min(HISTOGRAM_SIZE - 1, Math.floor((v - min) / width)) : 0]++;
  });
  return {
    statistics: [{ min, max, mean, standardDeviation: Math.sqrt(squares / count), count }],
    histograms: [{ size: HISTOGRAM_SIZE, min, max, counts }],
  };
}
