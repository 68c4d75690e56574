/**
 * identify (SPEC §11): the value of a service at a map point, as the ArcGIS ImageServer
 * answers it. The point takes the geometry's spatial reference, else `sr`, else the
 * service's; the value is the cell containing the point (no interpolation), "NoData"
 * outside the grid or at nodata. With `processAsMultidimensional=true` it also gives every
 * slice's value of the chosen variable at that cell, read as one time series per
 * combination of the other dimensions (a 1×1 window through the whole time axis). A
 * multiband (trend) raster answers every band: `value` is the bands' values separated by
 * spaces (as ArcGIS writes a multiband pixel), each slice's `Values` text too, and each
 * `dataSeries` value lists the bands.
 */
import { bandAxis, bandNamesOf, sliceDimensions, sliceReadDims } from "./bands.js";
import { booleanParam } from "./requestValues.js";
import { combinationAt, strides } from "../cube/combinations.js";
import type { ResolvedCrs } from "../analysis/crs.js";
import { InvalidInputError } from "../cube/errors.js";
import { type Cube, type Grid, STD_TIME, type Variable, type Window } from "../cube/types.js";
import { spatialReference } from "./info.js";
import { type Slice, listSlices, requestedVariable, selectSlice, sliceDefinition } from "./slices.js";
import { type MapPoint, gridCrs, parseGeometry, parseSpatialReference, pixelMapper } from "./spatial.js";

/** A cell of the service grid (north-up row, west-east column). */
export interface Cell {
  readonly col: number;
  readonly row: number;
}

/** One slice's value in identify's `dataSeries` (ArcGIS JS API's RasterSliceValue). */
export interface RasterSliceValue {
  readonly value: (number | null)[];
  readonly multidimensionalDefinition: Record<string, unknown>[];
}

/** The identify response (ArcGIS ImageServer's, plus `dataSeries` when multidimensional). */
export interface IdentifyResult {
  readonly objectId: 0;
  readonly name: "Pixel";
  readonly value: string;
  readonly location: { readonly x: number; readonly y: number; readonly spatialReference: Record<string, unknown> };
  readonly properties: { readonly Values: string[] } | null;
  readonly catalogItems: null;
  readonly catalogItemVisibilities: readonly number[];
  readonly dataSeries?: RasterSliceValue[];
}

/**
 * Identify the service's value at a point.
 * @example
 * // the navy winds, UWND at 140.6°E 35.3°N (its first month):
 * await identify(cube, { geometry: '{"x":140.6,"y":35.3,"spatialReference":{"wkid":4326}}', time: "380059200000" });
 * // { objectId: 0, name: "Pixel", value: "4.7906556", location: {...}, properties: null, catalogItems: null, catalogItemVisibilities: [] }
 * await identify(cube, { geometry: "140.6,35.3", processAsMultidimensional: "true" });
 * // ... properties: { Values: ["4.7906556", "2.637336", ...] },
 * //     dataSeries: [{ value: [4.790655612945557], multidimensionalDefinition: [{ variableName: "UWND", dimensionName: "StdTime", ... }] }, ...]
 */
export async function identify(cube: Cube, params: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<IdentifyResult> {
  const { geometry, spatialReference: given } = parseGeometry(params.geometry, params.geometryType, ["point"]);
  const crs = queryCrs(cube.grid, given, params.sr);
  if (geometry.type !== "point") throw new InvalidInputError("geometry must be an esriGeometryPoint", { parameter: "geometry" });
  const point = geometry.points[0];
  const multidimensional = booleanParam(params.processAsMultidimensional, false, "processAsMultidimensional");
  const sliceParams = { sliceId: params.sliceId, mosaicRule: params.mosaicRule, time: params.time, variableName: params.variableName };
  const slice = selectSlice(cube, sliceParams);
  const cell = cellLocator(cube.grid, crs)(point);
  const location = { x: point.x, y: point.y, spatialReference: crsJson(cube.grid, crs) };
  // Keys in the order ArcGIS writes them.
  const result = (value: string, properties: IdentifyResult["properties"]): IdentifyResult => ({
    objectId: 0,
    name: "Pixel",
    value,
    location,
    properties,
    catalogItems: null,
    catalogItemVisibilities: [],
  });
  if (!multidimensional) {
    const values = slice && cell ? (await cellValues(slice, [cell], signal))[0] : [null];
    return result(bandsText(values, slice?.variable), null);
  }
  const variable = slice?.variable ?? requestedVariable(cube, sliceParams);
  const slices = listSlices(cube).filter((s) => s.variable === variable);
  const bands = bandNamesOf(variable).length;
  const values = cell ? await seriesAt(variable, cell, signal) : slices.map(() => new Array<number | null>(bands).fill(null));
  const selected = slice ? slices.findIndex((s) => s.indices.every((i, d) => i === slice.indices[d])) : -1;
  return {
    ...result(bandsText(selected >= 0 ? values[selected] : [null], variable), { Values: values.map((v) => bandsText(v, variable)) }),
    dataSeries: slices.map((s, k) => ({ value: values[k], multidimensionalDefinition: sliceDefinition(s) })),
  };
}

/**
 * The spatial reference of a query's geometry: its own, else `sr`, else the service's.
 * @example
 * queryCrs(cube.grid, undefined, "102100").crs.epsg; // 3857
 */
export function queryCrs(grid: Grid, own: ResolvedCrs | undefined, sr: string | undefined): ResolvedCrs {
  return own ?? parseSpatialReference(sr, "sr") ?? gridCrs(grid);
}

/**
 * The ArcGIS spatialReference object of a query CRS.
 * @example
 * crsJson(cube.grid, queryCrs(cube.grid, undefined, "3857")); // { wkid: 102100, latestWkid: 3857 }
 */
export function crsJson(grid: Grid, crs: ResolvedCrs): Record<string, unknown> {
  return spatialReference({ ...grid, crs: crs.crs });
}

/**
 * Where map points of `crs` fall in the grid: the cell containing the point (a point on a
 * cell edge goes to the cell east / south of it), or undefined outside the grid or where the
 * point has no image in the grid's CRS.
 * @example
 * cellLocator(grid, gridCrs(grid))({ x: 21, y: 89 }); // { col: 0, row: 0 } on the navy winds grid
 */
export function cellLocator(grid: Grid, crs: ResolvedCrs): (p: MapPoint) => Cell | undefined {
  const toPixel = pixelMapper(grid, crs);
  return (p) => {
    const [x, y] = toPixel(p);
    const col = Math.floor(x);
    const row = Math.floor(y);
    // NaN fails both comparisons, so points without an image land here too.
    if (!(col >= 0 && col < grid.width && row >= 0 && row < grid.height)) return undefined;
    return { col, row };
  };
}

/**
 * True when a decoded value is nodata for the variable (NaN always is).
 * @example
 * isNodata(-99.9000015258789, uwnd); // true
 */
export function isNodata(value: number, variable: Variable): boolean {
  return value !== value || value === variable.nodata;
}

/**
 * A value as identify and getSamples write it: "NoData" for none, float32 values in the
 * fewest digits that read back as the same float32 (as ArcGIS shows them), others as is.
 * @example
 * pixelText(-3.700000047683716, uwnd); // "-3.7"
 */
export function pixelText(value: number | null, variable: Variable | undefined): string {
  if (value === null || !variable || isNodata(value, variable)) return "NoData";
  if (variable.pixelType !== "F32") return String(value);
  for (let digits = 1; digits < 9; digits++) {
    const text = String(Number(value.toPrecision(digits)));
    if (Math.fround(Number(text)) === value) return text;
  }
  return String(Number(value.toPrecision(9)));
}

/**
 * A pixel's band values as identify writes them: "NoData" when every band is nodata, else
 * each band's text (pixelText) separated by spaces, as ArcGIS writes a multiband pixel.
 * @example
 * bandsText([2, 1, null], trendVariable); // "2 1 NoData"
 */
export function bandsText(values: readonly (number | null)[], variable: Variable | undefined): string {
  if (values.every((v) => v === null)) return "NoData";
  return values.map((v) => pixelText(v, variable)).join(" ");
}

/** Largest window read in one piece; cells spread wider are read one by one. */
const MAX_WINDOW_CELLS = 4 * 1024 * 1024;

/**
 * The slice's band values at the cells (null outside the grid or at nodata): one read of
 * their bounding window when it is small (identify's one cell, getSamples' many).
 * @example
 * await cellValues(slice, [{ col: 2, row: 1 }, undefined]); // [[271.5], [null]]
 */
export async function cellValues(slice: Slice, cells: readonly (Cell | undefined)[], signal?: AbortSignal): Promise<(number | null)[][]> {
  const bands = bandNamesOf(slice.variable).length;
  const none = () => new Array<number | null>(bands).fill(null);
  const inside = cells.filter((c): c is Cell => c !== undefined);
  if (inside.length === 0) return cells.map(none);
  const dims = sliceReadDims(slice.variable, slice.indices);
  const x0 = Math.min(...inside.map((c) => c.col));
  const y0 = Math.min(...inside.map((c) => c.row));
  const box: Window = {
    x: x0,
    y: y0,
    width: Math.max(...inside.map((c) => c.col)) - x0 + 1,
    height: Math.max(...inside.map((c) => c.row)) - y0 + 1,
  };
  const value = (v: number) => (isNodata(v, slice.variable) ? null : v);
  // Values come band by band, each band a whole window.
  const pixel = (data: ArrayLike<number>, area: number, i: number) => Array.from({ length: bands }, (_, b) => value(data[b * area + i]));
  if (box.width * box.height * bands <= MAX_WINDOW_CELLS) {
    const { data } = await slice.variable.read({ dims, window: box, signal });
    return cells.map((c) => (c ? pixel(data, box.width * box.height, (c.row - y0) * box.width + (c.col - x0)) : none()));
  }
  const read = new Map<string, (number | null)[]>();
  for (const c of inside) {
    const key = `${c.col},${c.row}`;
    if (read.has(key)) continue;
    const { data } = await slice.variable.read({ dims, window: { x: c.col, y: c.row, width: 1, height: 1 }, signal });
    read.set(key, pixel(data, 1, 0));
  }
  return cells.map((c) => (c ? read.get(`${c.col},${c.row}`)! : none()));
}

/**
 * Every slice's band values of `variable` at a cell, in slice order (last dimension
 * fastest), null at nodata. One read per combination of the slice dimensions other than
 * time, every band at once: NetCDF stores a slice per chunk or record, so a 1×1 column
 * through time touches each once.
 */
async function seriesAt(variable: Variable, cell: Cell, signal?: AbortSignal): Promise<(number | null)[][]> {
  const band = bandAxis(variable);
  const bands = band?.names.length ?? 1;
  const sizes = sliceDimensions(variable).map((d) => d.values.length);
  const total = sizes.reduce((n, s) => n * s, 1);
  const out = Array.from({ length: total }, () => new Array<number | null>(bands).fill(null));
  if (total === 0) return out;
  const window = { x: cell.col, y: cell.row, width: 1, height: 1 };
  const value = (v: number) => (isNodata(v, variable) ? null : v);
  if (sizes.length === 0) {
    const { data } = await variable.read({ dims: sliceReadDims(variable, []), window, signal });
    for (let b = 0; b < bands; b++) out[0][b] = value(data[b]);
    return out;
  }
  const timeAxis = Math.max(
    0,
    sliceDimensions(variable).findIndex((d) => d.name === STD_TIME),
  );
  const steps = strides(sizes);
  const combos = total / sizes[timeAxis];
  // The read holds [time, band] in storage order: where each is among the variable's dimensions.
  const timeFull = band && band.axis <= timeAxis ? timeAxis + 1 : timeAxis;
  const bandFull = band?.axis ?? -1;
  for (let k = 0; k < combos; k++) {
    // Index of every other dimension for this combination (the time axis counts as size 1: index 0).
    const at = combinationAt(
      k,
      sizes.map((s, d) => (d === timeAxis ? 1 : s)),
    );
    const dims = sliceReadDims(variable, at);
    dims[timeFull] = [0, sizes[timeAxis]];
    const { data } = await variable.read({ dims, window, signal });
    const offset = at.reduce((n, i, d) => n + i * steps[d], 0);
    for (let t = 0; t < sizes[timeAxis]; t++) {
      for (let b = 0; b < bands; b++) {
        // C order over the read: time before band, or band before time.
        const i = bandFull < 0 ? t : bandFull > timeFull ? t * bands + b : b * sizes[timeAxis] + t;
        out[offset + t * steps[timeAxis]][b] = value(data[i]);
      }
    }
  }
  return out;
}
