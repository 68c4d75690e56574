/**
 * A small NetCDF-3 classic writer for synthetic test and bench data (written from the
 * format specification, independent of Strata's reader). Records are produced by a
 * callback and streamed to disk, so a cube of any size costs one record of memory.
 */
import { open } from "node:fs/promises";

export type NcType = "byte" | "short" | "int" | "float" | "double";
const TYPE_CODE: Record<NcType, number> = { byte: 1, short: 3, int: 4, float: 5, double: 6 };
const TYPE_SIZE: Record<NcType, number> = { byte: 1, short: 2, int: 4, float: 4, double: 8 };
const CHAR = 2;

export type AttrValue = string | number | number[];

export interface NcVariable {
  name: string;
  dims: string[];
  type: NcType;
  attrs?: Record<string, AttrValue>;
  /** Values of a fixed variable, or of record `r` of a record variable, in C order. */
  data: ArrayLike<number> | ((record: number) => ArrayLike<number>);
}

export interface NcFile {
  /** Dimensions in order; the one with `record: true` (at most one) is unlimited. */
  dims: { name: string; size: number; record?: boolean }[];
  attrs?: Record<string, AttrValue>;
  vars: NcVariable[];
}

/** Attributes whose type must be the variable's own. */
const TYPED_ATTRS = new Set(["_FillValue", "missing_value", "valid_min", "valid_max", "valid_range"]);

class Header {
  private parts: Buffer[] = [Buffer.from("CDF\x01", "latin1")];
  int(v: number) {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    this.parts.push(b);
  }
  name(s: string) {
    const bytes = Buffer.from(s, "utf8");
    this.int(bytes.length);
    this.parts.push(bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4));
  }
  values(type: NcType, values: number[]) {
    const b = Buffer.alloc(pad4(values.length * TYPE_SIZE[type]));
    values.forEach((v, i) => writeValue(b, type, i * TYPE_SIZE[type], v));
    this.parts.push(b);
  }
  /** Attributes; `valueType` types the ones that must match the variable (_FillValue ...). */
  attrs(attrs: Record<string, AttrValue> = {}, valueType?: NcType) {
    const entries = Object.entries(attrs);
    if (entries.length === 0) return (this.int(0), this.int(0));
    this.int(0x0c);
    this.int(entries.length);
    for (const [k, v] of entries) {
      this.name(k);
      if (typeof v === "string") {
        const bytes = Buffer.from(v, "utf8");
        this.int(CHAR);
        this.int(bytes.length);
        this.parts.push(bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4));
      } else {
        const list = Array.isArray(v) ? v : [v];
        const typed = valueType && TYPED_ATTRS.has(k);
        const type: NcType = typed ? valueType : Number.isInteger(list[0]) && Math.abs(list[0]) < 2 ** 31 ? "int" : "double";
        this.int(TYPE_CODE[type]);
        this.int(list.length);
        this.values(type, list);
      }
    }
  }
  get length() {
    return this.parts.reduce((n, b) => n + b.length, 0);
  }
  bytes() {
    return Buffer.concat(this.parts);
  }
}

function pad4(n: number) {
  return n + ((4 - (n % 4)) % 4);
}

function writeValue(b: Buffer, type: NcType, at: number, v: number) {
  if (type === "byte") b.writeInt8(v, at);
  else if (type === "short") b.writeInt16BE(v, at);
  else if (type === "int") b.writeInt32BE(v, at);
  else if (type === "float") b.writeFloatBE(v, at);
  else b.writeDoubleBE(v, at);
}

const ARRAYS = { byte: Int8Array, short: Int16Array, int: Int32Array, float: Float32Array, double: Float64Array };

/** Big-endian bytes of the values, padded: a typed-array copy and an in-place byte swap. */
function encode(type: NcType, values: ArrayLike<number>, padded: number): Buffer {
  const bytes = new Uint8Array(pad4(padded));
  new ARRAYS[type](bytes.buffer, 0, values.length).set(values);
  const b = Buffer.from(bytes.buffer, 0, padded);
  const n = TYPE_SIZE[type];
  const swapped = Buffer.from(bytes.buffer, 0, values.length * n);
  if (n === 2) swapped.swap16();
  else if (n === 4) swapped.swap32();
  else if (n === 8) swapped.swap64();
  return b;
}

/**
 * @example
 * await writeNetcdf3("/tmp/x.nc", { dims: [{ name: "time", size: 2, record: true }, { name: "lat", size: 3 }],
 *   vars: [{ name: "v", dims: ["time", "lat"], type: "float", data: (r) => [r, r, r] }] });
 */
export async function writeNetcdf3(path: string, file: NcFile): Promise<void> {
  const dimIndex = new Map(file.dims.map((d, i) => [d.name, i]));
  const recordDim = file.dims.find((d) => d.record);
  const numRecords = recordDim?.size ?? 0;
  const isRecord = (v: NcVariable) => recordDim !== undefined && v.dims[0] === recordDim.name;
  const sizeOf = (v: NcVariable) => {
    const dims = isRecord(v) ? v.dims.slice(1) : v.dims;
    return dims.reduce((n, d) => n * file.dims[dimIndex.get(d)!].size, 1) * TYPE_SIZE[v.type];
  };
  const records = file.vars.filter(isRecord);
  // A lone record variable is not padded (the format's one exception).
  const vsize = (v: NcVariable) => (isRecord(v) && records.length === 1 ? sizeOf(v) : pad4(sizeOf(v)));

  const build = (begins: number[]) => {
    const h = new Header();
    h.int(numRecords);
    h.int(0x0a);
    h.int(file.dims.length);
    for (const d of file.dims) {
      h.name(d.name);
      h.int(d.record ? 0 : d.size);
    }
    h.attrs(file.attrs);
    h.int(0x0b);
    h.int(file.vars.length);
    file.vars.forEach((v, i) => {
      h.name(v.name);
      h.int(v.dims.length);
      for (const d of v.dims) h.int(dimIndex.get(d)!);
      h.attrs(v.attrs, v.type);
      h.int(TYPE_CODE[v.type]);
      h.int(vsize(v));
      h.int(begins[i]);
    });
    return h;
  };
  const headerLength = build(file.vars.map(() => 0)).length;
  // Fixed variables first, then the record variables' slots within one record.
  const begins = new Array<number>(file.vars.length);
  let at = headerLength;
  const place = (record: boolean) =>
    file.vars.forEach((v, i) => {
      if (isRecord(v) !== record) return;
      begins[i] = at;
      at += vsize(v);
    });
  place(false);
  const recordStart = at;
  place(true);
  const fh = await open(path, "w");
  try {
    let pos = 0;
    const put = async (b: Buffer) => {
      await fh.write(b, 0, b.length, pos);
      pos += b.length;
    };
    await put(build(begins).bytes());
    for (const v of file.vars.filter((x) => !isRecord(x))) {
      await put(encode(v.type, v.data as ArrayLike<number>, vsize(v)));
    }
    if (pos !== recordStart) throw new Error("layout mismatch");
    for (let r = 0; r < numRecords; r++) {
      for (const v of records) await put(encode(v.type, (v.data as (r: number) => ArrayLike<number>)(r), vsize(v)));
    }
  } finally {
    await fh.close();
  }
}
