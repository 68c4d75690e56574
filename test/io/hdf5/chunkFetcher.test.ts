/**
 * Chunks fetched aside (io/hdf5/chunkFetcher.ts: read and inflated on a thread of their own,
 * the rest of their filters undone on the reading thread): the values h5wasm wrote (deflate
 * alone: h5wasm writes no shuffle), the same bits as read on the calling thread; the deflated
 * and shuffled NetCDF-4 golden (its chunks fetched whatever their size) to h5wasm's values,
 * into the heap and into a kernel's run with the rows reversed; only chunks big enough travel; a file
 * closed while fetches are pending waits for them, and hands out nothing after (a damaged
 * chunk fetched aside: bigChunks.test.ts).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import h5wasm from "h5wasm/node";
import { allowHdf5, guardedH5wasm } from "../../../src/io/hdf5Guard.js";
import { chunksFetchedAside, fetchChunksAside } from "../../../src/io/hdf5/chunkFetcher.js";
import { openHdf5Chunks } from "../../../src/io/hdf5/index.js";
import { KernelArena, RunInput, kernelModule } from "../../../src/kernels/arena.js";
import { WASM_BASE64 } from "../../../src/kernels/linearSums.wasm.js";
import { BIG_COLUMNS, BIG_ROWS, bigChunkValue, writeBigChunksFile } from "../../helpers/bigChunksFile.js";

/** 1096 chunks of 1 × 4 × 5 float32, deflated and shuffled. */
const SHUFFLED = new URL("../../golden/analysis/daily_nc4.nc", import.meta.url).pathname;
const [T, H, W] = [4, BIG_ROWS, BIG_COLUMNS];
const expected = bigChunkValue;

describe("chunks fetched aside", () => {
  let dir = "";
  let file = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-fetcher-"));
    file = join(dir, "big.h5");
    // Chunks of 1 × 8 × 280 in "small": 8,960 bytes, below the size worth a trip to the thread.
    await writeBigChunksFile(file, T, { deflated: [1, H, W], small: [1, 8, W] });
  });
  afterEach(() => fetchChunksAside(false));
  after(() => rm(dir, { recursive: true, force: true }));

  it("reads deflated chunks there to the values written, the same bits as here", async () => {
    const h5 = await openHdf5Chunks(file);
    const ds = (await h5.dataset("deflated"))!;
    const here = await ds.read([0, 0, 0], [T, H, W]);
    const before = chunksFetchedAside();
    fetchChunksAside(true);
    const aside = await ds.read([0, 0, 0], [T, H, W]);
    assert.equal(chunksFetchedAside() - before, T, "every chunk fetched aside");
    assert.deepEqual(aside, here);
    for (let i = 0; i < aside.length; i += 997)
      assert.equal(aside[i], expected(Math.floor(i / (H * W)), Math.floor(i / W) % H, i % W), `value ${i}`);
    const one = await ds.read([2, 0, 0], [1, H, W]); // one chunk: decoded into the returned array
    assert.deepEqual(one, here.subarray(2 * H * W, 3 * H * W));
    const cut = await ds.read([0, 100, 7], [T, 2, 5]); // through every chunk: copied from each
    const want: number[] = [];
    for (let t = 0; t < T; t++) for (let r = 100; r < 102; r++) for (let c = 7; c < 12; c++) want.push(expected(t, r, c));
    assert.deepEqual(Array.from(cut), want);
    await h5.close();
  });

  it("unshuffles fetched chunks here to h5wasm's values, into the heap and into a kernel's run with the rows reversed", async () => {
    const h5 = await openHdf5Chunks(SHUFFLED);
    const ds = (await h5.dataset("tas"))!;
    const [times, rows, cols] = ds.shape;
    const want = await h5wasmValues(SHUFFLED, "tas");
    const before = chunksFetchedAside();
    fetchChunksAside(true, 0);
    assert.deepEqual(Array.from(await ds.read([0, 0, 0], [times, rows, cols])), Array.from(want));
    assert.equal(chunksFetchedAside() - before, times, "every chunk fetched aside");
    const { placed: runs } = KernelArena.create(
      kernelModule("linearSums", WASM_BASE64),
      (space) => new RunInput(space, rows * cols, "F32"),
    );
    const into = runs.runArray(rows * cols)!;
    const reversed = await ds.read([9, 0, 0], [1, rows, cols], undefined, into, true);
    assert.equal(chunksFetchedAside() - before, times + 1);
    assert.equal(reversed.buffer, into.buffer, "decoded in the kernel's memory");
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++)
        assert.equal(reversed[r * cols + c], want[9 * rows * cols + (rows - 1 - r) * cols + c], `row ${r} column ${c}`);
    await h5.close();
  });

  it("inflates small chunks where they are read", async () => {
    const h5 = await openHdf5Chunks(file);
    const ds = (await h5.dataset("small"))!;
    fetchChunksAside(true);
    const before = chunksFetchedAside();
    const got = await ds.read([1, 0, 0], [1, H, W]);
    assert.equal(chunksFetchedAside(), before, "no small chunk fetched aside");
    assert.equal(got[5 * W + 9], expected(1, 5, 9));
    await h5.close();
  });

  it("closes a file only once the fetches reading it are done, and fetches nothing after", async () => {
    const h5 = await openHdf5Chunks(file);
    const ds = (await h5.dataset("deflated"))!;
    await ds.chunks(); // the chunk index read first: the reads below go straight to the fetcher
    fetchChunksAside(true);
    const before = chunksFetchedAside();
    const reads = [0, 1, 2, 3].map((t) => ds.read([t, 0, 0], [1, H, W]));
    // Until the reads have handed their chunks to the fetcher (their way there is a few awaits).
    await new Promise((resolve) => setImmediate(resolve));
    let fetchedBeforeClose = -1;
    const closed = h5.close().then(() => void (fetchedBeforeClose = chunksFetchedAside() - before));
    const late = ds.read([0, 0, 0], [1, H, W]);
    late.catch(() => {}); // asserted below
    const got = await Promise.all(reads);
    got.forEach((slice, t) => assert.equal(slice[7 * W + 5], expected(t, 7, 5), `slice ${t}`));
    await closed;
    assert.equal(fetchedBeforeClose, 4, "the file closed before its fetches were done");
    await assert.rejects(late, /closed/);
  });
});

/** A dataset's values as h5wasm reads them (its own HDF5 library, not Strata's chunk reader). */
async function h5wasmValues(path: string, name: string): Promise<Float32Array> {
  await guardedH5wasm();
  const release = allowHdf5(path);
  const file = new h5wasm.File(path, "r");
  try {
    return (file.get(name) as InstanceType<typeof h5wasm.Dataset>).value as Float32Array;
  } finally {
    file.close();
    release();
  }
}
