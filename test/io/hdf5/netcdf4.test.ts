/**
 * openNetcdf4 reads values through the chunk reader (its `reader` says so) and they equal what
 * h5wasm reads from the same files, an independent HDF5 implementation: the real NetCDF-4
 * fixtures, the golden inputs and the chunk-index fixtures. A chunk the chunk reader refuses
 * (a skipped filter) is read by h5wasm instead, with h5py's values.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import h5wasm from "h5wasm/node";
import type { TypedArray } from "../../../src/cube/types.js";
import { allowHdf5, guardedH5wasm } from "../../../src/io/hdf5Guard.js";
import { type Netcdf4Variable, openNetcdf4 } from "../../../src/io/netcdf4.js";
import { EXPECTED, FIXTURES, expectedValues, window } from "./expected.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const FILES = [
  "fixtures/real/nc4uvt.nc",
  "golden/io/scaled.nc",
  "golden/analysis/daily_nc4.nc",
  "golden/analysis/hourly_nc4.nc",
  "fixtures/hdf5/netcdf4py.nc",
  "fixtures/hdf5/earliest.h5",
  "fixtures/hdf5/latest.h5",
  "fixtures/hdf5/paged.h5",
];
/** Read by h5wasm because the chunk reader refuses them. */
const H5WASM_ONLY = new Set(["fixtures/hdf5/latest.h5:masked"]);

/** h5wasm's values for a window, straight from the library. */
async function h5wasmWindow(path: string, name: string, start: readonly number[], count: readonly number[]): Promise<TypedArray> {
  await guardedH5wasm();
  const release = allowHdf5(path);
  const file = new h5wasm.File(path, "r");
  try {
    const ds = file.get(name) as InstanceType<typeof h5wasm.Dataset>;
    return ds.slice(start.map((s, i) => [s, s + count[i]] as [number, number])) as TypedArray;
  } finally {
    file.close();
    release();
  }
}

function windows(shape: readonly number[], chunks: readonly number[]): { start: number[]; count: number[] }[] {
  return [
    { start: shape.map(() => 0), count: shape.slice() },
    { start: shape.map((n) => n - 1), count: shape.map(() => 1) },
    { start: shape.map((n, d) => Math.min(n - 1, Math.max(0, chunks[d] - 1))), count: shape.map(() => 1) },
    {
      start: shape.map((n) => Math.floor(n / 4)),
      count: shape.map((n, d) => Math.max(1, Math.min(n - Math.floor(n / 4), chunks[d] + 1))),
    },
    { start: shape.map(() => 0), count: chunks.map((c, d) => Math.min(c, shape[d])) },
  ];
}

describe("openNetcdf4 reads values with the chunk reader, equal to h5wasm's", () => {
  for (const rel of FILES) {
    const path = ROOT + rel;
    it(rel, { skip: !existsSync(path) && "run scripts/fixtures.sh" }, async () => {
      const ds = await openNetcdf4(path);
      try {
        assert.ok(ds.variables.length > 0);
        for (const v of ds.variables as Netcdf4Variable[]) {
          if (v.shape.length === 0 || v.shape.some((n) => n === 0)) continue;
          for (const w of windows(v.shape, v.chunkShape)) {
            const ours = await v.read(w.start, w.count);
            const expectedReader = H5WASM_ONLY.has(`${rel}:${v.name}`) ? "h5wasm" : "chunks";
            assert.equal(v.reader, expectedReader, `${v.name} read by ${v.reader}`);
            const theirs = await h5wasmWindow(path, v.name, w.start, w.count);
            assert.equal(ours.constructor, theirs.constructor, v.name);
            assert.deepEqual(ours, theirs, `${v.name} [${w.start}] + [${w.count}]`);
          }
        }
      } finally {
        await ds.close();
      }
    });
  }

  it("a chunk stored with its filter skipped falls back to h5wasm, with h5py's values", async () => {
    const ds = await openNetcdf4(FIXTURES + "latest.h5");
    try {
      const v = ds.variables.find((x) => x.name === "masked") as Netcdf4Variable;
      const all = expectedValues(EXPECTED["latest.h5"].masked);
      assert.deepEqual(Array.from(await v.read([0, 0], [2, 4])), window(all, [4, 4], [0, 0], [2, 4]));
      assert.equal(v.reader, "chunks");
      assert.deepEqual(await v.read([0, 0], [4, 4]), all);
      assert.equal(v.reader, "h5wasm");
    } finally {
      await ds.close();
    }
  });
});
