/**
 * NetCDF-4 writer on h5wasm: a cube, or the variables, slices and window a caller selects,
 * as a CF-1.8 NetCDF-4 (HDF5) file that xarray, netCDF-C tools, Panoply, GDAL and QGIS open.
 *
 * The layout is netCDF-C's, so its readers see dimensions rather than bare HDF5 datasets:
 * each dimension is a coordinate dataset made an HDF5 dimension scale (NAME = its name, with
 * `_Netcdf4Dimid` fixing the dimension order) and each data variable is attached to its
 * scales (DIMENSION_LIST). Text attributes are fixed-length strings (NC_CHAR), numbers
 * 1-element arrays; creation order is tracked so variables and attributes list as written;
 * the file keeps to the HDF5 1.8 format, which every HDF5 library since 1.8 and netCDF-Java
 * read.
 *
 * Data stream through in blocks of at most BLOCK_BYTES covering whole output chunks (one
 * slice by a TILE × TILE tile, gzip), read with Variable.read and written as HDF5 hyperslabs.
 * The file is written to `<path>.partial` and renamed when complete; any failure removes it.
 * h5wasm is imported on first use: it costs ~45 MB of resident memory.
 */
import { open as openFile, rename, rm } from "node:fs/promises";
import { setImmediate as nextTurn } from "node:timers/promises";
import type H5 from "h5wasm/node";
import { InvalidInputError } from "../cube/errors.js";
import { allowHdf5, guardedH5wasm } from "./hdf5Guard.js";
import { windowGrid } from "../cube/grid.js";
import { encodeCfTimes } from "../cube/time.js";
import {
  type Cube,
  type Dimension,
  type Grid,
  PIXEL_ARRAYS,
  type PixelType,
  STD_TIME,
  STD_Z,
  type Slab,
  type TypedArray,
  type Variable,
  type Window,
} from "../cube/types.js";
import {
  GRID_MAPPING,
  TIME_UNITS,
  dimensionCoordinate,
  gridMappingAttributes,
  linearUnits,
  spatialAttributes,
  spatialNames,
  variableAttributes,
} from "./cfAttributes.js";
import { type CubeSpec, TILE, type VariableSpec, arrayKey } from "./zarrWrite.js";

type H5File = InstanceType<typeof H5.File>;
type H5Dataset = InstanceType<typeof H5.Dataset>;

/** Largest block read and written at once: bounds memory whatever the cube's size. */
export const BLOCK_BYTES = 32 * 1024 * 1024;
/**
 * gzip level by default. Measured on 100 MB of smooth float32: level 1 takes 2.0 s for 18 MB,
 * level 4 3.8 s for 14 MB, level 6 8 s for the same 14 MB; noisy data gain little at any level.
 */
export const DEFAULT_COMPRESSION = 4;

/** Indices to keep along a variable's non-spatial dimensions, by dimension name; a dimension not named is kept whole. */
export type DimensionSelection = Readonly<Record<string, readonly number[]>>;

export interface Netcdf4Options {
  /** Variables to write, in this order; default all of the cube's. */
  readonly variables?: readonly string[];
  /**
   * Slices to keep of each variable, e.g. `(v) => ({ StdTime: [0, 5, 6] })`; undefined keeps
   * all. Indices are sorted and duplicates dropped (CF coordinates are monotonic).
   */
  readonly select?: (variable: Variable) => DimensionSelection | undefined;
  /** Spatial window in north-up pixels; default the whole grid. */
  readonly window?: Window;
  /** gzip level, 0 (none) to 9; default DEFAULT_COMPRESSION. */
  readonly compression?: number;
  /**
   * Names the file gives some of the cube's dimensions, e.g. `{ Band: "band" }` (a trend
   * raster's bands, named as ArcGIS's NetCDF export names its band dimension); selections
   * still use the cube's names.
   */
  readonly dimensionNames?: Readonly<Record<string, string>>;
  /** What the line added to the global `history` says; default names Strata and the variables. */
  readonly history?: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (fraction: number) => void;
}

/**
 * Write the cube, or a selection of it, as a CF-1.8 NetCDF-4 file at `path` (replaced if it
 * exists). Bad `variables`, `select`, `window` or `compression` values are an
 * InvalidInputError naming that parameter; on any failure no file is left behind.
 * @example
 * await writeNetcdf4(cube, "/tmp/winds.nc", {
 *   variables: ["UWND"],
 *   select: () => ({ StdTime: [0, 1, 2] }),
 *   onProgress: (f) => console.log(Math.round(f * 100), "%"),
 * });
 */
export async function writeNetcdf4(cube: Cube, path: string, options: Netcdf4Options = {}): Promise<void> {
  const window = checkWindow(cube, options.window);
  const sources = selectedVariables(cube, options);
  const subset = window.width !== cube.grid.width || window.height !== cube.grid.height;
  const spec: CubeSpec = {
    grid: windowGrid(cube.grid, window),
    attributes: globalAttributes(cube, sources, subset, options.history),
    variables: sources.map((s) => s.spec),
  };
  const partial = `${path}.partial`;
  let writer: Netcdf4Writer | undefined;
  try {
    writer = await createNetcdf4Writer(partial, spec, { compression: options.compression });
    await copyBlocks(sources, cube.grid, window, writer, options);
    await writer.finish();
    await rename(partial, path);
  } catch (e) {
    writer?.abort();
    await rm(partial, { force: true });
    throw e;
  }
}

export interface Netcdf4Writer {
  /** Chunk shape each variable was created with ([1, …, rows, cols]), to align blocks with chunks. */
  readonly chunkShapes: ReadonlyMap<string, readonly number[]>;
  /** Write `slab` at `start` (over [...dims, rows, cols]) of the named variable. */
  writeBlock(variable: string, start: readonly number[], slab: Slab): Promise<void>;
  /** Add global `attributes` known only at the end, then close: the file is complete. */
  finish(attributes?: Record<string, unknown>): Promise<void>;
  /** Close an unfinished file (the caller deletes it). */
  abort(): void;
}

/**
 * Create a NetCDF-4 file at `path` for a cube of this shape: coordinates, grid mapping and
 * attributes now, data as blocks come (an analysis BlockSink, like the Zarr writer).
 * @example
 * const w = await createNetcdf4Writer("/tmp/out.nc", { grid, attributes: {}, variables: [spec] });
 * await w.writeBlock("sst", [0, 0, 0], slab);
 * await w.finish();
 */
export async function createNetcdf4Writer(path: string, spec: CubeSpec, options: { compression?: number } = {}): Promise<Netcdf4Writer> {
  const level = options.compression ?? DEFAULT_COMPRESSION;
  if (!(Number.isInteger(level) && level >= 0 && level <= 9)) {
    throw new InvalidInputError(`compression must be a gzip level from 0 to 9; got ${level}`, { parameter: "compression" });
  }
  // HDF5 reports an uncreatable file only on stderr: Node states why (ENOENT, EACCES) first.
  await (await openFile(path, "w")).close();
  const h5 = await guardedH5wasm();
  const release = allowHdf5(path);
  const file = new h5.File(path, "w", { track_order: true, libver: ["v108", "v108"] });
  if (file.file_id < 0n) {
    release();
    throw new Error(`HDF5 cannot create ${path}`);
  }
  try {
    const datasets = layOut(file, spec, level);
    const chunkShapes = new Map([...datasets].map(([name, d]) => [name, d.chunks]));
    let open = true;
    return {
      chunkShapes,
      async writeBlock(name, start, slab) {
        const target = datasets.get(name);
        if (!target) throw new Error(`no variable ${name} in this writer`);
        const data =
          slab.data instanceof PIXEL_ARRAYS[target.pixelType]
            ? slab.data
            : PIXEL_ARRAYS[target.pixelType].from(slab.data as ArrayLike<number>);
        target.dataset.write_slice(
          start.map((s, i) => [s, s + slab.shape[i]]),
          data,
        );
      },
      async finish(attributes) {
        if (attributes) writeAttributes(file, attributes);
        open = false;
        const status = file.close();
        release();
        if (status < 0) throw new Error(`HDF5 could not complete ${path} (status ${status})`);
      },
      abort() {
        if (open) closeQuietly(file);
        open = false;
        release();
      },
    };
  } catch (e) {
    closeQuietly(file);
    release();
    throw e;
  }
}

/* ------------------------------------------------------------------------------------ */
/* Selection                                                                            */
/* ------------------------------------------------------------------------------------ */

interface Source {
  readonly variable: Variable;
  /** Kept source indices of each non-spatial dimension, ascending. */
  readonly indices: readonly (readonly number[])[];
  readonly spec: VariableSpec;
}

function selectedVariables(cube: Cube, options: Netcdf4Options): Source[] {
  const names = options.variables ?? cube.variables.map((v) => v.name);
  if (!Array.isArray(names) || names.length === 0) {
    throw new InvalidInputError("variables must name at least one variable", { parameter: "variables" });
  }
  const seen = new Set<string>();
  return names.map((name) => {
    const variable = cube.variables.find((v) => v.name === name);
    if (!variable) {
      const known = cube.variables.map((v) => v.name).join(", ");
      throw new InvalidInputError(`variables: the input has no variable ${JSON.stringify(name)} (it has ${known})`, {
        parameter: "variables",
      });
    }
    if (seen.has(name)) throw new InvalidInputError(`variables names ${name} twice`, { parameter: "variables" });
    seen.add(name);
    const indices = selectedIndices(variable, options.select?.(variable));
    const renamed = (d: Dimension) => {
      const to = options.dimensionNames?.[d.name];
      return to === undefined ? d : { ...d, name: to, sourceName: to, description: d.description === d.name ? to : d.description };
    };
    const dimensions = variable.dimensions.map((d, i) => renamed(keptDimension(d, indices[i])));
    return { variable, indices, spec: { ...variable, dimensions } };
  });
}

function selectedIndices(v: Variable, selection: DimensionSelection | undefined): number[][] {
  const fail = (why: string) => new InvalidInputError(`select: ${why}`, { parameter: "select" });
  if (selection !== undefined && (typeof selection !== "object" || selection === null || Array.isArray(selection))) {
    throw fail(`the selection of ${v.name} must map dimension names to index lists`);
  }
  const chosen = selection ?? {};
  for (const key of Object.keys(chosen)) {
    if (!v.dimensions.some((d) => d.name === key)) {
      const dims = v.dimensions.map((d) => d.name).join(", ") || "none besides its rows and columns";
      throw fail(`${v.name} has no dimension ${key} (its dimensions: ${dims})`);
    }
  }
  return v.dimensions.map((d) => {
    const size = d.values.length;
    const all = Array.from({ length: size }, (_, i) => i);
    if (!Object.hasOwn(chosen, d.name)) return all;
    const list = chosen[d.name];
    if (!Array.isArray(list) || list.length === 0) throw fail(`${v.name} ${d.name} needs at least one index`);
    for (const i of list) {
      if (!(Number.isInteger(i) && i >= 0 && i < size)) {
        throw fail(`${v.name} ${d.name} index ${JSON.stringify(i)} is not a whole number from 0 to ${size - 1}`);
      }
    }
    return [...new Set(list)].sort((a, b) => a - b);
  });
}

function keptDimension(d: Dimension, indices: readonly number[]): Dimension {
  const { name, sourceName, description, unit, calendar } = d;
  return { name, sourceName, description, unit, values: indices.map((i) => d.values[i]), ...(calendar ? { calendar } : {}) };
}

function checkWindow(cube: Cube, w: Window | undefined): Window {
  const { width, height } = cube.grid;
  if (w === undefined) return { x: 0, y: 0, width, height };
  const whole = [w.x, w.y, w.width, w.height].every(Number.isInteger);
  if (!whole || w.x < 0 || w.y < 0 || w.width < 1 || w.height < 1 || w.x + w.width > width || w.y + w.height > height) {
    throw new InvalidInputError(`window ${JSON.stringify(w)} is not a whole-pixel window inside the ${width} × ${height} grid`, {
      parameter: "window",
    });
  }
  return w;
}

/** Source attributes minus what a subset makes stale, then CF's and Strata's own. */
function globalAttributes(cube: Cube, sources: readonly Source[], windowed: boolean, line?: string): Record<string, unknown> {
  const sliced = sources.some((s) => s.indices.some((list, i) => list.length !== s.variable.dimensions[i].values.length));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cube.attributes)) {
    if (STALE_GLOBAL.test(k) || (windowed && k.startsWith("geospatial_")) || (sliced && k.startsWith("time_coverage_"))) continue;
    out[k] = v;
  }
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const what = line ?? `Strata wrote ${sources.map((s) => s.variable.name).join(", ")} as NetCDF-4`;
  const history = typeof cube.attributes.history === "string" ? `${stamp}: ${what}\n${cube.attributes.history}` : `${stamp}: ${what}`;
  // CF's `source` is how the original data were produced: a stated one is kept.
  return { ...out, Conventions: "CF-1.8", history, source: typeof out.source === "string" ? out.source : "Strata" };
}

/** Global attributes the writer restates or a copy makes wrong (the source's georeferencing). */
const STALE_GLOBAL = /^(Conventions|history|_NCProperties|proj:.*|spatial:.*|GeoTransform)$/;

/* ------------------------------------------------------------------------------------ */
/* File layout                                                                          */
/* ------------------------------------------------------------------------------------ */

const DTYPE: Record<PixelType, string> = { U8: "<B", S8: "<b", U16: "<H", S16: "<h", U32: "<I", S32: "<i", F32: "<f", F64: "<d" };

type ArrayType = { new (length: number): TypedArray; from(values: ArrayLike<number>): TypedArray };

interface Target {
  readonly dataset: H5Dataset;
  readonly pixelType: PixelType;
  readonly chunks: readonly number[];
}

interface FileDimension {
  readonly name: string;
  readonly values: Float64Array;
  readonly attributes: Record<string, unknown>;
}

/** Coordinates, grid mapping and empty data variables; returns the data variables by Strata name. */
function layOut(file: H5File, spec: CubeSpec, level: number): Map<string, Target> {
  const { grid } = spec;
  const geographic = grid.crs.epsg === 4326;
  const [yName, xName] = spatialNames(grid);
  const names = new Names([yName, xName, GRID_MAPPING]);
  writeAttributes(file, { ...spec.attributes, Conventions: "CF-1.8" });

  // Dimensions first, in CF's T, Z, ..., Y, X order; variables sharing one share its scale.
  const byKey = new Map<string, FileDimension>();
  const dimsOf = spec.variables.map((v) =>
    v.dimensions.map((d) => {
      const [values, attributes] = dimensionCoordinate(d, d.name === STD_TIME ? timeUnitsFor(d) : undefined);
      const base = d.name === STD_TIME ? "time" : d.name === STD_Z ? d.sourceName || "z" : d.name;
      const key = JSON.stringify([base, Array.from(values), attributes]);
      let dim = byKey.get(key);
      if (!dim) byKey.set(key, (dim = { name: names.claim(arrayKey(base)), values, attributes }));
      return dim.name;
    }),
  );
  const spatial: FileDimension[] = [
    { name: yName, values: grid.y, attributes: spatialAttributes("y", geographic, linearUnits(grid.crs)) },
    { name: xName, values: grid.x, attributes: spatialAttributes("x", geographic, linearUnits(grid.crs)) },
  ];
  [...byKey.values(), ...spatial].forEach((d, id) => {
    const ds = file.create_dataset({ name: d.name, data: d.values, dtype: "<d", track_order: true });
    ds.make_scale(d.name);
    writeAttributes(ds, { ...d.attributes, _Netcdf4Dimid: id });
  });

  const mapping = file.create_dataset({ name: GRID_MAPPING, data: new Int32Array(1), shape: [], dtype: "<i", track_order: true });
  writeAttributes(mapping, gridMappingAttributes(grid));

  const targets = new Map<string, Target>();
  spec.variables.forEach((v, i) => {
    const shape = [...v.dimensions.map((d) => d.values.length), grid.height, grid.width];
    const chunks = (v.outputChunks ?? [...v.dimensions.map(() => 1), Math.min(grid.height, TILE), Math.min(grid.width, TILE)]).map((c) =>
      Math.max(1, c),
    );
    const name = names.claim(arrayKey(v.name));
    // h5wasm writes a dataset's data when creating it: create it empty, then grow it to size.
    const dataset = file.create_dataset({
      name,
      data: new PIXEL_ARRAYS[v.pixelType](0),
      shape: [0, ...shape.slice(1)],
      maxshape: shape,
      chunks,
      dtype: DTYPE[v.pixelType],
      ...(level > 0 ? { compression: "gzip" as const, compression_opts: level } : {}),
      track_order: true,
    });
    if (dataset.resize(shape) < 0) throw new Error(`HDF5 could not size ${name} to ${shape.join(" × ")}`);
    [...dimsOf[i], yName, xName].forEach((dim, axis) => dataset.attach_scale(axis, `/${dim}`));
    const inherited = Object.fromEntries(Object.entries(v.attributes).filter(([k]) => !NOT_INHERITED.test(k)));
    writeAttributes(dataset, variableAttributes({ ...v, attributes: inherited }, fillValue(v.pixelType, v.nodata)), v.pixelType);
    targets.set(v.name, { dataset, pixelType: v.pixelType, chunks });
  });
  return targets;
}

/**
 * Variable attributes a copy must not carry over: how the source encoded values (the cube's
 * are decoded), netCDF-C's reserved and virtual attributes, HDF5 dimension-scale bookkeeping,
 * references to variables not written, and the source's georeferencing.
 */
const NOT_INHERITED =
  /^(_FillValue|missing_value|scale_factor|add_offset|_Unsigned|_Encoding|_ARRAY_DIMENSIONS|DIMENSION_LIST|REFERENCE_LIST|CLASS|NAME|_Netcdf4.*|_NCProperties|_ChunkSizes|_Storage|_DeflateLevel|_Shuffle|_Fletcher32|_Endianness|_NoFill|_Filter|_Codecs|_Format|_IsNetcdf4|_SuperblockVersion|coordinates|grid_mapping|bounds|climatology|proj:.*|spatial:.*)$/;

/** `_FillValue` of a variable: its nodata when the pixel type holds it; NaN for floats without one. */
function fillValue(pixelType: PixelType, nodata: number | undefined): number | undefined {
  const float = pixelType === "F32" || pixelType === "F64";
  if (nodata === undefined) return float ? NaN : undefined;
  return fits([nodata], pixelType) ? nodata : undefined;
}

/** Dimension and variable names as netCDF stores them: flat, unique, no control characters. */
class Names {
  private readonly taken: Set<string>;
  constructor(reserved: readonly string[]) {
    this.taken = new Set(reserved);
  }
  claim(wanted: string): string {
    // eslint-disable-next-line no-control-regex
    const base = wanted.replace(/[\u0000-\u001f\u007f]/g, "_").replace(/^\.+$/, "_") || "_";
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
    this.taken.add(name);
    return name;
  }
}

/** The coarsest CF time unit that states every instant exactly (days for daily or monthly data). */
function timeUnitsFor(d: Dimension): string {
  const calendar = d.calendar ?? "proleptic_gregorian";
  for (const units of ["days since 1970-01-01 00:00:00", "seconds since 1970-01-01 00:00:00"]) {
    if (encodeCfTimes(d.values, units, calendar).every(Number.isSafeInteger)) return units;
  }
  return TIME_UNITS;
}

/* ------------------------------------------------------------------------------------ */
/* Attributes                                                                           */
/* ------------------------------------------------------------------------------------ */

/** Attributes CF wants in the variable's own type. */
const TYPED_ATTRIBUTES = new Set(["_FillValue", "valid_min", "valid_max", "valid_range", "actual_range"]);

type Attributed = H5File | H5Dataset;

/**
 * netCDF attributes from JSON-like values: text as NC_CHAR, lists of text as NC_STRING,
 * numbers as int32 when whole (else double) or in the variable's type where CF asks for it.
 * Other structures have no netCDF form: Strata's own (`strata:`) are kept as JSON text.
 */
function writeAttributes(target: Attributed, attributes: Record<string, unknown>, pixelType?: PixelType): void {
  for (const [key, raw] of Object.entries(attributes)) {
    const value = typeof raw === "bigint" ? Number(raw) : ArrayBuffer.isView(raw) && !(raw instanceof DataView) ? listOf(raw) : raw;
    const list = typeof value === "number" ? [value] : value;
    if (typeof value === "string" || typeof value === "boolean") {
      writeText(target, key, String(value));
    } else if (isList(list, "number")) {
      const type = pixelType && TYPED_ATTRIBUTES.has(key) && fits(list, pixelType) ? pixelType : fits(list, "S32") ? "S32" : "F64";
      target.create_attribute(key, PIXEL_ARRAYS[type].from(list), [list.length], DTYPE[type]);
    } else if (isList(list, "string")) {
      target.create_attribute(key, [...list], [list.length]);
    } else if (key.startsWith("strata:") && value !== null && value !== undefined) {
      const json = JSON.stringify(value, (_, x: unknown) => (typeof x === "bigint" ? Number(x) : x));
      if (json !== undefined) writeText(target, key, json);
    }
  }
}

function writeText(target: Attributed, key: string, text: string): void {
  // HDF5 has no zero-length strings: "" is one NUL byte, which netCDF reads back as "".
  target.create_attribute(key, text, null, `A${Math.max(1, Buffer.byteLength(text))}`);
}

function listOf(view: ArrayBufferView): number[] {
  return Array.from(view as unknown as ArrayLike<number | bigint>, Number);
}

function isList<T extends "number" | "string">(value: unknown, type: T): value is (T extends "number" ? number : string)[] {
  return Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === type);
}

/** True when every value survives storage in that pixel type unchanged (NaN only in floats). */
function fits(values: readonly number[], pixelType: PixelType): boolean {
  const stored = PIXEL_ARRAYS[pixelType].from(values);
  return values.every((v, i) => Object.is(stored[i], v) || (v === 0 && stored[i] === 0));
}

function closeQuietly(file: H5File): void {
  try {
    file.close();
  } catch {
    // Already failing: the original error is the one to report.
  }
}

/* ------------------------------------------------------------------------------------ */
/* Copying blocks                                                                       */
/* ------------------------------------------------------------------------------------ */

const BYTES: Record<PixelType, number> = { U8: 1, S8: 1, U16: 2, S16: 2, U32: 4, S32: 4, F32: 4, F64: 8 };

/** A stretch of one dimension read at once: source range [from, to), kept offsets in it, output start. */
interface Segment {
  readonly from: number;
  readonly to: number;
  readonly keep: readonly number[];
  readonly out: number;
}

interface BlockPlan {
  /** Per dimension, the stretches to read; at most one dimension has stretches of several slices. */
  readonly segments: readonly (readonly Segment[])[];
  readonly rows: number;
  readonly cols: number;
}

async function copyBlocks(
  sources: readonly Source[],
  grid: Grid,
  w: Window,
  writer: Netcdf4Writer,
  options: Netcdf4Options,
): Promise<void> {
  const plans = sources.map((s) => blockPlan(s, grid, w, writer.chunkShapes.get(s.variable.name)!));
  const blocksOf = (p: BlockPlan) =>
    p.segments.reduce((n, list) => n * list.length, 1) * Math.ceil(w.height / p.rows) * Math.ceil(w.width / p.cols);
  const total = plans.reduce((n, p) => n + blocksOf(p), 0);
  let done = 0;
  for (const [k, { variable }] of sources.entries()) {
    const { segments, rows, cols } = plans[k];
    for (const pick of combinations(segments)) {
      for (let y = 0; y < w.height; y += rows) {
        for (let x = 0; x < w.width; x += cols) {
          options.signal?.throwIfAborted();
          const window = { x: w.x + x, y: w.y + y, width: Math.min(cols, w.width - x), height: Math.min(rows, w.height - y) };
          const slab = await variable.read({ dims: pick.map((s) => [s.from, s.to] as const), window, signal: options.signal });
          await writer.writeBlock(variable.name, [...pick.map((s) => s.out), y, x], kept(slab, pick));
          options.onProgress?.(++done / total);
          // h5wasm compresses synchronously: let the event loop breathe between blocks.
          await nextTurn();
        }
      }
    }
  }
}

/**
 * How to walk a variable: slice by slice, except along a dimension its storage chunks span
 * (time-whole tiles), where a stretch of slices inside one chunk is read at once so that
 * chunk is decoded once, not once per slice. Blocks are whole output-chunk rows, then
 * columns, shrunk until they fit BLOCK_BYTES.
 */
function blockPlan(s: Source, grid: Grid, w: Window, chunks: readonly number[]): BlockPlan {
  const v = s.variable;
  const nd = v.dimensions.length;
  const bytes = BYTES[v.pixelType];
  const full = [...v.dimensions.map((d) => d.values.length), grid.height, grid.width];
  // Storage chunk = whole variable means unchunked (contiguous): single slices read cheaply.
  const unchunked = v.chunkShape.every((c, i) => c >= full[i]);
  let runDim = -1;
  if (!unchunked) for (let d = nd - 1; d >= 0 && runDim < 0; d--) if ((v.chunkShape[d] ?? 1) > 1 && s.indices[d].length > 1) runDim = d;
  let depth = runDim < 0 ? 1 : Math.min(v.chunkShape[runDim], s.indices[runDim].at(-1)! - s.indices[runDim][0] + 1);
  const [chunkRows, chunkCols] = [chunks[nd], chunks[nd + 1]];
  // Whole output chunks (`unit` long) that fit the budget along one axis, at least one.
  const fitting = (unit: number, bytesPerUnit: number) => Math.max(unit, Math.floor(BLOCK_BYTES / bytesPerUnit / unit) * unit);
  let rows = w.height;
  let cols = w.width;
  if (depth * rows * cols * bytes > BLOCK_BYTES) rows = Math.min(w.height, fitting(chunkRows, depth * cols * bytes));
  if (depth * rows * cols * bytes > BLOCK_BYTES) cols = Math.min(w.width, fitting(chunkCols, depth * rows * bytes));
  if (depth * rows * cols * bytes > BLOCK_BYTES) depth = Math.max(1, Math.floor(BLOCK_BYTES / (rows * cols * bytes)));
  const chunkOf = (d: number, i: number) => Math.floor(i / (v.chunkShape[d] ?? 1));
  const segments = s.indices.map((list, d) => {
    const out: Segment[] = [];
    list.forEach((i, k) => {
      const last = out.at(-1);
      if (d === runDim && last && chunkOf(d, i) === chunkOf(d, last.from) && i - last.from < depth) {
        out[out.length - 1] = { ...last, to: i + 1, keep: [...last.keep, i - last.from] };
      } else {
        out.push({ from: i, to: i + 1, keep: [0], out: k });
      }
    });
    return out;
  });
  return { segments, rows, cols };
}

/** Every combination of one segment per dimension, last dimension fastest. */
function* combinations(segments: readonly (readonly Segment[])[]): Generator<Segment[]> {
  const at = segments.map(() => 0);
  if (segments.some((list) => list.length === 0)) return;
  for (;;) {
    yield at.map((k, d) => segments[d][k]);
    let d = segments.length - 1;
    while (d >= 0 && ++at[d] === segments[d].length) at[d--] = 0;
    if (d < 0) return;
  }
}

/** The kept slices of a block read over whole segments (only one dimension has gaps). */
function kept(slab: Slab, pick: readonly Segment[]): Slab {
  const gappy = pick.findIndex((s) => s.keep.length !== s.to - s.from);
  const shape = [...pick.map((s) => s.keep.length), ...slab.shape.slice(pick.length)];
  if (gappy < 0) return { data: slab.data, shape };
  const plane = slab.shape.slice(pick.length).reduce((a, b) => a * b, 1);
  const data = new (slab.data.constructor as ArrayType)(pick[gappy].keep.length * plane);
  pick[gappy].keep.forEach((offset, k) => data.set(slab.data.subarray(offset * plane, (offset + 1) * plane) as never, k * plane));
  return { data, shape };
}
