/**
 * The output codec, chosen by measurement: each candidate Zarr v3 bytes-to-bytes codec
 * encodes and decodes 64 chunks of 512 × 512 float32 as Strata writes them (an anomaly: noise
 * of a few kelvin with NaN over "land"; a climatology: a smooth field), as the writer and the
 * readers would run it (node:zlib asynchronously on libuv's threads, numcodecs' wasm on the
 * JavaScript thread), 8 chunks at a time. Rows: MB/s of raw data to encode and to decode,
 * and the compressed size as a share of the raw.
 * Usage: npm run bench -- --only codecs
 */
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import Lz4 from "numcodecs/lz4";
import Zstd from "numcodecs/zstd";
import { zstdEncode } from "../src/io/zstdCodec.js";

interface Candidate {
  name: string;
  encode(raw: Uint8Array): Promise<Uint8Array>;
  decode(stored: Uint8Array): Promise<Uint8Array>;
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

function candidates(): Candidate[] {
  const wasm = (name: string, codec: { encode(x: Uint8Array): Promise<Uint8Array>; decode(x: Uint8Array): Promise<Uint8Array> }) => ({
    name,
    encode: (raw: Uint8Array) => codec.encode(raw),
    decode: (stored: Uint8Array) => codec.decode(stored),
  });
  return [
    { name: "none", encode: async (raw) => raw, decode: async (stored) => stored },
    wasm("zstd level 3 (wasm)", Zstd.fromConfig({ id: "zstd", level: 3 })),
    wasm("zstd level 1 (wasm)", Zstd.fromConfig({ id: "zstd", level: 1 })),
    {
      name: "zstd level 1 (Strata's: @bokuweb/zstd-wasm encodes, numcodecs decodes)",
      encode: (raw: Uint8Array) => zstdEncode(raw, 1),
      decode: (stored: Uint8Array) => Zstd.fromConfig({ id: "zstd", level: 1 }).decode(stored),
    },
    wasm("lz4 (wasm)", Lz4.fromConfig({ id: "lz4", acceleration: 1 })),
    ...[1, 3].map((level) => ({
      name: `gzip level ${level} (node:zlib)`,
      encode: (raw: Uint8Array) => gzipAsync(raw, { level }).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)),
      decode: (stored: Uint8Array) => gunzipAsync(stored).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)),
    })),
  ];
}

const EDGE = 512;
const CHUNKS = 64;
const AT_ONCE = 8;

function chunks(kind: "anomaly" | "climatology"): Uint8Array[] {
  let seed = 0x2545f491;
  const uniform = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  return Array.from({ length: CHUNKS }, (_, c) => {
    const values = new Float32Array(EDGE * EDGE);
    for (let i = 0; i < values.length; i++) {
      const [row, col] = [Math.floor(i / EDGE), i % EDGE];
      const land = Math.sin(row / 40 + c) * Math.cos(col / 55) > 0.6;
      values[i] = land
        ? NaN
        : kind === "anomaly"
          ? (uniform() + uniform() + uniform() - 1.5) * 2.3
          : 288 - 30 * Math.abs(Math.sin((row + c * EDGE) / 900)) + Math.cos(col / 80);
    }
    return new Uint8Array(values.buffer);
  });
}

async function throughput(work: (chunk: Uint8Array) => Promise<unknown>, data: Uint8Array[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < data.length; i += AT_ONCE) await Promise.all(data.slice(i, i + AT_ONCE).map(work));
  const bytes = data.length * EDGE * EDGE * 4;
  return bytes / 1e6 / ((performance.now() - t0) / 1000);
}

/**
 * @example
 * const rows = await benchCodecs(); // [what, encode MB/s, decode MB/s, size]
 */
export async function benchCodecs(): Promise<string[][]> {
  const rows: string[][] = [];
  for (const kind of ["anomaly", "climatology"] as const) {
    const data = chunks(kind);
    for (const c of candidates()) {
      await throughput(c.encode, data.slice(0, AT_ONCE)); // warm up (wasm instantiation)
      const stored = await Promise.all(data.map(c.encode));
      const encode = await throughput(c.encode, data);
      const decode = await throughput(c.decode, stored);
      const share = stored.reduce((n, s) => n + s.byteLength, 0) / (data.length * EDGE * EDGE * 4);
      rows.push([`codec ${c.name}, ${kind} chunks: encode, decode MB/s; size`, encode.toFixed(0), decode.toFixed(0), share.toFixed(2)]);
    }
  }
  return rows;
}
