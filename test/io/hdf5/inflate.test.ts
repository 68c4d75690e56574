/**
 * The chunk inflater: zlib streams inflated on the calling thread into the reader's memory,
 * through node:zlib's handle where this Node has it and through inflateSync otherwise, the
 * two alike on whole, damaged, truncated and oversized streams; and decodeChunk never hands
 * back the inflater's reused buffer.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deflateSync } from "node:zlib";
import { ChunkInflater } from "../../../src/io/hdf5/inflate.js";
import { decodeChunk } from "../../../src/io/hdf5/filters.js";
import { Hdf5FormatError } from "../../../src/io/hdf5/source.js";
import { KernelArena, RunInput, kernelModule, kernelStagingFor } from "../../../src/kernels/arena.js";
import { WASM_BASE64 } from "../../../src/kernels/linearSums.wasm.js";

const DEFLATE = { id: 1, name: "deflate", optional: false, clientData: [] };
const SHUFFLE = { id: 2, name: "shuffle", optional: false, clientData: [4] };

/** Bytes that compress but not to nothing: a float ramp with a little structure. */
function sample(values: number, seed: number): Uint8Array {
  const data = Float32Array.from({ length: values }, (_, i) => seed + Math.sin(i / 7) * 50 + (i % 13));
  return new Uint8Array(data.buffer);
}

const doesNotInflate = (pattern: RegExp) => (e: unknown) => {
  assert.ok(e instanceof Hdf5FormatError, String(e));
  assert.match(e.message, /does not inflate/);
  assert.match(e.message, pattern);
  return true;
};

describe("ChunkInflater", () => {
  it("inflates through node:zlib's handle on this Node (a Node that drops it is worth knowing of)", () => {
    assert.equal(new ChunkInflater().direct, true);
  });

  for (const direct of [true, false]) {
    describe(direct ? "through the handle" : "through inflateSync", () => {
      it("inflates whole streams into the start of the memory given, one after another", () => {
        const inflater = new ChunkInflater({ direct });
        for (const [values, seed] of [
          [1000, 1],
          [300_000, 2],
          [3, 3],
        ]) {
          const bytes = sample(values, seed);
          const out = new Uint8Array(bytes.length + 100).fill(0xee);
          assert.equal(inflater.into(deflateSync(bytes, { level: 1 }), out), bytes.length);
          assert.deepEqual(out.subarray(0, bytes.length), bytes);
          assert.ok(
            out.subarray(bytes.length).every((b) => b === 0xee),
            "nothing written past the stream's end",
          );
        }
      });

      it("a damaged stream is a format error, and the next stream inflates", () => {
        const inflater = new ChunkInflater({ direct });
        const bytes = sample(5000, 4);
        const damaged = deflateSync(bytes);
        damaged[0] ^= 0xff; // the zlib header's method and window
        assert.throws(() => inflater.into(damaged, new Uint8Array(bytes.length + 16)), doesNotInflate(/./));
        const out = new Uint8Array(bytes.length + 16);
        assert.equal(inflater.into(deflateSync(bytes), out), bytes.length);
        assert.deepEqual(out.subarray(0, bytes.length), bytes);
      });

      it("a truncated stream is a format error", () => {
        const stream = deflateSync(sample(5000, 5));
        assert.throws(
          () => new ChunkInflater({ direct }).into(stream.subarray(0, stream.length >> 1), new Uint8Array(30_000)),
          doesNotInflate(/./),
        );
      });

      it("a stream holding as much as the room given, or more, is a format error and stops there", () => {
        const inflater = new ChunkInflater({ direct });
        const bytes = sample(5000, 6);
        for (const room of [bytes.length, bytes.length - 1, 64]) {
          assert.throws(
            () => inflater.into(deflateSync(bytes), new Uint8Array(room)),
            doesNotInflate(new RegExp(`more than ${room} bytes`)),
          );
        }
        assert.equal(inflater.into(deflateSync(bytes), new Uint8Array(bytes.length + 1)), bytes.length);
      });
    });
  }

  it("scratchFor inflates into one buffer of the inflater's, grown when a stream needs more", () => {
    const inflater = new ChunkInflater();
    const small = sample(100, 7);
    const large = sample(10_000, 8);
    const a = inflater.scratchFor(deflateSync(small), small.length + 8);
    assert.deepEqual(a, small);
    const b = inflater.scratchFor(deflateSync(large), large.length + 8);
    assert.deepEqual(b, large);
    const c = inflater.scratchFor(deflateSync(small), small.length + 8);
    assert.equal(c.buffer, b.buffer, "the grown buffer is reused");
  });
});

describe("decodeChunk and the inflater's buffer", () => {
  it("a chunk deflated last in its pipeline comes back in memory of its own", () => {
    const first = sample(2000, 9);
    const second = sample(2000, 10);
    const a = decodeChunk(deflateSync(first), [DEFLATE], 0, first.length, 4);
    const b = decodeChunk(deflateSync(second), [DEFLATE], 0, second.length, 4);
    assert.notEqual(a.buffer, b.buffer);
    assert.deepEqual(a, first);
    assert.deepEqual(b, second);
  });

  const values = 2000;
  const shuffledChunks = () =>
    [sample(values, 11), sample(values, 12)].map((bytes) => {
      // Shuffled as HDF5 stores it: byte k of every value together.
      const shuffled = new Uint8Array(bytes.length);
      for (let i = 0; i < values; i++) for (let k = 0; k < 4; k++) shuffled[k * values + i] = bytes[4 * i + k];
      return { bytes, stored: deflateSync(shuffled) };
    });

  it("a shuffled chunk inflates into the scratch and is unshuffled out of it", () => {
    const chunks = shuffledChunks();
    const decoded = chunks.map(({ bytes, stored }) => decodeChunk(stored, [SHUFFLE, DEFLATE], 0, bytes.length, 4));
    chunks.forEach(({ bytes }, i) => assert.deepEqual(decoded[i], bytes, `chunk ${i}`));
  });

  it("a shuffled chunk decoded into a kernel's run inflates into the kernel's staging array", () => {
    const { placed: runs } = KernelArena.create(kernelModule("linearSums", WASM_BASE64), (space) => new RunInput(space, 4096, "F32"));
    const run = runs.runArray(4096)!.subarray(0, values);
    const into = new Uint8Array(run.buffer, run.byteOffset, run.byteLength);
    assert.ok(kernelStagingFor(into, values * 4 + 1024), "the kernel stages decodes");
    for (const { bytes, stored } of shuffledChunks()) {
      const decoded = decodeChunk(stored, [SHUFFLE, DEFLATE], 0, bytes.length, 4, into);
      assert.equal(decoded, into);
      assert.deepEqual(into, bytes);
    }
  });
});
