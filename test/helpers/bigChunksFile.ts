/**
 * An HDF5 file of big compressed chunks (test/io/hdf5/bigChunks.test.ts, chunkFetcher.test.ts):
 * datasets of `times` × 300 × 280 float32 written by h5wasm, gzip level 1 (h5wasm writes no
 * shuffle), chunks of one time step (336,000 bytes, ~300 KB stored) unless given.
 */
import h5wasm from "h5wasm/node";
import { allowHdf5, guardedH5wasm } from "../../src/io/hdf5Guard.js";

export const [BIG_ROWS, BIG_COLUMNS] = [300, 280];

/** The value at (t, row, column): noisy enough that a chunk stays big once deflated. */
export function bigChunkValue(t: number, r: number, c: number): number {
  return Math.fround(t * 1000 + r + c / 1024 + Math.sin(r * c));
}

/**
 * Write `path` with a dataset of `times` steps for each of `datasets` (name → chunk shape).
 * @example
 * await writeBigChunksFile("/tmp/big.h5", 3, { v: [1, 300, 280] });
 */
export async function writeBigChunksFile(path: string, times: number, datasets: Record<string, number[]>): Promise<void> {
  const [H, W] = [BIG_ROWS, BIG_COLUMNS];
  await guardedH5wasm();
  const release = allowHdf5(path);
  const h5 = new h5wasm.File(path, "w");
  try {
    const data = Float32Array.from({ length: times * H * W }, (_, i) =>
      bigChunkValue(Math.floor(i / (H * W)), Math.floor(i / W) % H, i % W),
    );
    for (const [name, chunks] of Object.entries(datasets))
      h5.create_dataset({ name, data, shape: [times, H, W], dtype: "<f", chunks, compression: "gzip", compression_opts: 1 });
  } finally {
    h5.close();
    release();
  }
}
