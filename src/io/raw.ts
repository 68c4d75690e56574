/**
 * The format-neutral view every reader gives before CF interpretation: named
 * n-dimensional arrays with attributes and a raw (packed, storage-order) hyperslab read.
 * io/cf.ts turns a RawDataset into a Cube.
 */
import { UnsupportedDataError } from "../cube/errors.js";
import type { TypedArray } from "../cube/types.js";

/**
 * Element types as stored. 64-bit integers ("int64", "uint64": xarray's default for integer
 * time axes) are read into Float64Array: exact up to 2^53, and refused beyond (see
 * `widenedValues`).
 */
export type RawDtype =
  "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32" | "int64" | "uint64" | "float32" | "float64" | "char" | "string";

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
  /** Values of the hyperslab [start, start+count) as stored (no scaling): see WindowRead. */
  readonly read: WindowRead;
}

/**
 * Reading the hyperslab [start, start+count) of an array: its values in C order, into `into`
 * when given and the reader can (the stored type, exactly the hyperslab's length); with
 * rowsReversed, the rows (the second-last dimension) of each plane last to first.
 */
export type WindowRead = (
  start: readonly number[],
  count: readonly number[],
  signal?: AbortSignal,
  into?: TypedArray,
  rowsReversed?: boolean,
) => Promise<TypedArray>;

/** Something of the source a reader or the CF interpretation leaves out, and why. */
export interface SkippedNote {
  readonly name: string;
  readonly reason: string;
}

export interface RawDataset {
  readonly format: "netcdf3" | "netcdf4" | "zarr";
  readonly variables: readonly RawVariable[];
  readonly attrs: Attributes;
  /** Arrays of the source the reader cannot represent (their type), with the reason. */
  readonly skipped?: readonly SkippedNote[];
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
    case "int64":
    case "uint64":
      return new Float64Array(length);
    case "string":
      throw new TypeError("string variables have no typed array");
  }
}

/**
 * `into` when it is a `dtype` array of exactly `length` values (a caller's array to fill,
 * Selection.into), else a new one.
 */
export function arrayToFill(dtype: RawDtype, length: number, into: TypedArray | undefined): TypedArray {
  const fits = into !== undefined && into.length === length && into.constructor === typedArrayFor(dtype, 0).constructor;
  return fits ? into : typedArrayFor(dtype, length);
}

/** Largest integer magnitude a float64 holds exactly, with all smaller ones: 2^53. */
const EXACT = 2 ** 53;

/**
 * What a reader hands over for a variable's stored values: for 64-bit integers (which arrive
 * as BigInt64Array / BigUint64Array) the same values as exact float64, refusing any beyond
 * ±2^53 (which a float64 would round) unless it is the variable's `_FillValue` or a
 * `missing_value` (which round the same way and only mark nodata); other types as they are.
 * @example
 * const widen = widenedValues("time", "int64", attrs);
 * widen(new BigInt64Array([0n, 1n, 3649n]) as never); // Float64Array [0, 1, 3649]
 */
export function widenedValues(name: string, dtype: RawDtype, attrs: Attributes): (values: TypedArray) => TypedArray {
  if (dtype !== "int64" && dtype !== "uint64") return (values) => values;
  const fills = [...numericAttrs(attrs, "_FillValue"), ...numericAttrs(attrs, "missing_value")];
  return (values) => exactFloat64(values as unknown as BigInt64Array | BigUint64Array, fills, `${name} (${dtype})`);
}

function exactFloat64(values: BigInt64Array | BigUint64Array, fills: readonly number[], what: string): Float64Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const x = Number(values[i]);
    if ((x > EXACT || x < -EXACT) && !fills.includes(x)) {
      throw new UnsupportedDataError(
        `${what} holds the 64-bit integer ${values[i]}, beyond 2^53 (9007199254740992), which Strata cannot hold exactly; it reads 64-bit integers up to 2^53 only`,
      );
    }
    out[i] = x;
  }
  return out;
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
