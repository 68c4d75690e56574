/**
 * NetCDF-4 / HDF5 reader on h5wasm. h5wasm's Node build reads the file in place (no copy
 * into memory) and `slice` is an HDF5 hyperslab read, so windows cost only the chunks they
 * touch. Dimension names come from the netCDF-4 dimension scales (DIMENSION_LIST).
 */
import h5wasm from "h5wasm/node";
import { CorruptDataError, StrataError, UnsupportedDataError } from "../cube/errors.js";
import { allowHdf5, guardedH5wasm, refusedOpen } from "./hdf5Guard.js";
import type { TypedArray } from "../cube/types.js";
import type { Attributes, RawDataset, RawDtype, RawVariable } from "./raw.js";

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
    collect(path, file, file, "", variables);
    const opened = file;
    return {
      format: "netcdf4",
      variables,
      attrs: attributesOf(file),
      close: async () => {
        opened.close();
        release();
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

function collect(path: string, file: H5File, group: H5Group, prefix: string, out: RawVariable[]): void {
  for (const key of group.keys()) {
    const name = `${prefix}${key}`;
    const outside = (how: string) =>
      new UnsupportedDataError(`${path}: ${name} is ${how}, data outside the file, which Strata does not read`);
    const entity = group.get(key);
    if (entity && typeof entity === "object" && "filename" in entity && "obj_path" in entity) throw outside("an external link");
    if (entity instanceof h5wasm.Group) {
      collect(path, file, entity, `${name}/`, out);
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
      const variable = toVariable(file, entity, name);
      if (variable) out.push(variable);
    }
  }
}

function toVariable(file: H5File, ds: H5Dataset, name: string): RawVariable | undefined {
  const meta = ds.metadata;
  const dtype = dtypeOf(meta);
  const nameAttr = attrValue(ds, "NAME");
  if (!dtype || (typeof nameAttr === "string" && nameAttr.startsWith(PHONY_DIMENSION))) return undefined;
  const shape = meta.shape ?? [];
  return {
    name,
    dims: dimensionNames(file, ds, name, shape.length),
    shape,
    dtype,
    attrs: attributesOf(ds),
    chunkShape: meta.chunks ?? shape,
    async read(start, count, signal) {
      signal?.throwIfAborted();
      if (shape.length === 0) return ds.value as TypedArray;
      const ranges = start.map((s, i) => [s, s + count[i]] as [number, number]);
      return ds.slice(ranges) as TypedArray;
    },
  };
}

function dtypeOf(meta: H5Dataset["metadata"]): RawDtype | undefined {
  // HDF5 type classes: 0 integer, 1 float.
  if (meta.type === 1) return meta.size === 4 ? "float32" : meta.size === 8 ? "float64" : undefined;
  if (meta.type !== 0) return undefined;
  const table: Record<number, [RawDtype, RawDtype]> = { 1: ["int8", "uint8"], 2: ["int16", "uint16"], 4: ["int32", "uint32"] };
  const pair = table[meta.size];
  return pair ? pair[meta.signed ? 0 : 1] : undefined;
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
