/**
 * Tests of the PNG encoder (src/services/render/png.ts), read back by the independent decoder in
 * test/helpers/pngDecode.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import zlib from "node:zlib";

import { crc32, encodePng, type PngFilter } from "../../../src/services/render/png.js";
import { decodePng } from "../../helpers/pngDecode.js";

/** A small image: a 4-colour pattern with a transparent (nodata) pixel and a half-transparent one. */
function pattern(width: number, height: number): Uint8Array {
  const colours = [
    [68, 1, 84, 255],
    [33, 145, 140, 255],
    [253, 231, 37, 255],
    [200, 10, 10, 128],
  ];
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) rgba.set(colours[(i + Math.floor(i / width)) % 4], i * 4);
  rgba.set([0, 0, 0, 0], 4 * (width + 1)); // nodata
  return rgba;
}

/** Every pixel its own colour: noise that the filters must reproduce exactly. */
function noise(width: number, height: number, opaque = true): Uint8Array {
  let seed = 1;
  const rgba = new Uint8Array(width * height * 4).map(() => (seed = (seed * 16807) % 2147483647) & 255);
  if (opaque) for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
  return rgba;
}

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

test("crc32 gives the standard check values", () => {
  assert.equal(crc32(ascii("123456789")), 0xcbf43926);
  assert.equal(crc32(ascii("IEND")), 0xae426082);
  assert.equal(crc32(new Uint8Array(0)), 0);
  const native = (zlib as Partial<typeof zlib>).crc32;
  if (native) {
    const data = noise(37, 11, false);
    assert.equal(crc32(data), native(data) >>> 0);
  }
});

test("every format starts with the PNG signature and a well-formed IHDR", () => {
  const rgba = pattern(7, 5);
  const types = { png: 3, png8: 3, png24: 2, png32: 6 } as const;
  for (const [format, colorType] of Object.entries(types)) {
    const png = encodePng(rgba, 7, 5, { format: format as keyof typeof types });
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const v = new DataView(png.buffer, png.byteOffset);
    assert.equal(v.getUint32(8), 13, "IHDR length");
    assert.equal(String.fromCharCode(...png.subarray(12, 16)), "IHDR");
    assert.equal(v.getUint32(16), 7);
    assert.equal(v.getUint32(20), 5);
    assert.deepEqual([...png.subarray(24, 29)], [8, colorType, 0, 0, 0], `${format}: depth, colour type, methods`);
    assert.equal(v.getUint32(29), crc32(png.subarray(12, 29)), "IHDR CRC");
    assert.deepEqual([...png.subarray(png.length - 12)], [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82], "IEND");
  }
});

test("png32 round-trips exactly and keeps nodata at alpha 0", () => {
  const rgba = pattern(9, 6);
  const d = decodePng(encodePng(rgba, 9, 6, { format: "png32" }));
  assert.equal(d.colorType, 6);
  assert.deepEqual(d.rgba, rgba);
  assert.equal(d.rgba[4 * 10 + 3], 0);
});

test("png24 composites transparent pixels over the background (white by default)", () => {
  const rgba = pattern(9, 6);
  for (const background of [undefined, [10, 20, 30] as const]) {
    const d = decodePng(encodePng(rgba, 9, 6, { format: "png24", ...(background ? { background } : {}) }));
    assert.equal(d.colorType, 2);
    assert.deepEqual(d.chunks, ["IHDR", "IDAT", "IEND"]);
    const bg = background ?? [255, 255, 255];
    assert.deepEqual([...d.rgba.subarray(40, 44)], [...bg, 255], "nodata shows the background");
    assert.deepEqual([...d.rgba.subarray(0, 4)], [68, 1, 84, 255], "opaque pixels unchanged");
    // The half-transparent pixel: round((200·128 + bg·127) / 255)
    const half = 4 * 3;
    assert.deepEqual(
      [...d.rgba.subarray(half, half + 3)],
      [200, 10, 10].map((c, k) => Math.round((c * 128 + bg[k] * 127) / 255)),
    );
  }
});

test("png8 is an exact palette with tRNS when there are at most 256 colours; nodata has alpha 0", () => {
  const rgba = pattern(9, 6);
  for (const format of ["png8", "png"] as const) {
    const d = decodePng(encodePng(rgba, 9, 6, { format }));
    assert.equal(d.colorType, 3);
    assert.deepEqual(d.chunks, ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]);
    assert.equal(d.palette!.length, 5 * 3, "four colours and transparent");
    assert.deepEqual(d.rgba, rgba);
    const raw = zlib.inflateSync(idatOf(encodePng(rgba, 9, 6, { format })));
    const nodataIndex = raw[1 * (9 + 1) + 1 + 1]; // row 1 (after its filter byte), column 1
    assert.equal(d.trns![nodataIndex], 0, "the nodata entry is fully transparent in tRNS");
  }
});

test("png8 quantises more than 256 colours to a palette of 256 that stays close", () => {
  // A smooth 1024-colour gradient plus transparent pixels.
  const width = 64;
  const height = 16;
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) rgba.set([i >> 2, 255 - (i >> 2), (i * 3) & 255, i % 50 === 0 ? 0 : 255], i * 4);
  for (let i = 0; i < width * height; i++) if (rgba[i * 4 + 3] === 0) rgba.fill(0, i * 4, i * 4 + 3);
  const d = decodePng(encodePng(rgba, width, height, { format: "png8" }));
  assert.ok(d.palette!.length / 3 <= 256);
  let worst = 0;
  for (let i = 0; i < rgba.length; i++) worst = Math.max(worst, Math.abs(rgba[i] - d.rgba[i]));
  assert.ok(worst <= 24, `largest channel error ${worst}`);
  for (let i = 0; i < width * height; i += 50) assert.equal(d.rgba[i * 4 + 3], 0, `pixel ${i} stays transparent`);
});

test("a full rendered ramp plus nodata (257 colours) loses at most one unit in png8", () => {
  const rgba = new Uint8Array(257 * 4);
  for (let i = 0; i < 256; i++) rgba.set([i, Math.floor(i / 2), 255 - i, 255], i * 4);
  const d = decodePng(encodePng(rgba, 257, 1));
  let worst = 0;
  for (let i = 0; i < rgba.length; i++) worst = Math.max(worst, Math.abs(rgba[i] - d.rgba[i]));
  assert.ok(worst <= 1, `largest channel error ${worst}`);
  assert.equal(d.rgba[256 * 4 + 3], 0);
});

test("each filter type and the adaptive choice round-trip exactly", () => {
  const rgba = noise(13, 9, false);
  const filters: PngFilter[] = [0, 1, 2, 3, 4, "adaptive"];
  for (const filter of filters) {
    for (const format of ["png32", "png24"] as const) {
      const d = decodePng(encodePng(rgba, 13, 9, { format, filter }));
      if (format === "png32") assert.deepEqual(d.rgba, rgba, `filter ${filter}`);
      if (filter !== "adaptive") assert.deepEqual(d.filters, Array(9).fill(filter), `rows written with filter ${filter}`);
    }
  }
  const smooth = new Uint8Array(32 * 8 * 4).map((_, i) => (i >> 2) & 255);
  const adaptive = decodePng(encodePng(smooth, 32, 8, { format: "png32", filter: "adaptive" }));
  assert.deepEqual(adaptive.rgba, smooth);
  assert.ok(
    adaptive.filters.some((f) => f !== 0),
    "adaptive filtering picks a predictor for a gradient",
  );
});

test("bad sizes and options are RangeErrors saying what is wrong", () => {
  const rgba = pattern(4, 4);
  assert.throws(() => encodePng(rgba, 4, 5), /64 bytes of RGBA for a 4x5 image \(expected 80\)/);
  assert.throws(() => encodePng(rgba, 0, 4), /positive integers/);
  assert.throws(() => encodePng(rgba, 4, 4, { format: "gif" as "png" }), /unknown PNG format "gif"/);
  assert.throws(() => encodePng(rgba, 4, 4, { level: 11 }), /zlib level/);
  assert.throws(() => encodePng(rgba, 4, 4, { filter: 5 as PngFilter }), /unknown filter 5/);
});

/** The concatenated IDAT data of a PNG. */
function idatOf(png: Uint8Array): Buffer {
  const v = new DataView(png.buffer, png.byteOffset);
  const parts: Uint8Array[] = [];
  for (let p = 8; p < png.length;) {
    const length = v.getUint32(p);
    if (String.fromCharCode(...png.subarray(p + 4, p + 8)) === "IDAT") parts.push(png.subarray(p + 8, p + 8 + length));
    p += 12 + length;
  }
  return Buffer.concat(parts);
}
