/**
 * Big compressed chunks (over 64 KiB decoded): the values are those h5wasm wrote, for whole
 * chunks and windows cutting through them, and a damaged chunk fails with the reader's error
 * (naming no path), after which the dataset still reads, whether the chunks inflate on the
 * reading thread or are fetched aside (io/hdf5/chunkFetcher.ts).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import { CorruptDataError } from "../../../src/cube/errors.js";
import { chunksFetchedAside, fetchChunksAside } from "../../../src/io/hdf5/chunkFetcher.js";
import { openHdf5Chunks } from "../../../src/io/hdf5/index.js";
import { BIG_COLUMNS, BIG_ROWS, bigChunkValue, writeBigChunksFile } from "../../helpers/bigChunksFile.js";

const [T, H, W] = [3, BIG_ROWS, BIG_COLUMNS];
const value = bigChunkValue;

describe("big compressed chunks", () => {
  let dir = "";
  let file = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-bigchunks-"));
    file = join(dir, "big.h5");
    await writeBigChunksFile(file, T, { v: [1, H, W] });
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

  afterEach(() => fetchChunksAside(false));
  for (const aside of [false, true])
    it(`a damaged chunk fails as the reader's error says, and the file still reads after${aside ? ", fetched aside" : ""}`, async () => {
      const h5 = await openHdf5Chunks(file);
      const chunks = await (await h5.dataset("v"))!.chunks();
      await h5.close();
      const bytes = new Uint8Array(await readFile(file));
      const second = chunks.find((c) => c.coords[0] === 1)!;
      bytes.fill(0x5a, second.address, second.address + second.size);
      const damaged = join(dir, `damaged-${aside}.h5`);
      await writeFile(damaged, bytes);
      const bad = await openHdf5Chunks(damaged);
      const ds = (await bad.dataset("v"))!;
      fetchChunksAside(aside);
      const before = chunksFetchedAside();
      await assert.rejects(
        ds.read([1, 0, 0], [1, H, W]),
        (e: Error) => e instanceof CorruptDataError && /does not inflate/.test(e.message) && !e.message.includes(dir),
      );
      const first = await ds.read([0, 0, 0], [1, H, W]);
      assert.equal(first[W + 3], value(0, 1, 3));
      assert.equal(chunksFetchedAside() - before, aside ? 1 : 0, "the chunk that reads, fetched aside or not");
      await bad.close();
    });
});
