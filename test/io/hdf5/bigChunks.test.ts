/**
 * Big compressed chunks (over 64 KiB decoded, inflated on libuv's pool rather than the
 * calling thread): the values are those h5wasm wrote, for whole chunks and windows cutting
 * through them, and a damaged chunk fails with the reader's error, after which the dataset
 * still reads.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import h5wasm from "h5wasm/node";
import { CorruptDataError } from "../../../src/cube/errors.js";
import { allowHdf5, guardedH5wasm } from "../../../src/io/hdf5Guard.js";
import { openHdf5Chunks } from "../../../src/io/hdf5/index.js";

const [T, H, W] = [3, 300, 280]; // chunks of 1 × 300 × 280 float32: 336,000 bytes
const value = (t: number, r: number, c: number) => Math.fround(t * 1000 + r + c / 1024 + Math.sin(r * c));

describe("big compressed chunks", () => {
  let dir = "";
  let file = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-bigchunks-"));
    file = join(dir, "big.h5");
    await guardedH5wasm();
    const release = allowHdf5(file);
    const h5 = new h5wasm.File(file, "w");
    try {
      const data = Float32Array.from({ length: T * H * W }, (_, i) => value(Math.floor(i / (H * W)), Math.floor(i / W) % H, i % W));
      h5.create_dataset({ name: "v", data, shape: [T, H, W], dtype: "<f", chunks: [1, H, W], compression: "gzip", compression_opts: 1 });
    } finally {
      h5.close();
      release();
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("reads whole chunks and windows to the values written", async () => {
    const h5 = await openHdf5Chunks(file);
    const ds = (await h5.dataset("v"))!;
    assert.deepEqual(ds.chunkShape, [1, H, W]);
    const all = await ds.read([0, 0, 0], [T, H, W]);
    for (let i = 0; i < all.length; i += 997)
      assert.equal(all[i], value(Math.floor(i / (H * W)), Math.floor(i / W) % H, i % W), `value ${i}`);
    const one = await ds.read([1, 0, 0], [1, H, W]); // one chunk: decoded into the returned array
    assert.deepEqual(one, all.subarray(H * W, 2 * H * W));
    const cut = await ds.read([0, 100, 7], [3, 2, 5]); // through every chunk: copied from each decoded chunk
    const want: number[] = [];
    for (let t = 0; t < 3; t++) for (let r = 100; r < 102; r++) for (let c = 7; c < 12; c++) want.push(value(t, r, c));
    assert.deepEqual(Array.from(cut), want);
    await h5.close();
  });

  it("a damaged chunk fails as the reader's error says, and the file still reads after", async () => {
    const h5 = await openHdf5Chunks(file);
    const chunks = await (await h5.dataset("v"))!.chunks();
    await h5.close();
    const bytes = new Uint8Array(await readFile(file));
    const second = chunks.find((c) => c.coords[0] === 1)!;
    bytes.fill(0x5a, second.address, second.address + second.size);
    const damaged = join(dir, "damaged.h5");
    await writeFile(damaged, bytes);
    const bad = await openHdf5Chunks(damaged);
    const ds = (await bad.dataset("v"))!;
    await assert.rejects(ds.read([1, 0, 0], [1, H, W]), (e: Error) => e instanceof CorruptDataError && /does not inflate/.test(e.message));
    const first = await ds.read([0, 0, 0], [1, H, W]);
    assert.equal(first[W + 3], value(0, 1, 3));
    await bad.close();
  });
});
