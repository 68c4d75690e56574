/**
 * The chunk reader's promises beyond equal values: the fixtures exercise every chunk index,
 * a whole-chunk read decodes one chunk, several chunks decode concurrently, refusals name
 * their reason, and damaged files fail with a clear error rather than a crash or a hang.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CorruptDataError } from "../../../src/cube/errors.js";
import { deflateSync } from "node:zlib";
import { open } from "node:fs/promises";
import h5wasm from "h5wasm/node";
import { allowHdf5, guardedH5wasm } from "../../../src/io/hdf5Guard.js";
import { decodeChunk } from "../../../src/io/hdf5/filters.js";
import { Hdf5FormatError, Hdf5UnsupportedError, openHdf5Chunks } from "../../../src/io/hdf5/index.js";
import { Hdf5Source } from "../../../src/io/hdf5/source.js";
import { EXPECTED, FIXTURES, expectedValues, window } from "./expected.js";

const HOSTILE = new URL("../../fixtures/hostile/", import.meta.url).pathname;

describe("chunk reader", () => {
  it("the fixtures cover every chunk index and storage", async () => {
    const seen = new Set<string>();
    for (const [file, datasets] of Object.entries(EXPECTED)) {
      const h5 = await openHdf5Chunks(FIXTURES + file);
      for (const path of Object.keys(datasets)) {
        const ds = (await h5.dataset(path))!;
        seen.add(ds.chunkIndex ?? ds.storage);
      }
      await h5.close();
    }
    assert.deepEqual([...seen].sort(), [
      "btreeV1",
      "btreeV2",
      "compact",
      "contiguous",
      "extensibleArray",
      "fixedArray",
      "implicit",
      "single",
    ]);
  });

  it("reads one whole chunk with one chunk read, and each chunk of a window once", async () => {
    const h5 = await openHdf5Chunks(FIXTURES + "netcdf4py.nc");
    const ds = (await h5.dataset("var0"))!;
    const all = expectedValues(EXPECTED["netcdf4py.nc"].var0);
    const one = await ds.read([3, 0, 0], [1, 6, 8]);
    assert.equal(ds.chunksRead, 1);
    assert.deepEqual(Array.from(one), window(all, [5, 6, 8], [3, 0, 0], [1, 6, 8]));
    await ds.read([1, 2, 3], [3, 2, 2]);
    assert.equal(ds.chunksRead, 4);
    await h5.close();
  });

  it("reads chunks stored one after another with one read a run, to h5wasm's values", async () => {
    // 1096 chunks of 1 × 4 × 5 (deflate and shuffle), the chunk index's nodes between them.
    const path = new URL("../../golden/analysis/daily_nc4.nc", import.meta.url).pathname;
    const h5 = await openHdf5Chunks(path);
    const ds = (await h5.dataset("tas"))!;
    const [times, rows, cols] = ds.shape;
    const one = await ds.read([7, 0, 0], [1, rows, cols]);
    assert.equal(ds.chunkReadCalls, 1, "a whole-chunk read is one read");
    // A window cutting through every chunk, so each is copied from its run into place.
    const window = await ds.read([5, 1, 1], [1000, 3, 3]);
    assert.equal(ds.chunksRead, 1001);
    assert.ok(ds.chunkReadCalls - 1 <= 2, `${ds.chunkReadCalls - 1} reads for 1000 chunks`);
    await h5.close();
    await guardedH5wasm();
    const release = allowHdf5(path);
    const file = new h5wasm.File(path, "r");
    try {
      const tas = file.get("tas") as InstanceType<typeof h5wasm.Dataset>;
      assert.equal(times, 1096);
      assert.deepEqual(
        Array.from(window),
        Array.from(
          tas.slice([
            [5, 1005],
            [1, 4],
            [1, 4],
          ]) as Float32Array,
        ),
      );
      assert.deepEqual(
        Array.from(one),
        Array.from(
          tas.slice([
            [7, 8],
            [0, rows],
            [0, cols],
          ]) as Float32Array,
        ),
      );
    } finally {
      file.close();
      release();
    }
  });

  it("missing datasets are undefined and unsupported filters are named", async () => {
    const h5 = await openHdf5Chunks(FIXTURES + "latest.h5");
    assert.equal(await h5.dataset("no/such"), undefined);
    await h5.close();
    const lzf = await openHdf5Chunks(HOSTILE + "lzf_filter.h5");
    await assert.rejects(
      lzf.dataset("tas"),
      (e: Error) => e instanceof Hdf5UnsupportedError && /HDF5 filter 32000 \(lzf\)/.test(e.message),
    );
    await lzf.close();
  });

  it("refuses a window outside the shape", async () => {
    const h5 = await openHdf5Chunks(FIXTURES + "earliest.h5");
    const ds = (await h5.dataset("deflate"))!;
    await assert.rejects(ds.read([15, 0], [6, 1]), RangeError);
    await h5.close();
  });

  describe("damaged files", () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "strata-hdf5-"));
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    async function failure(bytes: Uint8Array, path: string): Promise<Error> {
      const file = join(dir, `f${Math.random().toString(36).slice(2)}.h5`);
      await writeFile(file, bytes);
      try {
        const h5 = await openHdf5Chunks(file);
        try {
          const ds = await h5.dataset(path);
          await ds?.read(
            ds.shape.map(() => 0),
            ds.shape,
          );
          assert.fail("read a damaged file");
        } finally {
          await h5.close();
        }
      } catch (e) {
        assert.ok(e instanceof Error && !(e instanceof assert.AssertionError), String(e));
        return e;
      }
    }

    it("a file that is not HDF5", async () => {
      const e = await failure(new Uint8Array(3000).fill(7), "x");
      assert.ok(e instanceof CorruptDataError);
      assert.match(e.message, /not an HDF5 file/);
    });

    it("the signature followed by junk", async () => {
      const e = await failure(await readFile(HOSTILE + "junk_after_signature.h5"), "x");
      assert.ok(e instanceof Hdf5FormatError || e instanceof Hdf5UnsupportedError, `${e.constructor.name}: ${e.message}`);
    });

    for (const keep of [200, 1500, 4000, 20000]) {
      it(`latest.h5 cut after ${keep} bytes`, async () => {
        const bytes = (await readFile(FIXTURES + "latest.h5")).subarray(0, keep);
        const e = await failure(bytes, "earray");
        assert.ok(e instanceof CorruptDataError, `${e.constructor.name}: ${e.message}`);
      });
    }

    it("chunk data overwritten with garbage", async () => {
      const bytes = new Uint8Array(await readFile(FIXTURES + "earliest.h5"));
      const h5 = await openHdf5Chunks(FIXTURES + "earliest.h5");
      const chunks = await (await h5.dataset("deflate"))!.chunks();
      await h5.close();
      bytes.fill(0x5a, chunks[0].address, chunks[0].address + chunks[0].size);
      const e = await failure(bytes, "deflate");
      assert.ok(e instanceof CorruptDataError);
      assert.match(e.message, /does not inflate/);
    });
  });
});

const DEFLATE = { id: 1, name: "deflate", optional: false, clientData: [] };

describe("chunk reader, against crafted sizes", () => {
  it("a chunk that inflates beyond a chunk's worth is damaged data, not a large allocation", () => {
    const bomb = deflateSync(new Uint8Array(64 * 1024 * 1024)); // 64 MB of zeros in ~64 KB
    // Stopped while inflating (unbounded, it would inflate whole, then fail the size check).
    for (const chunkBytes of [4096, 1024 * 1024]) {
      assert.throws(
        () => decodeChunk(bomb, [DEFLATE], 0, chunkBytes, 4),
        (e: unknown) => {
          assert.ok(e instanceof Hdf5FormatError);
          assert.match(e.message, /does not inflate/);
          return true;
        },
      );
    }
  });

  it("small and large chunks inflate alike", () => {
    for (const values of [2, 1000, 16 * 1024, 16 * 1024 + 1, 300_000]) {
      const data = Float32Array.from({ length: values }, (_, i) => Math.sin(i) * 100);
      const bytes = new Uint8Array(data.buffer);
      const decoded = decodeChunk(deflateSync(bytes), [DEFLATE], 0, bytes.length, 4);
      assert.deepEqual(new Uint8Array(decoded), bytes, `${values} values`);
      assert.throws(() => decodeChunk(deflateSync(bytes), [DEFLATE], 0, bytes.length - 4, 4), Hdf5FormatError);
    }
  });

  it("a structure whose size lies beyond the file is refused before anything is allocated", async () => {
    const handle = await open(FIXTURES + "latest.h5", "r");
    try {
      const source = new Hdf5Source(handle, (await handle.stat()).size);
      await assert.rejects(source.bytes(0, 2 ** 52), Hdf5FormatError);
      await assert.rejects(source.bytes(-8, 16), Hdf5FormatError);
    } finally {
      await handle.close();
    }
  });
});
