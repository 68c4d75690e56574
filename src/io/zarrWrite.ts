/**
 * Zarr v3 writer on zarrita: zstd-compressed chunks (level 1), `dimension_names`, CF attributes and
 * coordinate arrays (time as milliseconds since 1970-01-01 in the source calendar), and the
 * georeferencing twice: a CF grid_mapping variable and GeoZarr-style `proj:code` /
 * `spatial:transform` / `spatial:shape` attributes. Blocks are written as they come, so a
 * cube of any size streams through in bounded memory; blocks of whole chunks (nearly all)
 * directly (io/zarrChunks.ts), others through zarrita. Consolidated metadata is written last
 * so the store can be listed over HTTP, with Zarr v2 metadata for the same chunks beside it
 * (io/zarrV2Metadata.ts) for readers without v3 (GDAL 3.6, zarr-python 2).
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";
import { strides } from "../cube/combinations.js";
import { gridFromTransform } from "../cube/grid.js";
import type { Grid, PixelType, Slab, TypedArray, Variable } from "../cube/types.js";
import {
  GRID_MAPPING,
  dimensionCoordinate,
  gridMappingAttributes,
  spatialAttributes,
  spatialNames,
  variableAttributes,
} from "./cfAttributes.js";
import type { BlockHold } from "../cube/blockHold.js";
import type { ChunkSummaries } from "../cube/chunkSummaries.js";
import type { ChunkEncoder } from "./chunkEncoder.js";
import { type ChunkWriter, openChunkWriter } from "./zarrChunks.js";
import { type V3Node, writeV2Metadata } from "./zarrV2Metadata.js";
import {
  type LevelWriter,
  type OverviewLevel,
  OVERVIEWS_ATTRIBUTE,
  alignedFactors,
  levelChunks,
  overviewFactors,
  writeLevels,
} from "./zarrOverviews.js";
import { useFastZstd } from "./zstdCodec.js";
import { wkt2Of } from "./wkt2.js";

useFastZstd();

/** Largest spatial chunk edge of written data. */
export const TILE = 512;

const ZARR_DTYPE: Record<PixelType, zarr.DataType> = {
  U8: "uint8",
  S8: "int8",
  U16: "uint16",
  S16: "int16",
  U32: "uint32",
  S32: "int32",
  F32: "float32",
  F64: "float64",
};

/**
 * How output chunks are stored (context.compression): ZSTD, the default, or NONE (raw
 * little-endian values, as CDO writes NetCDF unless told otherwise: no CPU spent encoding,
 * at the cost of disk).
 */
export type OutputCompression = "ZSTD" | "NONE";

/**
 * zstd at level 1: `npm run bench -- --only codecs` measured it encoding 1.7-2.4 times as
 * fast as level 3 for the same size within 2 % (noise compresses to 80 % either way), and
 * decoding faster than node:zlib's gzip; lz4 was no faster than our zstd encoder
 * (io/zstdCodec.ts) and much larger on smooth fields.
 */
const CODECS: Record<OutputCompression, readonly object[]> = {
  ZSTD: [
    { name: "bytes", configuration: { endian: "little" } },
    { name: "zstd", configuration: { level: 1, checksum: false } },
  ],
  NONE: [{ name: "bytes", configuration: { endian: "little" } }],
};

/**
 * v2 chunk keys separated by "." ("0.0.0", no "c/"), which v3 allows: Zarr v2 metadata
 * written beside the v3 metadata then names the same chunk files, and an array's chunks lie
 * in its own directory: "0/0/0" made two directories a time step, and on ext4 making them
 * cost a daily cube's writer more than a second. Stores written before keep "c/0/0/0" or
 * "0/0/0" keys; readers take the encoding from each array's metadata.
 */
const CHUNK_KEYS = { name: "v2", configuration: { separator: "." } } as const;

/** The directory of a store under construction where blocks wait between passes (BlockWriter.keepBlock). */
const KEPT_DIR = "strata-kept";

export type VariableSpec = Pick<Variable, "name" | "description" | "unit" | "pixelType" | "nodata" | "dimensions" | "attributes"> & {
  /**
   * Output chunk shape over [...dims, rows, cols]; default one slice by a TILE×TILE tile
   * (named apart from Variable.chunkShape so an input's storage chunking is not inherited).
   */
  readonly outputChunks?: readonly number[];
};

export interface CubeSpec {
  readonly grid: Grid;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly variables: readonly VariableSpec[];
}

export interface ZarrWriter extends BlockWriter {
  /** Chunk shape each variable was created with, to align blocks with chunks. */
  readonly chunkShapes: ReadonlyMap<string, readonly number[]>;
  /**
   * Add `attributes` to the root (e.g. statistics known only once everything is written),
   * then write consolidated metadata; the store is complete after this.
   */
  finish(attributes?: Record<string, unknown>): Promise<void>;
}

/**
 * Create a Zarr v3 store at `path` for a cube of this shape.
 * @example
 * const w = await createZarrWriter("/tmp/out.zarr", { grid, attributes: {}, variables: [spec] });
 * await w.writeBlock("sst", [0, 0, 0], slab);
 * await w.finish();
 */
export async function createZarrWriter(
  path: string,
  spec: CubeSpec,
  {
    overviews = true,
    compression = "ZSTD",
    encoder,
  }: {
    overviews?: boolean;
    compression?: OutputCompression;
    /** What encodes and writes the chunks (absent: the thread's chunkEncoder; encoderOnThisThread keeps a job on one thread). */
    encoder?: ChunkEncoder;
  } = {},
): Promise<ZarrWriter> {
  const codecs = CODECS[compression];
  await mkdir(path, { recursive: true });
  const store = new FileSystemStore(path);
  const { grid } = spec;
  const geographic = grid.crs.epsg === 4326;
  const [yName, xName] = spatialNames(grid);
  const geo = geoAttributes(grid, yName, xName);
  const spatialShape: [number, number] = [grid.height, grid.width];
  const chunkShapes = new Map(spec.variables.map((v) => [v.name, chunkShapeOf(v, grid)] as const));
  const levels = overviews ? planLevels(spec, chunkShapes) : [];
  const root = await zarr.create(store, {
    attributes: jsonSafe({
      ...spec.attributes,
      Conventions: "CF-1.8",
      ...geo,
      ...(levels.length ? { [OVERVIEWS_ATTRIBUTE]: levels } : {}),
    }),
  });

  // Node names in creation order: consolidated metadata keeps the cube's variable order.
  const created: string[] = [yName, xName, GRID_MAPPING];
  await writeCoordinate(root, yName, grid.y, spatialAttributes("y", geographic));
  await writeCoordinate(root, xName, grid.x, spatialAttributes("x", geographic));
  await writeGridMapping(root, grid);

  const written = new Set<string>();
  const arrays = new Map<string, zarr.Array<zarr.DataType, FileSystemStore>>();
  const direct = new Map<string, ChunkWriter | undefined>();
  for (const v of spec.variables) {
    for (const d of v.dimensions) {
      if (written.has(d.name)) continue;
      written.add(d.name);
      created.push(d.name);
      await writeCoordinate(root, d.name, ...dimensionCoordinate(d));
    }
    const shape = [...v.dimensions.map((d) => d.values.length), grid.height, grid.width];
    const chunkShape = chunkShapes.get(v.name)!;
    const floating = v.pixelType === "F32" || v.pixelType === "F64";
    const fill = v.nodata ?? (floating ? NaN : 0);
    // NaN nodata is implicit for floats (and JSON cannot hold NaN): no _FillValue for it.
    const fillValue = v.nodata !== undefined && !Number.isNaN(v.nodata) ? v.nodata : undefined;
    const attributes = jsonSafe({ ...variableAttributes(v, fillValue), ...geo });
    const arr = await createArray(root, arrayKey(v.name), {
      shape,
      chunkShape,
      dtype: ZARR_DTYPE[v.pixelType],
      fillValue: fill,
      dimensionNames: [...v.dimensions.map((d) => d.name), yName, xName],
      attributes,
      codecs,
    });
    arrays.set(v.name, arr);
    direct.set(v.name, await openChunkWriter(join(path, arrayKey(v.name)), keptDir(path, v.name), encoder));
    created.push(arrayKey(v.name));
  }

  const levelWriters: (ZarrWriter & LevelWriter)[] = [];
  for (const level of levels) {
    const writer = await createZarrWriter(join(path, level.path), levelSpec(spec, level, chunkShapes), {
      overviews: false,
      compression,
      encoder,
    });
    levelWriters.push(Object.assign(writer, { factor: level.factor, variables: new Set(level.variables) }));
  }
  const nodata = new Map(spec.variables.map((v) => [v.name, v.nodata] as const));
  const flush = () => flushAll([...direct.values(), ...levelWriters]);

  return {
    chunkShapes,
    async writeBlock(name, start, slab, summaries, hold) {
      const arr = arrays.get(name);
      if (!arr) throw new Error(`no variable ${name} in this writer`);
      const written = (await direct.get(name)?.tryWrite(start, slab, summaries, hold)) ?? false;
      if (!written) await setBlock(arr, start, slab);
      await writeLevels(levelWriters, name, start, slab, spatialShape, nodata.get(name));
      return written;
    },
    keepBlock: async (name, start, slab, hold) => (await direct.get(name)?.keep(start, slab, hold)) ?? false,
    readKept: async (name, start, shape, into) => direct.get(name)?.takeKept(start, shape, into),
    flush,
    async finish(attributes) {
      await flush();
      // What no pass took back (a block read from the input instead) is not part of the store.
      await rm(join(path, KEPT_DIR), { recursive: true, force: true });
      for (const level of levelWriters) await level.finish();
      await consolidate(path, created, attributes ? jsonSafe(attributes) : {});
    },
  };
}

/** Output chunk shape over [...dims, rows, cols]: the spec's, or one slice by a TILE×TILE tile. */
function chunkShapeOf(v: VariableSpec, grid: Grid): number[] {
  return v.outputChunks ? [...v.outputChunks] : [...v.dimensions.map(() => 1), Math.min(grid.height, TILE), Math.min(grid.width, TILE)];
}

/** The overview levels of a store: each factor of the grid's with the variables whose chunks allow it. */
function planLevels(spec: CubeSpec, chunkShapes: ReadonlyMap<string, readonly number[]>): OverviewLevel[] {
  const spatial: [number, number] = [spec.grid.height, spec.grid.width];
  const factors = overviewFactors(...spatial);
  const allowed = new Map([...chunkShapes].map(([name, chunks]) => [name, alignedFactors(chunks, spatial, factors)] as const));
  return factors
    .map((factor) => ({
      path: `overviews/${factor}`,
      factor,
      variables: spec.variables.map((v) => v.name).filter((name) => allowed.get(name)!.includes(factor)),
    }))
    .filter((level) => level.variables.length > 0);
}

/** A level's store: the grid with cells `factor` times larger (an odd edge's last cell reaches past it), the level's variables. */
function levelSpec(spec: CubeSpec, level: OverviewLevel, chunkShapes: ReadonlyMap<string, readonly number[]>): CubeSpec {
  const { grid } = spec;
  const f = level.factor;
  const [t0, t1, t2, t3, t4, t5] = grid.transform;
  const levelGrid = gridFromTransform(
    Math.ceil(grid.width / f),
    Math.ceil(grid.height / f),
    [t0, t1 * f, t2 * f, t3, t4 * f, t5 * f],
    grid.crs,
  );
  const variables = spec.variables
    .filter((v) => level.variables.includes(v.name))
    .map((v) => ({ ...v, outputChunks: levelChunks(chunkShapes.get(v.name)!, [grid.height, grid.width], f) }));
  return { grid: levelGrid, attributes: { ...spec.attributes, "strata:overviewFactor": f }, variables };
}

/** Writes blocks into a store's arrays (a ZarrWriter, or openBlockWriter on one it created). */
export interface BlockWriter {
  /**
   * Write `slab` at `start` (over [...dims, rows, cols]) of the named variable. Resolves once
   * the slab may be reused; whole chunks are written in the background, and a failure to
   * write one surfaces at a later writeBlock or at flush. With `summaries`, a block of whole
   * chunks has each chunk summarized where it is encoded (ChunkWriter.tryWrite): true then.
   * With `hold`, a block in a kernel's shared memory may be written from there: the slab may
   * be reused once what `hold` was given settles (ChunkWriter.tryWrite).
   */
  writeBlock(variable: string, start: readonly number[], slab: Slab, summaries?: ChunkSummaries, hold?: BlockHold): Promise<boolean>;
  /**
   * Keep `slab`'s raw values in the store, apart from its arrays, for a later pass to read
   * back with readKept (after flush) instead of decoding its input again: false, with nothing
   * kept, unless the slab is whole chunks of the variable's type. A kept block that is never
   * read back is removed when the store is finished. With `hold`, as writeBlock's.
   */
  keepBlock(variable: string, start: readonly number[], slab: Slab, hold?: BlockHold): Promise<boolean>;
  /**
   * A block kept by keepBlock, read back into `into` when given, and removed (it is read
   * once); undefined when it is not kept (any more): a pass run again after a failure finds
   * some blocks taken and reads them from its input.
   */
  readKept(variable: string, start: readonly number[], shape: readonly number[], into?: TypedArray): Promise<TypedArray | undefined>;
  /** Wait for every block handed over to be written; throws the first failure. Always call it before the store is committed or removed. */
  flush(): Promise<void>;
}

/** Where a store keeps a variable's blocks between passes (BlockWriter.keepBlock): apart from its arrays, removed by finish. */
function keptDir(path: string, name: string): string {
  return join(path, KEPT_DIR, arrayKey(name));
}

/** Flush every direct chunk writer, all of them even when one fails, then throw the first failure. */
async function flushAll(
  writers: Iterable<Pick<ChunkWriter, "flush"> | undefined | Promise<Pick<ChunkWriter, "flush"> | undefined>>,
): Promise<void> {
  const results = await Promise.allSettled([...writers].map(async (w) => (await w)?.flush()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * Write blocks into a store created by createZarrWriter and not yet finished, e.g. from
 * another thread sharing the work: each writer must write whole chunks no other writes.
 * @example
 * const w = await openBlockWriter("/data/pending/x.zarr");
 * await w.writeBlock("sst", [0, 0, 512], slab);
 */
export async function openBlockWriter(path: string): Promise<BlockWriter> {
  const root = zarr.root(new FileSystemStore(path));
  const arrays = new Map<string, Promise<zarr.Array<zarr.DataType, FileSystemStore>>>();
  const direct = new Map<string, Promise<ChunkWriter | undefined>>();
  const rootAttributes =
    (JSON.parse(await readFile(join(path, "zarr.json"), "utf8")) as { attributes?: Record<string, unknown> }).attributes ?? {};
  const levels: (BlockWriter & LevelWriter)[] = [];
  for (const level of (rootAttributes[OVERVIEWS_ATTRIBUTE] ?? []) as OverviewLevel[]) {
    const writer = await openBlockWriter(join(path, level.path));
    levels.push(Object.assign(writer, { factor: level.factor, variables: new Set(level.variables) }));
  }
  const spatialShape = (rootAttributes["spatial:shape"] ?? [0, 0]) as [number, number];
  // Each variable's nodata, from its metadata (_FillValue; none when it is NaN).
  const nodata = new Map<string, Promise<number | undefined>>();
  const nodataOf = async (name: string) =>
    (JSON.parse(await readFile(join(path, arrayKey(name), "zarr.json"), "utf8")) as { attributes?: { _FillValue?: number } }).attributes
      ?._FillValue;
  const directOf = (name: string) => {
    let writer = direct.get(name);
    if (!writer) {
      writer = openChunkWriter(join(path, arrayKey(name)), keptDir(path, name));
      direct.set(name, writer);
    }
    return writer;
  };
  return {
    keepBlock: async (name, start, slab, hold) => (await (await directOf(name))?.keep(start, slab, hold)) ?? false,
    readKept: async (name, start, shape, into) => (await directOf(name))?.takeKept(start, shape, into),
    async writeBlock(name, start, slab, summaries, hold) {
      const writer = directOf(name);
      const written = (await (await writer)?.tryWrite(start, slab, summaries, hold)) ?? false;
      if (!written) {
        let arr = arrays.get(name);
        if (!arr) {
          arr = zarr.open.v3(root.resolve(arrayKey(name)), { kind: "array" });
          arrays.set(name, arr);
        }
        await setBlock(await arr, start, slab);
      }
      if (levels.length === 0) return written;
      let value = nodata.get(name);
      if (!value) {
        value = nodataOf(name);
        nodata.set(name, value);
      }
      await writeLevels(levels, name, start, slab, spatialShape, await value);
      return written;
    },
    flush: () => flushAll([...direct.values(), ...levels]),
  };
}

async function setBlock(arr: zarr.Array<zarr.DataType, FileSystemStore>, start: readonly number[], slab: Slab): Promise<void> {
  const selection = start.map((s, i) => zarr.slice(s, s + slab.shape[i]));
  await zarr.set(arr, selection, { data: slab.data as never, shape: [...slab.shape], stride: strides(slab.shape) });
}

/** Zarr node names cannot hold "/": group variables ("grp1/T") are stored flat. */
export function arrayKey(name: string): string {
  return name.replace(/\//g, ".");
}

/** GeoZarr-style georeferencing (rasterio affine order a, b, c, d, e, f). */
function geoAttributes(grid: Grid, yName: string, xName: string): Record<string, unknown> {
  const [t0, t1, t2, t3, t4, t5] = grid.transform;
  const wkt2 = wkt2Of(grid.crs);
  return {
    ...(grid.crs.epsg !== undefined ? { "proj:code": `EPSG:${grid.crs.epsg}` } : {}),
    ...(wkt2 ? { "proj:wkt2": wkt2 } : {}),
    "spatial:dimensions": [yName, xName],
    "spatial:transform": [t1, t2, t0, t4, t5, t3],
    "spatial:shape": [grid.height, grid.width],
    "spatial:registration": "pixel",
  };
}

async function writeCoordinate(
  root: zarr.Group<FileSystemStore>,
  name: string,
  values: Float64Array,
  attributes: Record<string, unknown>,
): Promise<void> {
  const arr = await createArray(root, name, {
    shape: [values.length],
    chunkShape: [Math.max(1, values.length)],
    dtype: "float64",
    fillValue: null,
    dimensionNames: [name],
    attributes: jsonSafe(attributes),
  });
  await zarr.set(arr, null, { data: values, shape: [values.length], stride: [1] });
}

/** A 0-d CF grid-mapping variable, the way GDAL and rioxarray write it (its one chunk's key is "0"). */
async function writeGridMapping(root: zarr.Group<FileSystemStore>, grid: Grid): Promise<void> {
  const attributes = gridMappingAttributes(grid);
  const arr = await createArray(root, GRID_MAPPING, {
    shape: [],
    chunkShape: [],
    dtype: "int32",
    fillValue: null,
    dimensionNames: [],
    attributes,
  });
  await zarr.set(arr, null, 0 as never);
}

interface ArrayOptions {
  readonly shape: number[];
  readonly chunkShape: number[];
  readonly dtype: zarr.DataType;
  /** null only where no value is nodata (coordinates, the grid mapping). */
  readonly fillValue: number | null;
  readonly dimensionNames: string[];
  readonly attributes: Record<string, unknown>;
  /** The data arrays' CODECS; coordinates and the grid mapping take ZSTD's. */
  readonly codecs?: readonly object[];
}

/** A v3 array encoded as CODECS with CHUNK_KEYS (zarrita's create offers only the default keys). */
async function createArray(
  root: zarr.Group<FileSystemStore>,
  name: string,
  options: ArrayOptions,
): Promise<zarr.Array<zarr.DataType, FileSystemStore>> {
  const location = root.resolve(name);
  const metadata: zarr.ArrayMetadata = {
    zarr_format: 3,
    node_type: "array",
    shape: options.shape,
    data_type: options.dtype,
    chunk_grid: { name: "regular", configuration: { chunk_shape: options.chunkShape } },
    chunk_key_encoding: CHUNK_KEYS,
    codecs: (options.codecs ?? CODECS.ZSTD) as zarr.ArrayMetadata["codecs"],
    fill_value: options.fillValue as never,
    dimension_names: options.dimensionNames,
    attributes: options.attributes,
  };
  // Zarr v3 spells non-finite fill values as strings; JSON.stringify would write null.
  const json = JSON.stringify(
    metadata,
    (key, x) => (key === "fill_value" && typeof x === "number" && !Number.isFinite(x) ? String(x) : x),
    2,
  );
  await root.store.set(location.resolve("zarr.json").path, new TextEncoder().encode(json));
  return new zarr.Array(root.store, location.path, metadata);
}

/**
 * Inline consolidated metadata (zarr-python 3's format) in the root zarr.json, then the Zarr
 * v2 metadata of the same nodes.
 */
async function consolidate(path: string, nodes: readonly string[], attributes: Record<string, unknown>): Promise<void> {
  const rootFile = join(path, "zarr.json");
  const rootMeta = JSON.parse(await readFile(rootFile, "utf8")) as { attributes: Record<string, unknown> } & Record<string, unknown>;
  Object.assign(rootMeta.attributes, attributes);
  const metadata = new Map<string, V3Node>();
  for (const node of nodes) metadata.set(node, JSON.parse(await readFile(join(path, node, "zarr.json"), "utf8")) as V3Node);
  rootMeta.consolidated_metadata = { kind: "inline", must_understand: false, metadata: Object.fromEntries(metadata) };
  await writeFile(rootFile, JSON.stringify(rootMeta, null, 2));
  await writeV2Metadata(path, rootMeta.attributes, metadata);
}

/** Attributes as JSON can hold them: typed arrays to lists, NaN/Infinity and bigints dropped. */
function jsonSafe(attrs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) {
    const value = ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v;
    const text = JSON.stringify(value, (_, x) =>
      typeof x === "bigint" ? Number(x) : typeof x === "number" && !Number.isFinite(x) ? null : x,
    );
    if (text !== undefined) out[k] = JSON.parse(text);
  }
  return out;
}
