/**
 * Whole chunks written directly (io/zarrChunks.ts) are the files zarrita writes for the same
 * block, byte for byte (keys, layout, fill, byte order: both encode through Strata's zstd
 * encoder), and read back as the block through zarrita with numcodecs decoding; edge chunks
 * carry the fill value beyond the array; blocks that are not whole chunks, or of another
 * type, are refused untouched.
 */
import assert from "node:assert/strict";
import { appendFile, mkdtemp, readFile, readdir, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";
import { openChunkWriter } from "../../src/io/zarrChunks.js";
import { CHUNK_STATISTICS, type Statistics } from "../../src/analysis/statistics.js";
import "../../src/io/zarrWrite.js"; // the codec registration Strata's arrays are written with

const CODECS = [
  { name: "bytes", configuration: { endian: "little" } },
  { name: "zstd", configuration: { level: 1, checksum: false } },
];

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-zarr-chunks-"));
});
after(() => rm(dir, { recursive: true, force: true }));

type Keys = { name: "default" | "v2"; configuration: { separator: "/" | "." } };

/** Two arrays of the same shape: one written by zarrita, one directly; chunk keys as `keys` says (zarrita's default otherwise). */
async function pair(
  name: string,
  shape: number[],
  chunkShape: number[],
  dtype: "float32" | "int16" = "float32",
  keys?: Keys,
  codecs: readonly object[] = CODECS,
) {
  const root = await zarr.create(new FileSystemStore(join(dir, name)));
  const make = async (key: string) => {
    const arr = await zarr.create(root.resolve(key), {
      shape,
      chunkShape,
      dtype,
      codecs: codecs as typeof CODECS,
      fillValue: (dtype === "float32" ? NaN : -1) as never,
    });
    if (!keys) return arr;
    // zarrita creates only default keys: rewrite the metadata, as Strata's writer writes its own.
    const file = join(dir, name, key, "zarr.json");
    await writeFile(file, JSON.stringify({ ...JSON.parse(await readFile(file, "utf8")), chunk_key_encoding: keys }));
    return zarr.open.v3(root.resolve(key), { kind: "array" });
  };
  return { viaZarrita: await make("a"), direct: await make("b"), path: join(dir, name) };
}

async function files(path: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(path, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name !== "zarr.json") {
      const full = join(entry.parentPath, entry.name);
      out.set(full.slice(path.length), await readFile(full));
    }
  }
  return out;
}

const strides = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));

describe("whole chunks written directly", () => {
  it("write zarrita's bytes for whole and edge chunks, 3-D and 4-D, and read back as the block", async () => {
    for (const [name, shape, chunkShape] of [
      ["three", [5, 7, 9], [2, 4, 4]],
      ["four", [2, 3, 5, 6], [1, 2, 3, 4]],
    ] as const) {
      const { viaZarrita, direct, path } = await pair(name, [...shape], [...chunkShape]);
      const n = shape.reduce((a: number, b: number) => a * b, 1);
      const data = Float32Array.from({ length: n }, (_, i) => (i % 11 === 0 ? NaN : i * 0.5 - 7));
      await zarr.set(viaZarrita, null, { data, shape: [...shape], stride: strides(shape) });
      const writer = await openChunkWriter(join(path, "b"));
      assert.ok(writer, "an array encoded as Strata's is written directly");
      assert.equal(
        await writer.tryWrite(
          shape.map(() => 0),
          { data, shape },
        ),
        true,
      );
      await writer.flush();
      const [a, b] = [await files(join(path, "a")), await files(join(path, "b"))];
      assert.equal(
        a.size,
        shape.reduce((m: number, s: number, d) => m * Math.ceil(s / chunkShape[d]), 1),
        "every chunk written",
      );
      assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
      for (const [key, bytes] of a) assert.ok(bytes.equals(b.get(key)!), `${name} ${key}`);
      const back = await zarr.get(direct, null);
      assert.deepEqual(Array.from(back.data as Float32Array), Array.from(data));
    }
  });

  it('with v2 chunk keys ("0.0.0", Strata\'s outputs since 2026-11, and "0/0/0" before) write zarrita\'s files under those keys', async () => {
    const shape = [3, 5, 6];
    for (const [separator, expected] of [
      [".", "/2.2.1"],
      ["/", "/2/2/1"],
    ] as const) {
      const { viaZarrita, direct, path } = await pair(`v2keys${separator === "." ? "dot" : "slash"}`, shape, [1, 2, 4], "float32", {
        name: "v2",
        configuration: { separator },
      });
      const data = Float32Array.from({ length: 90 }, (_, i) => i - 40);
      await zarr.set(viaZarrita, null, { data, shape, stride: strides(shape) });
      const writer = (await openChunkWriter(join(path, "b")))!;
      assert.equal(await writer.tryWrite([0, 0, 0], { data, shape }), true);
      await writer.flush();
      const [a, b] = [await files(join(path, "a")), await files(join(path, "b"))];
      assert.ok(a.has(expected), `zarrita's v2 keys with ${separator}: ${[...a.keys()].join(" ")}`);
      assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
      for (const [key, bytes] of a) assert.ok(bytes.equals(b.get(key)!), `v2 keys ${key}`);
      assert.deepEqual(Array.from((await zarr.get(direct, null)).data as Float32Array), Array.from(data));
    }
  });

  it("write a block of whole chunks at an offset, another type, and refuse blocks that are not whole chunks", async () => {
    const { direct, path } = await pair("offset", [4, 8], [2, 4], "int16");
    const writer = (await openChunkWriter(join(path, "b")))!;
    const block = { data: Int16Array.from([1, 2, 3, 4, 5, 6, 7, 8]), shape: [2, 4] };
    assert.equal(await writer.tryWrite([2, 4], block), true);
    assert.equal(await writer.tryWrite([1, 0], block), false, "not at a chunk's start");
    assert.equal(await writer.tryWrite([0, 0], { data: Int16Array.from([1, 2]), shape: [1, 2] }), false, "part of a chunk");
    assert.equal(await writer.tryWrite([0, 0], { data: new Float32Array(8), shape: [2, 4] }), false, "another type");
    await writer.flush();
    const back = await zarr.get(direct, null);
    assert.deepEqual(Array.from(back.data as Int16Array), [...Array(16).fill(-1), -1, -1, -1, -1, 1, 2, 3, 4, -1, -1, -1, -1, 5, 6, 7, 8]);
  });

  it("write chunks in the background: the block may be reused at once, flush waits for the files", async () => {
    const { direct, path } = await pair("behind", [16, 4, 4], [1, 4, 4]);
    const writer = (await openChunkWriter(join(path, "b")))!;
    const block = new Float32Array(16);
    for (let t = 0; t < 16; t++) {
      block.fill(t); // the same array for every block, as the analyses reuse theirs
      assert.equal(await writer.tryWrite([t, 0, 0], { data: block, shape: [1, 4, 4] }), true);
    }
    await writer.flush();
    const back = await zarr.get(direct, null);
    assert.deepEqual(
      Array.from(back.data as Float32Array),
      Array.from({ length: 256 }, (_, i) => Math.floor(i / 16)),
    );
  });

  it("a chunk that cannot be written fails flush and the next write, with the error's code and no path", async () => {
    const { path } = await pair("lost", [1, 4, 12], [1, 4, 4]);
    const writer = (await openChunkWriter(join(path, "b")))!;
    const block = { data: new Float32Array(16), shape: [1, 4, 4] };
    assert.equal(await writer.tryWrite([0, 0, 0], block), true);
    await writer.flush();
    // The directory of the next chunks becomes a file under the writer (a missing one it makes).
    await rm(join(path, "b", "c"), { recursive: true });
    await writeFile(join(path, "b", "c"), "");
    await writer.tryWrite([0, 0, 4], block);
    await assert.rejects(writer.flush(), (e: Error) => /could not be written \(ENOTDIR\)/.test(e.message) && !e.message.includes(dir));
    await assert.rejects(writer.tryWrite([0, 0, 8], block), /could not be written/);
  });

  it("write raw chunks (context.compression NONE) as zarrita does, read back as the block", async () => {
    const { viaZarrita, direct, path } = await pair("raw", [3, 5, 6], [1, 4, 4], "float32", undefined, [CODECS[0]]);
    const data = Float32Array.from({ length: 90 }, (_, i) => i / 7);
    const block = { data, shape: [3, 5, 6], stride: strides([3, 5, 6]) };
    await zarr.set(viaZarrita, null, block);
    const writer = (await openChunkWriter(join(path, "b")))!;
    assert.equal(await writer.tryWrite([0, 0, 0], { data, shape: [3, 5, 6] }), true);
    await writer.flush();
    const [a, b] = [await files(join(path, "a")), await files(join(path, "b"))];
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
    for (const [key, bytes] of a) assert.ok(bytes.equals(b.get(key)!), key);
    assert.equal(a.get("/c/0/0/0")!.length, 4 * 4 * 4, "a raw chunk is its values' bytes");
    assert.deepEqual(Array.from((await zarr.get(direct, null)).data as Float32Array), Array.from(data));
  });

  it("keep blocks raw apart from the array (zstd or not), one file a block, and take them back once: whole slices, pairs of them with a partial last one, tiles cut at the edges", async () => {
    const data = Float32Array.from({ length: 90 }, (_, i) => i / 7);
    // Chunks of whole slices, of two slices (the last partial) and 4 x 4 tiles (partial at both edges).
    for (const [name, chunks, codecs] of [
      ["slices", [1, 5, 6], CODECS],
      ["pairs", [2, 5, 6], [CODECS[0]]],
      ["tiles", [1, 4, 4], CODECS],
    ] as const) {
      const { path } = await pair(`back-${name}`, [3, 5, 6], [...chunks], "float32", undefined, codecs);
      const kept = join(path, "kept-b");
      const writer = (await openChunkWriter(join(path, "b"), kept))!;
      assert.equal(await writer.keep([0, 0, 0], { data, shape: [3, 5, 6] }), true);
      await writer.flush();
      assert.deepEqual([...(await files(join(path, "b"))).keys()], [], `${name}: the array's chunks are not written`);
      const raw = await files(kept);
      assert.deepEqual([...raw.keys()], ["/c/0/0/0_3x5x6"], `${name}: one file, named by the block's first chunk and its shape`);
      const chunkCount = [3, 5, 6].reduce((n, extent, d) => n * Math.ceil(extent / chunks[d]), 1);
      assert.equal(
        raw.get("/c/0/0/0_3x5x6")!.length,
        chunkCount * 4 * chunks.reduce((n: number, c) => n * c, 1),
        `${name}: the block's chunks, raw, one after another`,
      );

      const into = new Float32Array(90).fill(-1);
      assert.equal(await writer.takeKept([0, 0, 0], [3, 5, 6], into), into, name);
      assert.deepEqual(Array.from(into), Array.from(data), name);
      assert.equal((await files(kept)).size, 0, `${name}: its file removed`);
      assert.equal(await writer.takeKept([0, 0, 0], [3, 5, 6]), undefined, `${name}: taken once`);

      await writer.keep([0, 0, 0], { data, shape: [3, 5, 6] });
      await writer.flush();
      const fresh = await writer.takeKept([0, 0, 0], [3, 5, 6]);
      assert.deepEqual(Array.from(fresh!), Array.from(data), `${name}, no array given`);
    }
  });

  it("keep a block in shared memory (a kernel's) whose chunks are whole slices from where it is (held until written), the file as a copied one", async () => {
    const data = Float32Array.from({ length: 90 }, (_, i) => i / 7);
    const shared = new Float32Array(new SharedArrayBuffer(4 * 100), 40, 90);
    shared.set(data);
    for (const [name, chunks] of [
      ["slices", [1, 5, 6]],
      ["runs", [3, 5, 6]],
      ["tiles", [1, 4, 4]], // not whole slices: copied
    ] as const) {
      const { path } = await pair(`shared-${name}`, [3, 5, 6], [...chunks], "float32", undefined, [CODECS[0]]);
      const copied = (await openChunkWriter(join(path, "b"), join(path, "kept-copied")))!;
      const fromShared = (await openChunkWriter(join(path, "b"), join(path, "kept-shared")))!;
      assert.equal(await copied.keep([0, 0, 0], { data, shape: [3, 5, 6] }), true);
      const held: Promise<unknown>[] = [];
      assert.equal(await fromShared.keep([0, 0, 0], { data: shared, shape: [3, 5, 6] }, (until) => held.push(until)), true);
      assert.equal(held.length, name === "tiles" ? 0 : 1, `${name}: held while kept from shared memory`);
      await Promise.all(held);
      await copied.flush();
      await fromShared.flush();
      assert.deepEqual(await files(join(path, "kept-shared")), await files(join(path, "kept-copied")), name);
      assert.deepEqual(Array.from((await fromShared.takeKept([0, 0, 0], [3, 5, 6]))!), Array.from(data), name);
    }
  });

  it("write a block in shared memory made of whole slices from where it is (held until written), the files and summaries a copied block's", async () => {
    const data = Float32Array.from({ length: 90 }, (_, i) => i / 7 - 5);
    const shared = new Float32Array(new SharedArrayBuffer(4 * 100), 40, 90);
    shared.set(data);
    for (const [name, chunks, codecs] of [
      ["slices, zstd", [1, 5, 6], CODECS],
      ["runs, raw", [3, 5, 6], [CODECS[0]]],
      ["tiles", [1, 4, 4], CODECS], // not whole slices: copied, nothing held
    ] as const) {
      const { viaZarrita, direct, path } = await pair(`shared-write-${name}`, [3, 5, 6], [...chunks], "float32", undefined, codecs);
      await zarr.set(viaZarrita, null, { data, shape: [3, 5, 6], stride: strides([3, 5, 6]) });
      const writer = (await openChunkWriter(join(path, "b")))!;
      const summaries: Promise<unknown>[] = [];
      const held: Promise<unknown>[] = [];
      const take = { summarizer: CHUNK_STATISTICS, take: (part: Promise<unknown>) => summaries.push(part) };
      assert.equal(await writer.tryWrite([0, 0, 0], { data: shared, shape: [3, 5, 6] }, take, (until) => held.push(until)), true);
      assert.equal(held.length, name === "tiles" ? 0 : 1, `${name}: held while written from shared memory`);
      await Promise.all(held);
      await writer.flush();
      assert.deepEqual(await files(join(path, "b")), await files(join(path, "a")), `${name}: zarrita's files`);
      const counts = (await Promise.all(summaries)).map((part) => (part as Statistics).count);
      assert.equal(
        counts.reduce((a, b) => a + b, 0),
        90,
        `${name}: each value in one chunk's summary`,
      );
      if (name !== "tiles") assert.deepEqual(counts, Array(3 / chunks[0]).fill(30 * chunks[0]), `${name}: each chunk's own summary`);
      assert.deepEqual(Array.from((await zarr.get(direct, null)).data as Float32Array), Array.from(data), name);
    }
  });

  it("make a kept block that is one raw chunk that chunk's file, written over in place; a zstd one is removed", async () => {
    const V2: Keys = { name: "v2", configuration: { separator: "." } };
    const data = Float32Array.from({ length: 90 }, (_, i) => i / 7);
    const anomalies = data.map((x) => x - 3);
    // Three slices in a chunk of four (an edge chunk: its fourth slice is fill).
    const { viaZarrita, path } = await pair("claim", [3, 5, 6], [4, 5, 6], "float32", V2, [CODECS[0]]);
    await zarr.set(viaZarrita, null, { data: anomalies, shape: [3, 5, 6], stride: strides([3, 5, 6]) });
    const kept = join(path, "kept-b");
    const writer = (await openChunkWriter(join(path, "b"), kept))!;
    await writer.keep([0, 0, 0], { data, shape: [3, 5, 6] });
    await writer.flush();
    const keptInode = (await stat(join(kept, "0.0.0_3x5x6"))).ino;
    assert.deepEqual(Array.from((await writer.takeKept([0, 0, 0], [3, 5, 6]))!), Array.from(data));
    assert.equal((await files(kept)).size, 0, "the kept file is gone from the kept directory");
    const chunk = join(path, "b", "0.0.0");
    assert.equal((await stat(chunk)).ino, keptInode, "it is the chunk's file now");
    assert.deepEqual(
      Array.from(new Float32Array((await readFile(chunk)).buffer.slice(0, 90 * 4))),
      Array.from(data),
      "holding the kept values until written over",
    );
    assert.equal(await writer.takeKept([0, 0, 0], [3, 5, 6]), undefined, "taken once");
    // A mark past the chunk's bytes: writing over in place leaves it, writing the file anew would not.
    await appendFile(chunk, "MARK");
    assert.equal(await writer.tryWrite([0, 0, 0], { data: anomalies, shape: [3, 5, 6] }), true);
    await writer.flush();
    const over = await readFile(chunk);
    assert.equal((await stat(chunk)).ino, keptInode, "the same file");
    assert.equal(over.subarray(over.length - 4).toString(), "MARK", "written over in place, not made anew");
    assert.ok(
      over.subarray(0, over.length - 4).equals(await readFile(join(path, "a", "0.0.0"))),
      "the bytes zarrita writes, fill included",
    );

    // A pass run again (a fresh writer) finds the block taken, reads its input, and writes the chunk anew.
    await writeFile(chunk, Buffer.alloc(4 * 4 * 5 * 6 + 100, 1)); // as a failed pass may have left it, and longer
    const again = (await openChunkWriter(join(path, "b"), kept))!;
    assert.equal(await again.takeKept([0, 0, 0], [3, 5, 6]), undefined);
    await again.tryWrite([0, 0, 0], { data: anomalies, shape: [3, 5, 6] });
    await again.flush();
    assert.ok((await readFile(chunk)).equals(await readFile(join(path, "a", "0.0.0"))), "rewritten whole, cut to its size");

    const zstd = await pair("claim-zstd", [3, 5, 6], [4, 5, 6], "float32", V2);
    const compressed = (await openChunkWriter(join(zstd.path, "b"), join(zstd.path, "kept-b")))!;
    await compressed.keep([0, 0, 0], { data, shape: [3, 5, 6] });
    await compressed.flush();
    assert.deepEqual(Array.from((await compressed.takeKept([0, 0, 0], [3, 5, 6]))!), Array.from(data));
    assert.deepEqual([...(await files(join(zstd.path, "b"))).keys()], [], "a zstd array's chunk is not its raw kept block");
    assert.equal((await files(join(zstd.path, "kept-b"))).size, 0, "which is removed");
  });

  it("take nothing back when a block is not kept whole, or where nothing may be kept", async () => {
    const data = Float32Array.from({ length: 90 }, (_, i) => i / 7);
    const { path } = await pair("back-missing", [3, 5, 6], [1, 5, 6]);
    const kept = join(path, "kept-b");
    const writer = (await openChunkWriter(join(path, "b"), kept))!;
    await writer.keep([0, 0, 0], { data: data.subarray(0, 60), shape: [2, 5, 6] });
    await writer.keep([2, 0, 0], { data: data.subarray(60), shape: [1, 5, 6] });
    await writer.flush();
    await truncate(join(kept, "c", "0", "0", "0_2x5x6"), 4 * 30 + 8); // its second chunk cut short
    assert.equal(await writer.takeKept([0, 0, 0], [2, 5, 6], new Float32Array(60)), undefined, "cut short");
    assert.equal(await writer.takeKept([0, 0, 0], [3, 5, 6]), undefined, "kept as two blocks, not one");
    assert.deepEqual(
      Array.from((await writer.takeKept([2, 0, 0], [1, 5, 6]))!),
      Array.from(data.subarray(60)),
      "the other block stays kept",
    );
    assert.equal(await writer.keep([0, 1, 0], { data: data.subarray(0, 24), shape: [1, 4, 6] }), false, "not whole chunks");
    // Kept again whole: a block of another shape at the same start finds nothing, and leaves it.
    await writer.keep([0, 0, 0], { data: data.subarray(0, 60), shape: [2, 5, 6] });
    await writer.flush();
    assert.equal(await writer.takeKept([0, 0, 0], [1, 5, 6]), undefined, "another shape");
    assert.deepEqual(Array.from((await writer.takeKept([0, 0, 0], [2, 5, 6]))!), Array.from(data.subarray(0, 60)), "rewritten whole");

    const without = (await openChunkWriter(join(path, "b")))!;
    assert.equal(await without.keep([0, 0, 0], { data, shape: [3, 5, 6] }), false, "no kept directory");
    assert.equal(await without.takeKept([0, 0, 0], [3, 5, 6]), undefined);
  });

  it("summarize each chunk where it is encoded, in the block's order, over the values it holds of the array (not its padding)", async () => {
    // 5 x 7 in 4 x 4 tiles: chunks of 16, 12, 12 and 9 values of the array, the rest padding.
    const { path } = await pair("summaries", [5, 7], [4, 4]);
    const writer = (await openChunkWriter(join(path, "b")))!;
    const data = Float32Array.from({ length: 35 }, (_, i) => (i === 8 ? NaN : i));
    const taken: Promise<unknown>[] = [];
    const summaries = { summarizer: { ...CHUNK_STATISTICS, options: {} }, take: (s: Promise<unknown>) => taken.push(s) };
    assert.equal(await writer.tryWrite([0, 0], { data, shape: [5, 7] }, summaries), true);
    await writer.flush();
    // By hand: rows 0-3 x columns 0-3, 0-3 x 4-6, 4 x 0-3, 4 x 4-6 of i = 7·row + column (i = 8, NaN, left out).
    const region = (rows: number[], cols: number[]) => rows.flatMap((r) => cols.map((c) => 7 * r + c)).filter((i) => i !== 8);
    const expected = [
      region([0, 1, 2, 3], [0, 1, 2, 3]),
      region([0, 1, 2, 3], [4, 5, 6]),
      region([4], [0, 1, 2, 3]),
      region([4], [4, 5, 6]),
    ];
    const got = (await Promise.all(taken)) as Statistics[];
    assert.equal(got.length, 4);
    for (const [k, values] of expected.entries()) {
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
      assert.deepEqual([got[k].count, got[k].min, got[k].max], [values.length, Math.min(...values), Math.max(...values)], `chunk ${k}`);
      assert.ok(Math.abs(got[k].mean - mean) < 1e-12 && Math.abs(got[k].stddev - sd) < 1e-12, `chunk ${k}'s moments`);
    }
  });
  it("leave arrays encoded otherwise to zarrita", async () => {
    const root = await zarr.create(new FileSystemStore(join(dir, "other")));
    await zarr.create(root.resolve("x"), {
      shape: [4],
      chunkShape: [2],
      dtype: "float32",
      codecs: [CODECS[0], { name: "gzip", configuration: { level: 1 } }],
    });
    assert.equal(await openChunkWriter(join(dir, "other", "x")), undefined);
    const { path } = await pair("dashed", [4], [2], "float32", { name: "v2", configuration: { separator: "-" as "." } });
    assert.equal(await openChunkWriter(join(path, "b")), undefined, 'v2 keys separated by "-" (not Zarr\'s)');
  });
});
