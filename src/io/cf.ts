/**
 * CF interpretation: turns a RawDataset (NetCDF-3, NetCDF-4, Zarr) into a Cube.
 * - spatial axes: the last two dimensions, with 1-D latitude/longitude or projection
 *   coordinates (or a GeoZarr / GDAL transform); south-up storage is presented north-up;
 * - time: a coordinate with "<unit> since <epoch>" units becomes StdTime (epoch ms UTC);
 * - vertical: a coordinate with axis=Z or a `positive` attribute becomes StdZ, as a height
 *   (depths with positive=down are negated, the ArcGIS convention: 50 m deep is StdZ -50);
 * - values: scale_factor/add_offset applied, _FillValue/missing_value become nodata.
 */
import { UnsupportedDataError } from "../cube/errors.js";
import { gridFromAxes, gridFromTransform, sameGrid } from "../cube/grid.js";
import { decodeCfTimes, isCfTimeUnits, parseTimeUnits } from "../cube/time.js";
import { dimensionInterval } from "../cube/dimension.js";
import {
  type Crs,
  type Cube,
  type Dimension,
  type GeoTransform,
  type Grid,
  type PixelType,
  type Selection,
  type Slab,
  STD_TIME,
  STD_Z,
  type TypedArray,
  type Variable,
} from "../cube/types.js";
import { crsFromGridMapping } from "./crs.js";
import { type Attributes, type RawDataset, type RawVariable, numericAttr, numericAttrs, stringAttr } from "./raw.js";

/** Attributes consumed by decoding; the rest are kept on the variable. */
const DECODING_ATTRS = new Set([
  "units",
  "long_name",
  "_FillValue",
  "missing_value",
  "scale_factor",
  "add_offset",
  "_Unsigned",
  "grid_mapping",
  "_ARRAY_DIMENSIONS",
  "coordinates",
  "proj:code",
  "spatial:transform",
  "spatial:shape",
  "spatial:dimensions",
  "strata:name",
]);

/**
 * Interpret a raw dataset as a cube; the cube owns it (closes it), and a dataset refused is
 * closed before the refusal is thrown.
 * @example
 * const cube = await cubeFromRaw(await openNetcdf3("winds.cdf"), "winds.cdf");
 */
export async function cubeFromRaw(raw: RawDataset, source: string): Promise<Cube> {
  try {
    return await interpret(raw, source);
  } catch (e) {
    await raw.close().catch(() => undefined); // the refusal is the error worth reporting
    throw e;
  }
}

async function interpret(raw: RawDataset, source: string): Promise<Cube> {
  const byName = new Map(raw.variables.map((v) => [v.name, v]));
  const coordinateOf = (v: RawVariable, dim: string) => findCoordinate(byName, v.name, dim);
  const auxiliary = auxiliaryNames(raw.variables);
  const skipped: { name: string; reason: string }[] = [];
  const placed: { raw: RawVariable; grid: Grid; flipY: boolean }[] = [];

  for (const v of raw.variables) {
    if (auxiliary.has(v.name) || isCoordinateVariable(v)) continue;
    if (v.dtype === "char" || v.dtype === "string") {
      skipped.push({ name: v.name, reason: `${v.name} holds text, not raster values` });
      continue;
    }
    try {
      placed.push({ raw: v, ...(await gridOf(v, coordinateOf, byName, raw.attrs)) });
    } catch (e) {
      if (!(e instanceof UnsupportedDataError)) throw e;
      skipped.push({ name: v.name, reason: e.message });
    }
  }
  if (placed.length === 0) {
    const more =
      skipped.length > 1
        ? ` (and ${skipped.length - 1} more variable(s) alike: ${skipped
            .slice(1, 6)
            .map((s) => s.name)
            .join(", ")}${skipped.length > 6 ? ", ..." : ""})`
        : "";
    const why = skipped.length ? `: ${skipped[0].reason}${more}` : " (it has no variable with two spatial dimensions)";
    throw new UnsupportedDataError(`${source} has no variable on a regular 2-D grid${why}`);
  }
  const grid = placed[0].grid;
  const variables: Variable[] = [];
  const kept: RawVariable[] = [];
  for (const p of placed) {
    if (!sameGrid(p.grid, grid)) {
      skipped.push({ name: p.raw.name, reason: `${p.raw.name} lies on a different grid from ${placed[0].raw.name}` });
      continue;
    }
    variables.push(await toVariable(p.raw, p.flipY, coordinateOf));
    kept.push(p.raw);
  }
  const order = new Map(raw.variables.map((v, i) => [v.name, i]));
  const rank = (name: string) => order.get(name) ?? order.size;
  skipped.push(...(raw.skipped ?? []), ...unusedCoordinates(raw.variables, kept, coordinateOf, auxiliary));
  return {
    grid,
    variables,
    attributes: { ...raw.attrs },
    skipped: [...skipped.sort((a, b) => rank(a.name) - rank(b.name)), ...missingCoordinates(kept, coordinateOf)],
    close: () => raw.close(),
  };
}

/**
 * Coordinates the cube does not use, said aloud: a coordinate variable of a dimension no
 * variable has, and an auxiliary coordinate named by `coordinates` (Strata reads
 * dimension coordinates only). Grid mappings, bounds and scalar grid mappings are metadata.
 */
function unusedCoordinates(
  all: readonly RawVariable[],
  kept: readonly RawVariable[],
  coordinateOf: CoordinateOf,
  auxiliary: ReadonlySet<string>,
): { name: string; reason: string }[] {
  // A coordinate of a variable not read goes with that variable's own note.
  const used = new Set<string>();
  for (const v of all) if (!isCoordinateVariable(v)) for (const d of v.dims) used.add(coordinateOf(v, d)?.name ?? "");
  const named = new Map<string, string>();
  for (const v of kept) {
    const prefix = v.name.includes("/") ? v.name.slice(0, v.name.lastIndexOf("/") + 1) : "";
    for (const n of (stringAttr(v.attrs, "coordinates") ?? "").split(/\s+/).filter(Boolean)) named.set(prefix + n, v.name);
  }
  const out: { name: string; reason: string }[] = [];
  for (const c of all) {
    if (used.has(c.name)) continue;
    if (named.has(c.name)) {
      out.push({
        name: c.name,
        reason: `${c.name}, an auxiliary coordinate of ${named.get(c.name)}, is not read: Strata reads the coordinates of dimensions only`,
      });
    } else if (isCoordinateVariable(c) && !auxiliary.has(c.name)) {
      out.push({ name: c.name, reason: `${c.name} is the coordinate of dimension ${c.dims[0]}, which no variable has` });
    }
  }
  return out;
}

/** A non-spatial dimension without a coordinate variable (or whose coordinate is not 1-D) counts 0..n-1: said aloud. */
function missingCoordinates(kept: readonly RawVariable[], coordinateOf: CoordinateOf): { name: string; reason: string }[] {
  const out = new Map<string, { name: string; reason: string }>();
  for (const v of kept) {
    v.dims.slice(0, -2).forEach((d, i) => {
      if (coordinateOf(v, d) || out.has(d)) return;
      out.set(d, {
        name: d,
        reason: `dimension ${d} has no coordinate variable Strata can read; its values are the indices 0..${v.shape[i] - 1}`,
      });
    });
  }
  return [...out.values()];
}

/** The coordinate variable of a dimension: same group first, then enclosing groups. */
function findCoordinate(byName: Map<string, RawVariable>, varName: string, dim: string): RawVariable | undefined {
  const parts = varName.split("/").slice(0, -1);
  for (let i = parts.length; i >= 0; i--) {
    const c = byName.get([...parts.slice(0, i), dim].join("/"));
    if (c && c.shape.length === 1 && c.dims[0] === dim) return c;
  }
  return undefined;
}

function isCoordinateVariable(v: RawVariable): boolean {
  return v.dims.length === 1 && v.dims[0] === v.name.split("/").pop();
}

/** Grid mappings, bounds and other variables named by attributes are metadata, not data. */
function auxiliaryNames(vars: readonly RawVariable[]): Set<string> {
  const out = new Set<string>();
  for (const v of vars) {
    if (stringAttr(v.attrs, "grid_mapping_name") !== undefined || v.shape.length === 0) out.add(v.name);
    const prefix = v.name.includes("/") ? v.name.slice(0, v.name.lastIndexOf("/") + 1) : "";
    for (const key of ["grid_mapping", "bounds", "climatology", "coordinates"]) {
      const ref = stringAttr(v.attrs, key);
      if (ref) for (const name of ref.split(/\s+/)) out.add(prefix + name.split(":")[0]);
    }
  }
  return out;
}

type CoordinateOf = (v: RawVariable, dim: string) => RawVariable | undefined;

const Y_NAMES = /^(lat|latitude|y|rlat|yc|nlat|lats)$/i;
const X_NAMES = /^(lon|long|longitude|x|rlon|xc|nlon|lons)$/i;

function axisKind(dim: string, coord: RawVariable | undefined): "x" | "y" | undefined {
  const a = coord?.attrs ?? {};
  const units = (stringAttr(a, "units") ?? "").toLowerCase();
  const std = (stringAttr(a, "standard_name") ?? "").toLowerCase();
  const axis = (stringAttr(a, "axis") ?? "").toUpperCase();
  if (
    axis === "Y" ||
    /^degrees?_?n(orth)?$/.test(units) ||
    std === "latitude" ||
    std === "projection_y_coordinate" ||
    std === "grid_latitude"
  )
    return "y";
  if (
    axis === "X" ||
    /^degrees?_?e(ast)?$/.test(units) ||
    std === "longitude" ||
    std === "projection_x_coordinate" ||
    std === "grid_longitude"
  )
    return "x";
  if (axis || std) return undefined;
  if (Y_NAMES.test(dim)) return "y";
  if (X_NAMES.test(dim)) return "x";
  return undefined;
}

async function gridOf(
  v: RawVariable,
  coordinateOf: CoordinateOf,
  byName: Map<string, RawVariable>,
  rootAttrs: Attributes,
): Promise<{ grid: Grid; flipY: boolean }> {
  const what = `variable ${v.name}`;
  const nd = v.dims.length;
  const gridType = stringAttr(v.attrs, "grid_type") ?? stringAttr(rootAttrs, "grid_type");
  if (gridType && /unstructured|icosahedral|triangular/i.test(gridType)) {
    throw new UnsupportedDataError(`${what} is on an unstructured grid (grid_type = ${gridType}); Strata reads regular 2-D grids only`);
  }
  if (stringAttr(v.attrs, "mesh") || stringAttr(v.attrs, "location")) {
    throw new UnsupportedDataError(`${what} is on a UGRID mesh; Strata reads regular 2-D grids only`);
  }
  if (nd < 2) throw new UnsupportedDataError(`${what} has ${nd} dimension(s); a raster needs two spatial dimensions`);
  const yDim = v.dims[nd - 2];
  const xDim = v.dims[nd - 1];
  const yc = coordinateOf(v, yDim);
  const xc = coordinateOf(v, xDim);
  const auxCoords = (stringAttr(v.attrs, "coordinates") ?? "").split(/\s+/).filter(Boolean);
  const twoD = auxCoords.map((n) => byName.get(n)).find((c) => c && c.shape.length >= 2 && /lat|lon/i.test(c.name));
  if (twoD && !(yc && xc)) {
    throw new UnsupportedDataError(
      `${what} is on a curvilinear grid (its coordinates ${auxCoords.join(", ")} are 2-D); Strata reads regular 2-D grids only`,
    );
  }
  const crs = crsOf(v, byName, yc, xc);
  const transform = geoTransformOf(v, byName, rootAttrs);
  const yKind = axisKind(yDim, yc);
  const xKind = axisKind(xDim, xc);
  if (yKind === "y" && xKind === "x" && yc && xc) {
    const [ys, xs] = await Promise.all([readAll(yc), readAll(xc)]);
    return gridFromAxes(xs, ys, crs, what);
  }
  if (transform && yKind !== "x" && xKind !== "y") {
    return { grid: gridFromTransform(v.shape[nd - 1], v.shape[nd - 2], transform, crs), flipY: false };
  }
  const found = [yDim, xDim].map((d) => `${d}${axisKind(d, coordinateOf(v, d)) ? "" : " (not a spatial axis)"}`);
  throw new UnsupportedDataError(
    `${what}: its last two dimensions (${found.join(", ")}) are not latitude/longitude or projection y/x coordinates; Strata reads variables whose last two dimensions are the rows and columns of a regular grid`,
  );
}

/** The variable a `grid_mapping` attribute names ("crs" or the extended "crs: x y" form). */
function gridMappingOf(v: RawVariable, byName: Map<string, RawVariable>): RawVariable | undefined {
  const prefix = v.name.includes("/") ? v.name.slice(0, v.name.lastIndexOf("/") + 1) : "";
  const name = stringAttr(v.attrs, "grid_mapping")?.split(/[\s:]/)[0];
  return name ? (byName.get(prefix + name) ?? byName.get(name)) : undefined;
}

function crsOf(v: RawVariable, byName: Map<string, RawVariable>, yc?: RawVariable, xc?: RawVariable): Crs {
  const gm = gridMappingOf(v, byName);
  const fromMapping = gm ? crsFromGridMapping(gm.attrs) : undefined;
  const code = stringAttr(v.attrs, "proj:code");
  const epsgCode = code?.match(/^EPSG:(\d+)$/i);
  if (epsgCode) return { epsg: Number(epsgCode[1]), ...(fromMapping?.wkt ? { wkt: fromMapping.wkt } : {}) };
  if (fromMapping) return fromMapping;
  const geographic = [yc, xc].every((c) => c && /^degrees?_?(n|e|north|east)$/i.test(stringAttr(c.attrs, "units") ?? ""));
  return geographic ? { epsg: 4326 } : {};
}

/** A transform stated in attributes: GeoZarr `spatial:transform` or GDAL's GeoTransform. */
function geoTransformOf(v: RawVariable, byName: Map<string, RawVariable>, root: Attributes): GeoTransform | undefined {
  const geozarr = numericAttrs(v.attrs, "spatial:transform");
  const g = geozarr.length === 6 ? geozarr : numericAttrs(root, "spatial:transform");
  if (g.length === 6) return [g[2], g[0], g[1], g[5], g[3], g[4]]; // rasterio (a,b,c,d,e,f) to GDAL order
  const gm = gridMappingOf(v, byName);
  const gt = gm ? stringAttr(gm.attrs, "GeoTransform") : undefined;
  const parts = gt?.trim().split(/\s+/).map(Number);
  return parts && parts.length === 6 && parts.every(Number.isFinite) ? (parts as unknown as GeoTransform) : undefined;
}

async function readAll(v: RawVariable): Promise<Float64Array> {
  const data = await v.read(
    v.shape.map(() => 0),
    v.shape,
  );
  return Float64Array.from(data as ArrayLike<number>);
}

async function toDimension(dim: string, size: number, coord: RawVariable | undefined): Promise<Dimension> {
  const attrs = coord?.attrs ?? {};
  const units = stringAttr(attrs, "units") ?? "";
  const description = stringAttr(attrs, "long_name") ?? stringAttr(attrs, "standard_name") ?? dim;
  // Strata's own outputs name axes StdTime/StdZ and remember the source's name.
  const sourceName = stringAttr(attrs, "strata:source_name") ?? dim;
  const raw = coord ? Array.from(await readAll(coord)) : Array.from({ length: size }, (_, i) => i);
  if (coord && isCfTimeUnits(units)) {
    const calendar = effectiveCalendar(units, stringAttr(attrs, "calendar")?.toLowerCase() ?? "standard");
    const values = decodeCfTimes(raw, units, calendar);
    return { name: STD_TIME, sourceName, description, unit: "ISO8601", values, calendar, ...dimensionInterval(values, true) };
  }
  const positive = stringAttr(attrs, "positive")?.toLowerCase();
  const axis = stringAttr(attrs, "axis")?.toUpperCase();
  if (coord && (axis === "Z" || positive === "up" || positive === "down")) {
    const values = positive === "down" ? raw.map((x) => (x === 0 ? 0 : -x)) : raw;
    return { name: STD_Z, sourceName, description, unit: units, values, ...dimensionInterval(values, false) };
  }
  return { name: dim, sourceName, description, unit: units, values: raw, ...dimensionInterval(raw, false) };
}

/**
 * A year-0 reference in the default calendar (Ferret climatologies) has no meaning in the
 * mixed Julian/Gregorian calendar; it is read, and recorded, as proleptic Gregorian.
 */
function effectiveCalendar(units: string, calendar: string): string {
  const yearZero = parseTimeUnits(units)?.epoch.year === 0;
  return yearZero && (calendar === "standard" || calendar === "gregorian") ? "proleptic_gregorian" : calendar;
}

interface Decoding {
  readonly pixelType: PixelType;
  readonly nodata?: number;
  /** Whether decode returns the stored values' own array (masked in place), not a new one. */
  readonly keepsStoredType: boolean;
  decode(raw: TypedArray): TypedArray;
}

/** How stored values become values: unsigned reinterpretation, masking, scaling. */
function decodingOf(v: RawVariable): Decoding {
  const a = v.attrs;
  const scale = numericAttr(a, "scale_factor");
  const offset = numericAttr(a, "add_offset");
  const masks = [...numericAttrs(a, "_FillValue"), ...numericAttrs(a, "missing_value")];
  const unsigned = String(a["_Unsigned"] ?? "").toLowerCase() === "true";
  const reinterpret = unsigned ? unsignedView : (x: TypedArray) => x;
  const storedType = pixelTypeOf(unsigned ? unsignedOf(v.dtype) : v.dtype, v.name);
  const maskSet = masks.filter((m) => !Number.isNaN(m));
  const isMasked = (x: number) => maskSet.includes(x);

  if (scale !== undefined || offset !== undefined) {
    const s = scale ?? 1;
    const o = offset ?? 0;
    // xarray's rule: small packed ints with single-precision factors decode to float32.
    const small = ["U8", "S8", "U16", "S16"].includes(storedType);
    const single = Math.fround(s) === s && Math.fround(o) === o;
    const pixelType: PixelType = small && single ? "F32" : "F64";
    return {
      pixelType,
      nodata: NaN,
      keepsStoredType: false,
      decode(rawValues) {
        const src = reinterpret(rawValues);
        if (pixelType === "F64") {
          const out = new Float64Array(src.length);
          for (let i = 0; i < src.length; i++) out[i] = isMasked(src[i]) ? Number.NaN : src[i] * s + o;
          return out;
        }
        // Single precision at each step, as numpy (and so xarray) computes it.
        const out = new Float32Array(src.length);
        const s32 = Math.fround(s);
        const o32 = Math.fround(o);
        for (let i = 0; i < src.length; i++) out[i] = isMasked(src[i]) ? Number.NaN : Math.fround(Math.fround(src[i] * s32) + o32);
        return out;
      },
    };
  }
  const float = storedType === "F32" || storedType === "F64";
  const nodata = maskSet.length ? maskSet[0] : float ? NaN : undefined;
  const others = maskSet.slice(1).filter((m) => m !== nodata);
  return {
    pixelType: storedType,
    nodata,
    keepsStoredType: !unsigned,
    decode(rawValues) {
      const out = reinterpret(rawValues);
      if (others.length && nodata !== undefined) {
        for (let i = 0; i < out.length; i++) if (others.includes(out[i])) out[i] = nodata;
      }
      return out;
    },
  };
}

function pixelTypeOf(dtype: RawVariable["dtype"], name: string): PixelType {
  const table: Partial<Record<RawVariable["dtype"], PixelType>> = {
    int8: "S8",
    uint8: "U8",
    int16: "S16",
    uint16: "U16",
    int32: "S32",
    uint32: "U32",
    // Read as exact float64 (up to 2^53; the reader refuses values beyond).
    int64: "F64",
    uint64: "F64",
    float32: "F32",
    float64: "F64",
  };
  const t = table[dtype];
  if (!t) throw new UnsupportedDataError(`variable ${name} holds ${dtype} values, which are not raster values`);
  return t;
}

function unsignedOf(dtype: RawVariable["dtype"]): RawVariable["dtype"] {
  return dtype === "int8" ? "uint8" : dtype === "int16" ? "uint16" : dtype === "int32" ? "uint32" : dtype;
}

function unsignedView(a: TypedArray): TypedArray {
  if (a instanceof Int8Array) return new Uint8Array(a.buffer, a.byteOffset, a.length);
  if (a instanceof Int16Array) return new Uint16Array(a.buffer, a.byteOffset, a.length);
  if (a instanceof Int32Array) return new Uint32Array(a.buffer, a.byteOffset, a.length);
  return a;
}

async function toVariable(v: RawVariable, flipY: boolean, coordinateOf: CoordinateOf): Promise<Variable> {
  const nd = v.dims.length;
  const dims = await Promise.all(v.dims.slice(0, nd - 2).map((d, i) => toDimension(d, v.shape[i], coordinateOf(v, d))));
  const decoding = decodingOf(v);
  const height = v.shape[nd - 2];
  const width = v.shape[nd - 1];
  const attributes: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v.attrs)) if (!DECODING_ATTRS.has(k)) attributes[k] = val;

  async function read(selection: Selection = {}): Promise<Slab> {
    const ranges = dims.map((d, i) => selection.dims?.[i] ?? ([0, d.values.length] as const));
    const w = selection.window ?? { x: 0, y: 0, width, height };
    ranges.forEach(([a, b], i) => checkRange(a, b, dims[i].values.length, `${v.name} dimension ${dims[i].name}`));
    checkRange(w.x, w.x + w.width, width, `${v.name} columns`);
    checkRange(w.y, w.y + w.height, height, `${v.name} rows`);
    // North-up rows [y, y+h) are storage rows [H-y-h, H-y) when the file is south-up.
    const rowStart = flipY ? height - w.y - w.height : w.y;
    const start = [...ranges.map((r) => r[0]), rowStart, w.x];
    const count = [...ranges.map((r) => r[1] - r[0]), w.height, w.width];
    // A caller's array can take the stored values only where decoding keeps their type.
    const into = decoding.keepsStoredType ? selection.into : undefined;
    const data = decoding.decode(await v.read(start, count, selection.signal, into, flipY));
    return { data, shape: count };
  }

  // Strata's own outputs store group variables ("grp1/T") flat and remember the name.
  const name = stringAttr(v.attrs, "strata:name") ?? v.name;
  return {
    name,
    description: stringAttr(v.attrs, "long_name") ?? name,
    unit: stringAttr(v.attrs, "units") ?? "",
    pixelType: decoding.pixelType,
    nodata: decoding.nodata,
    dimensions: dims,
    chunkShape: [...v.chunkShape],
    attributes,
    read,
  };
}

function checkRange(start: number, stop: number, size: number, what: string): void {
  if (!(Number.isInteger(start) && Number.isInteger(stop) && start >= 0 && stop <= size && start < stop)) {
    throw new RangeError(`${what}: range [${start}, ${stop}) is outside [0, ${size})`);
  }
}
