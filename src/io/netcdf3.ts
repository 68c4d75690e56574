/**
 * NetCDF-3 (classic and 64-bit offset) reader. netcdfjs parses the header from the first
 * bytes of the file; the data are read lazily with positional reads, so a tile through a
 * cube of any size costs only the bytes it touches.
 */
import { open as openFile, type FileHandle } from "node:fs/promises";
import { NetCDFReader } from "netcdfjs";
import { CorruptDataError, UnsupportedDataError } from "../cube/errors.js";
import { flipRows } from "./flipRows.js";
import { readHyperslab } from "./hyperslab.js";
import { type Attributes, type RawDataset, type RawDtype, type RawVariable, bytesPerElement } from "./raw.js";

const NC_TYPES: Record<string, RawDtype> = {
  byte: "int8",
  char: "char",
  short: "int16",
  int: "int32",
  float: "float32",
  double: "float64",
};

/**
 * Open a NetCDF-3 file lazily.
 * @example
 * const ds = await openNetcdf3("monthly_navy_winds.cdf");
 * const uwnd = ds.variables.find((v) => v.name === "UWND")!;
 * const firstSlice = await uwnd.read([0, 0, 0], [1, 73, 144]);
 */
export async function openNetcdf3(path: string): Promise<RawDataset> {
  const fh = await openFile(path, "r");
  try {
    const { size } = await fh.stat();
    const head = await readHeader(fh, size, path);
    const dims = head.dimensions;
    const rec = head.recordDimension;
    const numRecords = recordCount(rec.length, head, size);
    const variables: RawVariable[] = head.variables.map((v) => {
      const dtype = NC_TYPES[v.type];
      if (!dtype) throw new UnsupportedDataError(`${path}: variable ${v.name} has NetCDF type ${v.type}, which Strata cannot read`);
      const dimNames = v.dimensions.map((id) => dims[id].name);
      const shape = v.dimensions.map((id, i) => (v.record && i === 0 ? numRecords : dims[id].size));
      const elementBytes = bytesPerElement(dtype);
      return {
        name: v.name,
        dims: dimNames,
        shape,
        dtype,
        attrs: toAttributes(v.attributes as unknown as RawAttribute[]),
        chunkShape: v.record ? [1, ...shape.slice(1)] : shape,
        async read(start, count, signal, into, rowsReversed) {
          const values = await readHyperslab(
            {
              shape,
              dtype,
              bigEndian: true,
              contiguousDims: v.record ? shape.length - 1 : shape.length,
              position: (index) => {
                let linear = 0;
                for (let d = v.record ? 1 : 0; d < shape.length; d++) linear = linear * shape[d] + index[d];
                const recordOffset = v.record ? index[0] * (rec.recordStep ?? 0) : 0;
                return v.offset + recordOffset + linear * elementBytes;
              },
              readBytes: (buf, pos) => readFully(fh, buf, pos, path),
            },
            start,
            count,
            signal,
            into,
          );
          return rowsReversed ? flipRows(values, count[count.length - 2] ?? 1, count[count.length - 1] ?? 1) : values;
        },
      } satisfies RawVariable;
    });
    return {
      format: "netcdf3",
      variables,
      attrs: toAttributes(head.globalAttributes as unknown as RawAttribute[]),
      close: () => fh.close(),
    };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

type Header = NetCDFReader["header"];
interface RawAttribute {
  name: string;
  type: string;
  value: unknown;
}

/** Parse the header from a growing prefix of the file: headers are usually a few kB. */
async function readHeader(fh: FileHandle, size: number, path: string): Promise<Header> {
  const version = Buffer.alloc(4);
  await readFully(fh, version, 0, path);
  if (version[3] === 5)
    throw new UnsupportedDataError(`${path} is NetCDF-3 CDF-5 (64-bit data), which Strata does not read; convert it to NetCDF-4`);
  let n = Math.min(size, 64 * 1024);
  for (;;) {
    const buf = Buffer.alloc(n);
    await readFully(fh, buf, 0, path);
    try {
      return new NetCDFReader(buf).header;
    } catch (e) {
      if (n >= size) {
        const reason = e instanceof Error ? e.message : String(e);
        throw new CorruptDataError(`${path} is not a readable NetCDF-3 file: ${reason}`);
      }
      n = Math.min(size, n * 4);
    }
  }
}

/** numrecs may be STREAMING (-1) in files still being written: infer it from the size. */
function recordCount(declared: number, head: Header, size: number): number {
  if (declared >= 0 && declared !== 0xffffffff) return declared;
  const step = head.recordDimension.recordStep ?? 0;
  const first = Math.min(...head.variables.filter((v) => v.record).map((v) => v.offset));
  return step > 0 ? Math.floor((size - first) / step) : 0;
}

async function readFully(fh: FileHandle, buf: Uint8Array, position: number, path: string): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await fh.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) throw new CorruptDataError(`${path} is truncated: expected data at byte ${position + done}`);
    done += bytesRead;
  }
}

function toAttributes(list: RawAttribute[]): Attributes {
  const out: Attributes = {};
  for (const a of list ?? []) {
    let value = a.value;
    if (typeof value === "string") value = value.replace(/\0+$/, "");
    out[a.name] = value;
  }
  return out;
}
