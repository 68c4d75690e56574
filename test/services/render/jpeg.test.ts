/**
 * Tests of the pure-JS JPEG encoder (src/services/render/jpeg.ts), decoded with jpeg-js.
 * JPEG is lossy: colours are compared within a tolerance on flat blocks. (jpgpng and sharp's
 * JPEG: encodeImage.test.ts.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import jpeg from "jpeg-js";

import { encodeJpeg } from "../../../src/services/render/jpeg.js";

const SIZE = 32;

/** Left half one colour, right half another, each 16 pixels wide (two whole 8×8 block columns). */
function halves(left: readonly number[], right: readonly number[]): Uint8Array {
  const rgba = new Uint8Array(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) rgba.set(x < SIZE / 2 ? left : right, (y * SIZE + x) * 4);
  return rgba;
}

function near(got: Uint8Array, at: number, want: readonly number[], tolerance: number, what: string): void {
  for (let c = 0; c < 3; c++)
    assert.ok(Math.abs(got[at + c] - want[c]) <= tolerance, `${what}: ${[...got.subarray(at, at + 3)]} vs ${want}`);
}

test("a JPEG decodes to the same colours within a small tolerance", () => {
  const bytes = encodeJpeg(halves([68, 1, 84, 255], [253, 231, 37, 255]), SIZE, SIZE, { quality: 90 });
  assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xd8], "starts with SOI");
  const d = jpeg.decode(bytes, { useTArray: true });
  assert.equal(d.width, SIZE);
  assert.equal(d.height, SIZE);
  near(d.data, (8 * SIZE + 4) * 4, [68, 1, 84], 8, "left");
  near(d.data, (8 * SIZE + 28) * 4, [253, 231, 37], 8, "right");
});

test("transparent pixels show white, or the background asked for", () => {
  const rgba = halves([0, 0, 0, 0], [33, 145, 140, 255]);
  const white = jpeg.decode(encodeJpeg(rgba, SIZE, SIZE), { useTArray: true });
  near(white.data, (8 * SIZE + 4) * 4, [255, 255, 255], 8, "white under nodata");
  near(white.data, (8 * SIZE + 28) * 4, [33, 145, 140], 10, "opaque colour kept");
  const grey = jpeg.decode(encodeJpeg(rgba, SIZE, SIZE, { background: [128, 128, 128] }), { useTArray: true });
  near(grey.data, (8 * SIZE + 4) * 4, [128, 128, 128], 8, "grey under nodata");
});

test("bad sizes and qualities are RangeErrors", () => {
  const rgba = halves([0, 0, 0, 255], [0, 0, 0, 255]);
  assert.throws(() => encodeJpeg(rgba, SIZE, SIZE + 1), /4096 bytes of RGBA for a 32x33 image/);
  assert.throws(() => encodeJpeg(rgba, SIZE, SIZE, { quality: 0 }), /quality must be 1..100/);
  assert.throws(() => encodeJpeg(rgba, SIZE, SIZE, { quality: 101 }), /quality must be 1..100/);
});
