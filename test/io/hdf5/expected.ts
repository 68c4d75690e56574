/**
 * The values h5py read from test/fixtures/hdf5/ (scripts/goldens/make_hdf5_index_fixtures.py),
 * as typed arrays, and C-order windows cut from them.
 */
import { readFileSync } from "node:fs";
import type { TypedArray } from "../../../src/cube/types.js";

export const FIXTURES = new URL("../../fixtures/hdf5/", import.meta.url).pathname;

export interface ExpectedDataset {
  readonly dtype: string;
  readonly shape: number[];
  readonly chunks: number[] | null;
  readonly values: string;
}

export const EXPECTED: Record<string, Record<string, ExpectedDataset>> = JSON.parse(readFileSync(`${FIXTURES}expected.json`, "utf8"));

const ARRAYS: Record<string, new (buffer: ArrayBuffer) => TypedArray> = {
  "|i1": Int8Array,
  "|u1": Uint8Array,
  "<i2": Int16Array,
  "<u2": Uint16Array,
  "<i4": Int32Array,
  "<u4": Uint32Array,
  "<f4": Float32Array,
  "<f8": Float64Array,
};

export function expectedValues(entry: ExpectedDataset): TypedArray {
  const bytes = readFileSync(FIXTURES + entry.values);
  const Ctor = ARRAYS[entry.dtype];
  if (!Ctor) throw new Error(`no typed array for ${entry.dtype}`);
  return new Ctor(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The C-order window [start, start+count) of a full C-order array of `shape`. */
export function window(all: TypedArray, shape: readonly number[], start: readonly number[], count: readonly number[]): number[] {
  const out: number[] = [];
  const rank = shape.length;
  const visit = (d: number, offset: number) => {
    if (d === rank) {
      out.push(all[offset]);
      return;
    }
    for (let i = start[d]; i < start[d] + count[d]; i++) visit(d + 1, offset * shape[d] + i);
  };
  visit(0, 0);
  return out;
}
