/**
 * The chunk reader against h5py on files covering every chunk index (B-tree v1, single,
 * implicit, fixed array paged and not, extensible array, B-tree v2), contiguous and compact
 * storage, deflate, shuffle, fletcher32, big-endian types, edge chunks, unallocated chunks,
 * nested, compact and dense groups, and a netCDF4-python file.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openHdf5Chunks, Hdf5UnsupportedError } from "../../../src/io/hdf5/index.js";
import { EXPECTED, FIXTURES, expectedValues, window } from "./expected.js";

/** Datasets h5py reads but this reader must refuse (and the caller then reads with h5wasm). */
const REFUSED: Record<string, RegExp> = { masked: /filters skipped/ };

/**
 * A handful of windows: a single element, one across chunk edges, the last edge chunk's corner,
 * the whole array and its first two chunks' worth along the first dimension (whole chunks
 * there decode straight into the window).
 */
function windows(shape: readonly number[], chunks: readonly number[]): { start: number[]; count: number[] }[] {
  if (shape.length === 0 || shape.some((n) => n === 0)) return [];
  const across = shape.map((n, d) => {
    const start = Math.min(n - 1, Math.max(0, chunks[d] - 1));
    return [start, Math.max(1, Math.min(n - start, chunks[d] + 2))];
  });
  const edge = shape.map((n, d) => {
    const start = Math.floor((n - 1) / chunks[d]) * chunks[d];
    return [start, n - start];
  });
  return [
    { start: shape.map((n) => n - 1), count: shape.map(() => 1) },
    { start: shape.map(() => 0), count: shape.map(() => 1) },
    { start: across.map((w) => w[0]), count: across.map((w) => w[1]) },
    { start: edge.map((w) => w[0]), count: edge.map((w) => w[1]) },
    { start: shape.map((n) => Math.floor(n / 3)), count: shape.map((n) => Math.max(1, Math.ceil(n / 2) - 1)) },
    { start: shape.map(() => 0), count: [...shape] },
    { start: shape.map(() => 0), count: shape.map((n, d) => (d === 0 ? Math.min(n, 2 * chunks[0]) : n)) },
  ];
}

for (const [file, datasets] of Object.entries(EXPECTED)) {
  describe(`chunk reader on ${file}`, () => {
    for (const [path, entry] of Object.entries(datasets)) {
      it(path, async () => {
        const h5 = await openHdf5Chunks(FIXTURES + file);
        try {
          const ds = await h5.dataset(path);
          assert.ok(ds, `${path} found`);
          const all = expectedValues(entry);
          if (REFUSED[path]) {
            await assert.rejects(
              ds.read(
                entry.shape.map(() => 0),
                entry.shape,
              ),
              (e: Error) => e instanceof Hdf5UnsupportedError && REFUSED[path].test(e.message),
            );
            return;
          }
          assert.deepEqual(ds.shape, entry.shape);
          if (entry.chunks) assert.deepEqual(ds.chunkShape, entry.chunks);
          const full = await ds.read(
            entry.shape.map(() => 0),
            entry.shape,
          );
          assert.equal(full.constructor, all.constructor);
          assert.deepEqual(full, all);
          for (const w of windows(entry.shape, entry.chunks ?? entry.shape)) {
            const got = await ds.read(w.start, w.count);
            assert.deepEqual(Array.from(got), window(all, entry.shape, w.start, w.count), `window ${w.start} + ${w.count}`);
          }
        } finally {
          await h5.close();
        }
      });
    }
  });
}
