/**
 * zstd frames made in the compressor's own memory (io/zstdCodec.ts zstdFrame) decode, with
 * numcodecs (another build of zstd), to the bytes given, chunk after chunk as they grow and
 * shrink; and they are made there on this install, not copied out (the package's internal
 * module is what it expects: a change to it would lose the speed, not the frames).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Zstd from "numcodecs/zstd";
import { loadZstd, zstdEncode, zstdFrame } from "../../src/io/zstdCodec.js";

/** Float32 values with noise, as an anomaly's chunk: they compress a little. */
function chunkOf(values: number, seed: number): Uint8Array {
  const f = Float32Array.from({ length: values }, (_, i) => Math.sin(i * 0.37 + seed) * 3 + ((i * 7919 + seed) % 1000) / 1000);
  return new Uint8Array(f.buffer);
}

describe("zstd frames in the compressor's memory", () => {
  it("decode to the chunk given, through growing and shrinking chunks, each valid until the next", async () => {
    await loadZstd();
    const decoder = Zstd.fromConfig({ id: "zstd", level: 1 });
    for (const [values, seed] of [
      [1000, 1],
      [259200, 2],
      [10, 3],
      [2 * 259200, 4],
      [259200, 5],
    ]) {
      const chunk = chunkOf(values, seed);
      const frame = zstdFrame(chunk, 1);
      const copy = frame.slice(); // the frame is the compressor's until its next call
      assert.deepEqual(await decoder.decode(copy), chunk, `${values} values`);
      assert.deepEqual(copy, await zstdEncode(chunk, 1), `${values} values: the frame compress makes`);
    }
  });

  it("are views of the compressor's memory on this install, not fresh arrays", async () => {
    await loadZstd();
    const first = zstdFrame(chunkOf(4096, 6), 1);
    const second = zstdFrame(chunkOf(4096, 7), 1);
    assert.equal(first.buffer, second.buffer, "one memory for both");
    assert.ok(first.buffer.byteLength > first.byteLength, "a view into it, not an array of its own");
  });
});
