/**
 * A chunk's file (io/chunkFile.ts) holds exactly the bytes given, however many write calls
 * they take (at most 1 MiB each): a new file, a file written over whole (cut to the new
 * length), and bytes written into a file at an offset, the rest of it left as it was.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeChunkFile } from "../../src/io/chunkFile.js";

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-chunk-file-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** `length` bytes that differ from piece to piece and within each (a piece written twice, or skipped, shows). */
function pattern(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 7 + Math.floor(i / 1021) + seed) % 251);
}

describe("a chunk's file", () => {
  it("holds the bytes given, in pieces or not, and is cut to them when written whole again", async () => {
    const path = join(dir, "a", "0.0.0");
    const big = pattern(2.5 * 1024 * 1024 + 3, 1);
    writeChunkFile(path, big);
    assert.ok((await readFile(path)).equals(big), "a new file, its directory made");
    const small = pattern(1000, 2);
    writeChunkFile(path, small);
    assert.ok((await readFile(path)).equals(small), "written whole again: nothing of the longer file is left");
  });

  it("writes bytes into a file at an offset, leaving the rest as it was", async () => {
    const path = join(dir, "kept");
    const before = pattern(3 * 1024 * 1024, 3);
    await writeFile(path, before);
    const part = pattern(1024 * 1024 + 17, 4);
    const at = 1024 * 1024 - 5;
    writeChunkFile(path, part, at);
    const expected = Buffer.from(before);
    expected.set(part, at);
    assert.ok((await readFile(path)).equals(expected));
    writeChunkFile(join(dir, "fresh"), part, 10);
    const fresh = await readFile(join(dir, "fresh"));
    assert.equal(fresh.length, 10 + part.length, "made when missing, from that byte on");
    assert.ok(fresh.subarray(10).equals(part));
  });
});
