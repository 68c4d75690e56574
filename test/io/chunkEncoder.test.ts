/**
 * The chunk encoder (io/chunkEncoder.ts): chunks put faster than its thread encodes them go
 * partly to the caller's thread; either way each file holds its own chunk (raw or zstd), a
 * kept block's chunks land at their places in one file, and each chunk's summary is its own
 * chunk's, computed by whichever thread encoded it. The encoder a job of one thread uses
 * (encoderOnThisThread) writes the same files, each before its put resolves. Chunks in shared
 * memory are written from there (putShared) by either encoder; a failure to write one names
 * its code, not the path.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Zstd from "numcodecs/zstd";
import { CHUNK_STATISTICS, type StatisticsPart } from "../../src/analysis/statistics.js";
import { chunkEncoder, encoderOnThisThread } from "../../src/io/chunkEncoder.js";

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-chunk-encoder-"));
});
after(() => rm(dir, { recursive: true, force: true }));

const VALUES = 256 * 1024; // 1 MB chunks: zstd keeps the encoder's thread behind
const chunkOf = (k: number) => Float32Array.from({ length: VALUES }, (_, i) => ((i * 7919 + k * 104729) % 1000) / 10 - k);

describe("the chunk encoder", () => {
  for (const [name, encoderOf] of [
    ["on either thread", chunkEncoder],
    ["on this thread alone", encoderOnThisThread],
  ] as const)
    for (const level of [3, null])
      for (const shared of [false, true]) {
        it(`writes and summarizes each of many chunks put at once, ${name} (${level === null ? "raw" : `zstd ${level}`}${shared ? ", from shared memory" : ""})`, async () => {
          const encoder = encoderOf();
          const puts = [];
          const at = join(dir, `${encoderOf.name}-${level}-${shared}`);
          // Each chunk at its place in one shared memory, 16 bytes in, as a kernel's arrays are.
          const memory = new Float32Array(new SharedArrayBuffer(4 * (32 * VALUES + 4)), 16, 32 * VALUES);
          for (let k = 0; k < 32; k++) {
            const chunk = chunkOf(k);
            const summarize = { summarizer: CHUNK_STATISTICS, type: "Float32Array", shape: [VALUES], extent: [VALUES] };
            const path = join(at, `${k}`);
            let put;
            if (shared) {
              memory.set(chunk, k * VALUES);
              const bytes = new Uint8Array(memory.buffer, memory.byteOffset + 4 * k * VALUES, 4 * VALUES);
              put = await encoder.putShared(path, bytes, { level, summarize });
            } else put = await encoder.put(path, chunk.byteLength, (b) => new Float32Array(b).set(chunk), { level, summarize });
            // On this thread alone the chunk is written before put resolves.
            if (encoderOf === encoderOnThisThread) assert.equal((await stat(join(at, `${k}`))).isFile(), true, `chunk ${k} written`);
            puts.push(put);
          }
          await Promise.all(puts.map((p) => p.written));
          const decoder = Zstd.fromConfig({ id: "zstd", level: 3 });
          for (const [k, put] of puts.entries()) {
            const bytes = await readFile(join(at, `${k}`));
            const raw = level === null ? bytes : await decoder.decode(bytes);
            const values = new Float32Array(raw.buffer, raw.byteOffset, VALUES);
            assert.deepEqual(values, chunkOf(k), `chunk ${k}`);
            // Its count, extremes and mean from the chunk itself.
            const summary = (await put.summary) as StatisticsPart;
            let [min, max, sum] = [Infinity, -Infinity, 0];
            for (const x of chunkOf(k)) [min, max, sum] = [Math.min(min, x), Math.max(max, x), sum + x];
            assert.deepEqual([summary.count, summary.min, summary.max], [VALUES, min, max], `chunk ${k}'s summary`);
            assert.ok(Math.abs(summary.mean - sum / VALUES) < 1e-9, `chunk ${k}'s mean`);
          }
        });
      }

  it("writes chunks of several megabytes (a raw chunk of a whole run), one larger than all it may hold in hand", async () => {
    const encoder = chunkEncoder();
    const values = 5 * VALUES; // 5 MB: three of them pass the 16 MiB it holds
    const big = (k: number) => Float32Array.from({ length: values }, (_, i) => (i % 1000) - k);
    const puts = [];
    for (let k = 0; k < 5; k++) {
      puts.push(
        await encoder.put(join(dir, "big", `${k}`), 4 * values, (b) => new Float32Array(b, 0, values).set(big(k)), { level: null }),
      );
    }
    const huge = 5 * values; // 25 MB: more than it may hold, yet written
    puts.push(await encoder.put(join(dir, "big", "huge"), 4 * huge, (b) => new Float32Array(b, 0, huge).fill(7), { level: null }));
    await Promise.all(puts.map((p) => p.written));
    for (let k = 0; k < 5; k++) {
      const bytes = await readFile(join(dir, "big", `${k}`));
      assert.deepEqual(new Float32Array(bytes.buffer, bytes.byteOffset, values), big(k), `chunk ${k}`);
    }
    assert.equal((await readFile(join(dir, "big", "huge"))).length, 4 * huge);
  });

  for (const [name, encoderOf] of [
    ["on its thread", chunkEncoder],
    ["on this thread alone", encoderOnThisThread],
  ] as const)
    it(`fails a chunk from shared memory that cannot be written with its code, not its path, ${name}`, async () => {
      const bytes = new Uint8Array(new SharedArrayBuffer(4096));
      const file = join(dir, `shared-blocked-${encoderOf.name}`);
      await writeFile(file, "");
      // A file where the path wants a directory.
      const { written } = await encoderOf().putShared(join(file, "chunk"), bytes, { level: null });
      await assert.rejects(written, (e: Error) => /could not be written \(ENOTDIR\)/.test(e.message) && !e.message.includes(dir));
    });

  it("on this thread alone, puts made at once each write their own chunk (one buffer serves them all)", async () => {
    const encoder = encoderOnThisThread();
    const at = join(dir, "at-once");
    const summarize = { summarizer: CHUNK_STATISTICS, type: "Float32Array", shape: [VALUES], extent: [VALUES] };
    const memory = new Float32Array(new SharedArrayBuffer(4 * VALUES));
    memory.set(chunkOf(9));
    const puts = await Promise.all([
      ...[0, 1, 2].map((k) =>
        encoder.put(join(at, `${k}`), 4 * VALUES, (b) => new Float32Array(b).set(chunkOf(k)), { level: 3, summarize }),
      ),
      encoder.putShared(join(at, "9"), new Uint8Array(memory.buffer), { level: 3, summarize }),
    ]);
    await Promise.all(puts.map((p) => p.written));
    const decoder = Zstd.fromConfig({ id: "zstd", level: 3 });
    for (const k of [0, 1, 2, 9]) {
      const raw = await decoder.decode(await readFile(join(at, `${k}`)));
      assert.deepEqual(new Float32Array(raw.buffer, raw.byteOffset, VALUES), chunkOf(k), `chunk ${k}`);
    }
  });

  it("writes a kept block's chunks at their places in one file, in whatever order they are written", async () => {
    const encoder = chunkEncoder();
    const path = join(dir, "block");
    const puts = [];
    for (const k of [3, 0, 2, 1, 5, 4, 7, 6, 9, 8, 11, 10]) {
      const chunk = chunkOf(k);
      puts.push(
        await encoder.put(path, chunk.byteLength, (b) => new Float32Array(b).set(chunk), { level: null, at: k * chunk.byteLength }),
      );
    }
    await Promise.all(puts.map((p) => p.written));
    const bytes = await readFile(path);
    assert.equal(bytes.length, 12 * 4 * VALUES);
    for (let k = 0; k < 12; k++)
      assert.deepEqual(new Float32Array(bytes.buffer, bytes.byteOffset + k * 4 * VALUES, VALUES), chunkOf(k), `chunk ${k}`);
  });
});
