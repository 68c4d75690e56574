/**
 * NetCDF-4 / HDF5 reader. h5wasm gives the metadata (names, attributes, dimension scales,
 * types); values come from Strata's own chunk reader (io/hdf5/: positional reads, inflate on
 * libuv's pool, unshuffle), which is much faster than a hyperslab through a WASM HDF5. What
 * the chunk reader does not handle (other filters, a file it cannot parse) is read with
 * h5wasm's `slice` as before. Dimension names come from the netCDF-4 dimension scales.
 */
import h5wasm from "h5wasm/node";
import { CorruptDataError, StrataError, UnsupportedDataError } from "../cube/errors.js";
import { flipRows } from "./flipRows.js";
import { allowHdf5, guardedH5wasm, refusedOpen } from "./hdf5Guard.js";
import { type Hdf5Dataset, type Hdf5File, openHdf5Chunks } from "./hdf5/index.js";
import type { TypedArray } from "../cube/types.js";
import { type Attributes, type RawDataset, type RawDtype, type RawVariable, type SkippedNote, widenedValues } from "./raw.js";

type H5File = InstanceType<typeof h5wasm.File>;
type H5Group = InstanceType<typeof h5wasm.Group>;
type H5Dataset = InstanceType<typeof h5wasm.Dataset>;

/** netCDF-4 marks dimensions that have no coordinate variable with this NAME. */
const PHONY_DIMENSION = "This is a netCDF dimension but not a netCDF variable";
/** HDF5 attributes that are netCDF-4 bookkeeping, not user metadata. */
const INTERNAL_ATTRS = new Set([
  "DIMENSION_LIST",
  "REFERENCE_LIST",
  "CLASS",
  "NAME",
  "_Netcdf4Dimid",
  "_Netcdf4Coordinates",
  "_NCProperties",
]);

/** Which reader gave a variable's last values: for tests, which prove the chunk reader is used. */
export type ValueReader = "chunks" | "h5wasm";

export interface Netcdf4Variable extends RawVariable {
  readonly reader: ValueReader | undefined;
}

/**
 * Open a NetCDF-4 (or plain HDF5) file lazily.
 * @example
 * const ds = await openNetcdf4("nc4uvt.nc");
 * const t = ds.variables.find((v) => v.name === "grp1/T")!;
 * const slab = await t.read([0, 0, 0, 0], [1, 2, 8, 8]);
 */
export async function openNetcdf4(path: string): Promise<RawDataset> {
  await guardedH5wasm();
  const release = allowHdf5(path);
  let file: H5File | undefined;
  try {
    refusedOpen();
    file = new h5wasm.File(path, "r");
    if (file.file_id < 0n) throw new Error("HDF5 could not open it");
    const variables: RawVariable[] = [];
    const skipped: SkippedNote[] = [];
    // One file handle per opened dataset, opened at the first read; undefined when the
    // chunk reader cannot parse the file, which h5wasm then reads alone.
    let chunkFile: Promise<Hdf5File | undefined> | undefined;
    const chunks = () => (chunkFile ??= openHdf5Chunks(path).catch(() => undefined));
    collect(path, file, file, "", { variables, skipped }, chunks);
    const opened = file;
    return {
      format: "netcdf4",
      variables,
      skipped,
      attrs: attributesOf(file),
      close: async () => {
        opened.close();
        release();
        await (await chunkFile)?.close();
      },
    };
  } catch (e) {
    try {
      file?.close();
    } catch {
      // Already failing: the reason to report is the first.
    }
    release();
    if (e instanceof StrataError) throw e;
    throw new CorruptDataError(`${path} is not a readable NetCDF-4/HDF5 file: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** HDF5 filters built into the library (deflate, shuffle, fletcher32, szip, nbit, scale-offset). */
const BUILT_IN_FILTERS = new Set([1, 2, 3, 4, 5, 6]);

type ChunkFile = () => Promise<Hdf5File | undefined>;

interface Collected {
  readonly variables: RawVariable[];
  readonly skipped: SkippedNote[];
}

function collect(path: string, file: H5File, group: H5Group, prefix: string, out: Collected, chunks: ChunkFile): void {
  for (const key of group.keys()) {
    const name = `${prefix}${key}`;
    const outside = (how: string) =>
      new UnsupportedDataError(`${path}: ${name} is ${how}, data outside the file, which Strata does not read`);
    const entity = group.get(key);
    if (entity && typeof entity === "object" && "filename" in entity && "obj_path" in entity) throw outside("an external link");
    if (entity instanceof h5wasm.Group) {
      collect(path, file, entity, `${name}/`, out, chunks);
    } else if (entity instanceof h5wasm.Dataset) {
      const meta = entity.metadata as H5Dataset["metadata"] & { virtual_sources?: unknown[] };
      if (meta.virtual_sources) throw outside("a virtual dataset");
      const filter = entity.filters.find((f) => !BUILT_IN_FILTERS.has(f.id));
      if (filter) {
        throw new UnsupportedDataError(
          `${path}: ${name} is compressed with HDF5 filter ${filter.id} (${filter.name}), which Strata does not read`,
        );
      }
      // External storage is visible only when read: HDF5 then opens another file, which
      // the guard refuses. Only contiguous datasets can have it; one value tells.
      if (!meta.chunks && (meta.shape ?? []).length > 0 && (meta.shape ?? []).every((n) => n > 0)) {
        try {
          entity.slice((meta.shape ?? []).map(() => [0, 1] as [number, number]));
        } catch (e) {
          if (refusedOpen()) throw outside("stored in another file");
          throw e;
        }
        if (refusedOpen()) throw outside("stored in another file");
      }
      const variable = toVariable(file, entity, name, chunks);
      if (typeof variable === "string") out.skipped.push({ name, reason: `${name} ${variable}, which Strata does not read` });
      else if (variable) out.variables.push(variable);
    }
  }
}

/** The variable, undefined for a dimension without a coordinate, or why its type is not read. */
function toVariable(file: H5File, ds: H5Dataset, name: string, chunks: ChunkFile): Netcdf4Variable | string | undefined {
  const meta = ds.metadata;
  const nameAttr = attrValue(ds, "NAME");
  if (typeof nameAttr === "string" && nameAttr.startsWith(PHONY_DIMENSION)) return undefined;
  const dtype = dtypeOf(meta);
  if (!dtype) return `holds ${typeName(meta)} values`;
  const shape = meta.shape ?? [];
  const attrs = attributesOf(ds);
  const widen = widenedValues(name, dtype, attrs);
  // The chunk reader's view of this dataset, or undefined once it proved unable to read it.
  let chunked: Promise<Hdf5Dataset | undefined> | undefined;
  const chunkedDataset = () =>
    (chunked ??= chunks()
      .then((h5) => h5?.dataset(name))
      .then((d) => (d && d.kind === dtype && d.shape.length === shape.length && d.shape.every((n, i) => n === shape[i]) ? d : undefined))
      .catch(() => undefined));
  let lastReader: ValueReader | undefined;
  const viaH5wasm = (read: () => TypedArray) => {
    lastReader = "h5wasm";
    return read();
  };
  const variable: Netcdf4Variable = {
    name,
    dims: dimensionNames(file, ds, name, shape.length),
    shape,
    dtype,
    attrs,
    chunkShape: meta.chunks ?? shape,
    get reader() {
      return lastReader;
    },
    async read(start, count, signal, into, rowsReversed) {
      signal?.throwIfAborted();
      if (shape.length === 0) return widen(viaH5wasm(() => toTyped(ds.value)));
      const own = await chunkedDataset();
      if (own) {
        try {
          const values = await own.read(start, count, signal, into, rowsReversed);
          lastReader = "chunks";
          return values;
        } catch (e) {
          if (signal?.aborted) throw e;
          // A window outside the shape is h5wasm's to judge, as before. Anything else (a chunk
          // with a skipped filter, a structure the chunk reader misjudged): h5wasm reads this
          // variable from now on.
          if (!(e instanceof RangeError)) chunked = Promise.resolve(undefined);
        }
      }
      const ranges = start.map((s, i) => [s, s + count[i]] as [number, number]);
      const values = widen(viaH5wasm(() => ds.slice(ranges) as TypedArray));
      return rowsReversed ? flipRows(values, count[count.length - 2] ?? 1, count[count.length - 1] ?? 1) : values;
    },
  };
  return variable;
}

/** A scalar dataset's value as a one-element typed array. */
function toTyped(value: unknown): TypedArray {
  if (ArrayBuffer.isView(value)) return value as unknown as TypedArray;
  if (typeof value === "bigint") return new BigInt64Array([value]) as unknown as TypedArray;
  return Float64Array.of(Number(value));
}

function dtypeOf(meta: H5Dataset["metadata"]): RawDtype | undefined {
  // HDF5 type classes: 0 integer, 1 float.
  if (meta.type === 1) return meta.size === 4 ? "float32" : meta.size === 8 ? "float64" : undefined;
  if (meta.type !== 0) return undefined;
  const table: Record<number, [RawDtype, RawDtype]> = {
    1: ["int8", "uint8"],
    2: ["int16", "uint16"],
    4: ["int32", "uint32"],
    8: ["int64", "uint64"],
  };
  const pair = table[meta.size];
  return pair ? pair[meta.signed ? 0 : 1] : undefined;
}

/** HDF5 type classes, as messages name them. */
const TYPE_CLASSES: Record<number, string> = {
  0: "integer",
  1: "floating-point",
  2: "time",
  3: "string",
  4: "bitfield",
  5: "opaque",
  6: "compound",
  7: "reference",
  8: "enumerated",
  9: "variable-length",
  10: "array",
};

function typeName(meta: H5Dataset["metadata"]): string {
  const cls = TYPE_CLASSES[meta.type] ?? `HDF5 class ${meta.type}`;
  return meta.type === 0 || meta.type === 1 ? `${meta.size * 8}-bit ${cls}` : cls;
}

/** Dimension names from the dimension scales this dataset is attached to. */
function dimensionNames(file: H5File, ds: H5Dataset, name: string, rank: number): string[] {
  const fallback = Array.from({ length: rank }, (_, i) => `${name.split("/").pop()}_dim${i}`);
  if (attrValue(ds, "CLASS") === "DIMENSION_SCALE" && rank === 1) return [name.split("/").pop()!];
  const list = ds.attrs["DIMENSION_LIST"]?.value as unknown[] | undefined;
  if (!Array.isArray(list) || list.length !== rank) return fallback;
  return list.map((entry, i) => {
    const ref = Array.isArray(entry) ? entry[0] : entry;
    const target = ref ? file.dereference(ref as never) : null;
    const path = (target as { path?: string } | null)?.path;
    return path ? path.split("/").pop()! : fallback[i];
  });
}

function attributesOf(entity: H5File | H5Dataset | H5Group): Attributes {
  const out: Attributes = {};
  for (const key of Object.keys(entity.attrs)) {
    if (INTERNAL_ATTRS.has(key)) continue;
    const v = attrValue(entity, key);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** Attribute values with one-element arrays unwrapped, as netCDF presents them. */
function attrValue(entity: H5File | H5Dataset | H5Group, key: string): unknown {
  let v: unknown;
  try {
    v = entity.attrs[key]?.value;
  } catch {
    return undefined;
  }
  if ((Array.isArray(v) || ArrayBuffer.isView(v)) && (v as ArrayLike<unknown>).length === 1) v = (v as ArrayLike<unknown>)[0];
  if (typeof v === "bigint") v = Number(v);
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) v = Array.from(v as unknown as ArrayLike<number>, Number);
  return v;
}
