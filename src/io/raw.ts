/**
 * The format-neutral view every reader gives before CF interpretation: named
 * n-dimensional arrays with attributes and a raw (packed, storage-order) hyperslab read.
 * io/cf.ts turns a RawDataset into a Cube.
 */
import type { TypedArray } from "../cube/types.js";

export type RawDtype = "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32" | "float32" | "float64" | "char" | "string";

export type Attributes = Record<string, unknown>;

export interface RawVariable {
  /** Path-like name; variables in groups are "group/name". */
  readonly name: string;
  readonly dims: readonly string[];
  readonly shape: readonly number[];
  readonly dtype: RawDtype;
  readonly attrs: Attributes;
  /** Storage chunk shape (the whole shape, or 1 along the record axis, when unchunked). */
  readonly chunkShape: readonly number[];
  /** Values of the hyperslab [start, start+count) in C order, as stored (no scaling). */
  read(start: readonly number[], count: readonly number[], signal?: AbortSignal): Promise<TypedArray>;
}

export interface RawDataset {
  readonly format: "netcdf3" | "netcdf4" | "zarr";
  readonly variables: readonly RawVariable[];
  readonly attrs: Attributes;
  close(): Promise<void>;
}

export function typedArrayFor(dtype: RawDtype, length: number): TypedArray {
  switch (dtype) {
    case "int8":
      return new Int8Array(length);
    case "uint8":
    case "char":
      return new Uint8Array(length);
    case "int16":
      return new Int16Array(length);
    case "uint16":
      return new Uint16Array(length);
    case "int32":
      return new Int32Array(length);
    case "uint32":
      return new Uint32Array(length);
    case "float32":
      return new Float32Array(length);
    case "float64":
      return new Float64Array(length);
    case "string":
      throw new TypeError("string variables have no typed array");
  }
}

export function bytesPerElement(dtype: RawDtype): number {
  return typedArrayFor(dtype, 0).BYTES_PER_ELEMENT;
}

/** A scalar attribute as a number (first element of an array attribute), if it is numeric. */
export function numericAttr(attrs: Attributes, name: string): number | undefined {
  const v = attrs[name];
  const first = Array.isArray(v) || ArrayBuffer.isView(v) ? (v as ArrayLike<unknown>)[0] : v;
  if (typeof first === "number") return first;
  if (typeof first === "bigint") return Number(first);
  return undefined;
}

/** All numeric values of an attribute (scalar or array). */
export function numericAttrs(attrs: Attributes, name: string): number[] {
  const v = attrs[name];
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) || ArrayBuffer.isView(v) ? Array.from(v as ArrayLike<unknown>) : [v];
  return list.flatMap((x) => (typeof x === "number" ? [x] : typeof x === "bigint" ? [Number(x)] : []));
}

export function stringAttr(attrs: Attributes, name: string): string | undefined {
  const v = attrs[name];
  if (typeof v === "string") return v;
  if (Array.isArray(v) && typeof v[0] === "string") return v.join("");
  return undefined;
}
