/**
 * Raw Zarr chunks read by byte ranges (io/zarrRawWindow.ts, through io/zarrRead.ts): windows
 * of arrays written by zarrita (v3, default and v2 chunk keys) and of a v2 store written by
 * hand hold the values of the formula they were written from, a missing chunk the fill
 * value, as zarrita's own get reads them; a slice of a chunk of several is read as its own
 * bytes only (a chunk cut after the slice read still reads); a chunk cut short of a window is
 * a corrupt store; arrays encoded otherwise are not read so.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readdir, rename, rm, truncate, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";
import { CorruptDataError } from "../../src/cube/errors.js";
import { openZarr } from "../../src/io/zarrRead.js";
import { type RangeRead, rawChunksOf, readRawWindow } from "../../src/io/zarrRawWindow.js";

const SHAPE = [10, 7, 12];
const CHUNKS = [4, 3, 5];
/** The value written at (t, y, x). */
const valueAt = (t: number, y: number, x: number) => t * 100 + y * 10 + x - 300;
const FILL = -999;
/** The array as zarrita parses it from either version's metadata. */
const ARRAY = { shape: SHAPE, chunks: CHUNKS };

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-raw-window-"));
});
after(() => rm(dir, { recursive: true, force: true }));

const strides = (shape: readonly number[]) => shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));

function formula(): Int16Array {
  const out = new Int16Array(SHAPE[0] * SHAPE[1] * SHAPE[2]);
  for (let t = 0, i = 0; t < SHAPE[0]; t++)
    for (let y = 0; y < SHAPE[1]; y++) for (let x = 0; x < SHAPE[2]; x++) out[i++] = valueAt(t, y, x);
  return out;
}

/** What a window holds: the formula, or the fill where chunk `missing` is. */
function expected(start: number[], count: number[], missing?: number[]): number[] {
  const out: number[] = [];
  for (let t = start[0]; t < start[0] + count[0]; t++)
    for (let y = start[1]; y < start[1] + count[1]; y++)
      for (let x = start[2]; x < start[2] + count[2]; x++) {
        const inMissing = missing && [t, y, x].every((i, d) => Math.floor(i / CHUNKS[d]) === missing[d]);
        out.push(inMissing ? FILL : valueAt(t, y, x));
      }
  return out;
}

/** A v3 store written by zarrita: raw int16 chunks with the given chunk keys. */
async function zarritaStore(name: string, keys?: { name: "v2"; configuration: { separator: "." } }): Promise<string> {
  const path = join(dir, name);
  const root = await zarr.create(new FileSystemStore(path));
  const arr = await zarr.create(root.resolve("v"), {
    shape: SHAPE,
    chunkShape: CHUNKS,
    dtype: "int16",
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    fillValue: FILL,
  });
  await zarr.set(arr, null, { data: formula(), shape: SHAPE, stride: strides(SHAPE) });
  if (keys) {
    // zarrita writes default keys: the same chunks under v2 keys, as Strata writes them.
    const meta = JSON.parse(await readFile(join(path, "v", "zarr.json"), "utf8"));
    await writeFile(join(path, "v", "zarr.json"), JSON.stringify({ ...meta, chunk_key_encoding: keys }));
    for (const entry of await readdir(join(path, "v", "c"), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const coords = join(entry.parentPath, entry.name)
        .slice(join(path, "v", "c").length + 1)
        .split("/");
      await rename(join(entry.parentPath, entry.name), join(path, "v", coords.join(".")));
    }
    await rm(join(path, "v", "c"), { recursive: true });
  }
  return path;
}

/** A v2 store written by hand: .zarray, raw little-endian chunks of whole size, "." keys. */
async function v2Store(name: string): Promise<string> {
  const path = join(dir, name);
  await mkdir(join(path, "v"), { recursive: true });
  await writeFile(join(path, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
  await writeFile(
    join(path, "v", ".zarray"),
    JSON.stringify({
      zarr_format: 2,
      shape: SHAPE,
      chunks: CHUNKS,
      dtype: "<i2",
      compressor: null,
      filters: null,
      fill_value: FILL,
      order: "C",
    }),
  );
  await writeFile(join(path, "v", ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: ["t", "y", "x"] }));
  const along = SHAPE.map((n, d) => Math.ceil(n / CHUNKS[d]));
  for (let a = 0; a < along[0]; a++)
    for (let b = 0; b < along[1]; b++)
      for (let c = 0; c < along[2]; c++) {
        const chunk = new Int16Array(CHUNKS[0] * CHUNKS[1] * CHUNKS[2]).fill(FILL);
        for (let i = 0, t = 0; t < CHUNKS[0]; t++)
          for (let y = 0; y < CHUNKS[1]; y++)
            for (let x = 0; x < CHUNKS[2]; x++, i++) {
              const at = [a * CHUNKS[0] + t, b * CHUNKS[1] + y, c * CHUNKS[2] + x];
              if (at.every((v, d) => v < SHAPE[d])) chunk[i] = valueAt(at[0], at[1], at[2]);
            }
        await writeFile(join(path, "v", `${a}.${b}.${c}`), new Uint8Array(chunk.buffer));
      }
  return path;
}

const WINDOWS: [number[], number[]][] = [
  [
    [0, 0, 0],
    [10, 7, 12],
  ],
  [
    [5, 0, 0],
    [1, 7, 12],
  ],
  [
    [3, 2, 4],
    [3, 4, 6],
  ],
  [
    [0, 6, 11],
    [10, 1, 1],
  ],
  [
    [9, 4, 10],
    [1, 3, 2],
  ],
];

describe("raw chunks read by byte ranges", () => {
  for (const [label, make, missingKey] of [
    ["v3, default keys, written by zarrita", () => zarritaStore("v3"), "c/1/1/2"],
    ["v3, v2 keys", () => zarritaStore("v3keys", { name: "v2", configuration: { separator: "." } }), "1.1.2"],
    ["v2, written by hand", () => v2Store("v2"), "1.1.2"],
  ] as const) {
    it(`read windows as written, a missing chunk as the fill value, as zarrita reads them (${label})`, async () => {
      const path = await make();
      await unlink(join(path, "v", missingKey));
      const ds = await openZarr(path);
      const v = ds.variables.find((x) => x.name === "v")!;
      const store = new FileSystemStore(path);
      const arr = await zarr.open(zarr.root(store).resolve("v"), { kind: "array" });
      for (const [start, count] of WINDOWS) {
        const got = Array.from(await v.read(start, count));
        assert.deepEqual(got, expected(start, count, [1, 1, 2]), `${label}: [${start}] + [${count}]`);
        const theirs = await zarr.get(
          arr,
          start.map((s, d) => zarr.slice(s, s + count[d])),
        );
        assert.deepEqual(got, Array.from(theirs.data as Int16Array), `${label}: as zarrita reads [${start}] + [${count}]`);
      }
    });
  }

  it("read of each chunk only the span of the window: one slice of a chunk of four is one slice's bytes", async () => {
    const raw = rawChunksOf(
      {
        chunk_key_encoding: { name: "v2", configuration: { separator: "." } },
        codecs: [{ name: "bytes", configuration: { endian: "little" } }],
      },
      false,
      "/v",
      ARRAY,
      "int16",
    )!;
    const asked: [string, number, number][] = [];
    const read: RangeRead = async (key, offset, length) => {
      asked.push([key, offset, length]);
      return new Uint8Array(length);
    };
    const queue = {
      tasks: [] as Promise<void>[],
      add(fn: () => Promise<void>) {
        this.tasks.push(fn());
      },
      onIdle() {
        return Promise.all(this.tasks);
      },
    };
    await readRawWindow(raw, read, [5, 0, 0], [1, 3, 5], FILL, queue);
    // Slice 5 is the chunk's second (of 4): 15 values of 2 bytes from byte 30.
    assert.deepEqual(asked, [["/v/1.0.0", 30, 30]]);
    asked.length = 0;
    await readRawWindow(raw, read, [4, 1, 2], [2, 1, 2], FILL, queue);
    // Slices 4-5, row 1, columns 2-3: from (0, 1, 2) to (1, 1, 3) in the chunk, values 7 to 23.
    assert.deepEqual(asked, [["/v/1.0.0", 14, 34]]);
  });

  it("take a chunk cut short for a corrupt store, and leave arrays encoded otherwise to zarrita", async () => {
    const path = await v2Store("short");
    // Chunk 2.0.0 (slices 8-11) cut after its first slice: slice 8 is all a reader of it reads.
    await truncate(join(path, "v", "2.0.0"), 2 * 3 * 5);
    const v = (await openZarr(path)).variables.find((x) => x.name === "v")!;
    assert.deepEqual(Array.from(await v.read([8, 0, 0], [1, 3, 5])), expected([8, 0, 0], [1, 3, 5]), "read by its range alone");
    await assert.rejects(v.read([9, 0, 0], [1, 3, 5]), CorruptDataError);
    assert.deepEqual(Array.from(await v.read([0, 0, 0], [1, 1, 2])), expected([0, 0, 0], [1, 1, 2]), "the others read");

    const v2 = { dtype: "<i2", compressor: null, filters: null, order: "C" };
    assert.ok(rawChunksOf(v2, true, "/v", ARRAY, "int16"));
    assert.equal(rawChunksOf({ ...v2, compressor: { id: "zstd", level: 1 } }, true, "/v", ARRAY, "int16"), undefined, "compressed");
    assert.equal(rawChunksOf({ ...v2, dtype: ">i2" }, true, "/v", ARRAY, "int16"), undefined, "big-endian");
    assert.equal(rawChunksOf({ ...v2, order: "F" }, true, "/v", ARRAY, "int16"), undefined, "Fortran order");
    assert.equal(rawChunksOf({ ...v2, filters: [{ id: "shuffle" }] }, true, "/v", ARRAY, "int16"), undefined, "filtered");
    const v3 = {
      chunk_key_encoding: { name: "default" },
      codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    };
    assert.ok(rawChunksOf(v3, false, "/v", ARRAY, "int16"));
    assert.equal(
      rawChunksOf({ ...v3, codecs: [...v3.codecs, { name: "zstd", configuration: { level: 1 } }] }, false, "/v", ARRAY, "int16"),
      undefined,
      "zstd",
    );
    assert.equal(
      rawChunksOf({ ...v3, codecs: [{ name: "bytes", configuration: { endian: "big" } }] }, false, "/v", ARRAY, "int16"),
      undefined,
      "big-endian",
    );
  });
});
