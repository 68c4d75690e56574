/**
 * Tests of the LERC2 encoder (src/io/lerc2Write.ts): every blob is read back with the `lerc`
 * package, Esri's own LERC decoder compiled to WebAssembly, so the format is checked against
 * its authors' reader, not against Strata. Values must come back exact when lossless and
 * within maxZError otherwise, masks bit for bit, and real data must shrink well below raw.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as Lerc from "lerc";

import { InvalidInputError } from "../../src/cube/errors.js";
import { PIXEL_ARRAYS, type PixelType, type TypedArray } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { type Lerc2Band, encodeLerc2 } from "../../src/io/lerc2Write.js";

await Lerc.load();

/** Decode with Esri's decoder, and check what every blob must satisfy. */
function decode(blob: Uint8Array, width: number, height: number, bands: number) {
  const info = Lerc.getBlobInfo(blob);
  assert.equal(info.version, 3, "LERC2 blob version");
  assert.equal(info.bandCount, bands, "bands");
  assert.ok(info.blobSize <= blob.length, "the first blob lies within the bytes");
  const decoded = Lerc.decode(blob);
  assert.equal(decoded.width, width);
  assert.equal(decoded.height, height);
  assert.equal(decoded.pixels.length, bands);
  return decoded;
}

const RANGES: Readonly<Record<PixelType, readonly [number, number]>> = {
  U8: [0, 255],
  S8: [-128, 127],
  U16: [0, 65535],
  S16: [-32768, 32767],
  U32: [0, 4294967295],
  S32: [-2147483648, 2147483647],
  F32: [-1e30, 1e30],
  F64: [-1e300, 1e300],
};

/** A smooth field with noise, scaled to a pixel type, of a size that leaves partial blocks at both edges. */
function field(pixelType: PixelType, width: number, height: number, amplitude: number, centre: number): TypedArray {
  const values = new PIXEL_ARRAYS[pixelType](width * height);
  const [lo, hi] = RANGES[pixelType];
  let seed = 12345;
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const noise = (seed / 2147483648 - 0.5) * amplitude * 0.05;
      const z = centre + amplitude * Math.sin(r / 7) * Math.cos(c / 11) + noise;
      values[r * width + c] = Math.min(hi, Math.max(lo, pixelType.startsWith("F") ? z : Math.round(z)));
    }
  }
  return values;
}

/** A mask with a hole, a ragged edge and a few single invalid pixels. */
function holes(width: number, height: number): Uint8Array {
  const valid = new Uint8Array(width * height).fill(1);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      if ((r - 20) ** 2 + (c - 30) ** 2 < 64 || c > width - 1 - (r % 5) || (r * 31 + c) % 97 === 0) valid[r * width + c] = 0;
    }
  }
  return valid;
}

const W = 53;
const H = 37;

for (const pixelType of Object.keys(RANGES) as PixelType[]) {
  test(`${pixelType}: lossless by default, values exact where valid, the mask bit for bit`, () => {
    const [lo, hi] = RANGES[pixelType];
    const centre = pixelType.startsWith("U") ? (hi - lo) / 2 : 0;
    const amplitude = pixelType.startsWith("F") ? 1000 : (hi - lo) / 4;
    const values = field(pixelType, W, H, amplitude, centre);
    // The type's extremes must survive too.
    values[1] = lo;
    values[2] = hi;
    const valid = holes(W, H);
    const decoded = decode(encodeLerc2([{ values, valid }], W, H), W, H, 1);
    assert.equal(decoded.pixelType, pixelType);
    const mask = decoded.bandMasks?.[0] ?? decoded.mask;
    assert.ok(mask, "a mask comes back");
    assert.deepEqual(Array.from(mask), Array.from(valid));
    const got = decoded.pixels[0];
    for (let i = 0; i < values.length; i++) if (valid[i]) assert.equal(got[i], values[i], `pixel ${i}`);
  });
}

for (const [pixelType, maxZError] of [
  ["F32", 0.01],
  ["F32", 0.5],
  ["F64", 1e-6],
  ["F64", 3],
  ["S16", 2],
  ["U32", 100],
] as const) {
  test(`${pixelType} with maxZError ${maxZError}: every value within the tolerance, smaller than lossless`, () => {
    const values = field(pixelType, W, H, 1000, pixelType === "U32" ? 5000 : 0);
    const lossy = encodeLerc2([{ values }], W, H, { maxZError });
    const got = decode(lossy, W, H, 1).pixels[0];
    // Floats also take the rounding of a float32 (about 6e-8 of the value).
    const slack = pixelType === "F32" ? 1e-4 : 1e-9;
    let worst = 0;
    for (let i = 0; i < values.length; i++) worst = Math.max(worst, Math.abs(got[i] - values[i]));
    assert.ok(worst <= maxZError + slack, `largest error ${worst} > ${maxZError}`);
    assert.ok(lossy.length < encodeLerc2([{ values }], W, H).length, "lossy is smaller");
  });
}

test("float NaN is no value: it goes into the mask", () => {
  const values = field("F32", W, H, 10, 0);
  values[0] = NaN;
  values[500] = NaN;
  const decoded = decode(encodeLerc2([{ values }], W, H, { maxZError: 0.001 }), W, H, 1);
  const mask = decoded.bandMasks?.[0] ?? decoded.mask;
  assert.ok(mask);
  assert.equal(mask[0], 0);
  assert.equal(mask[500], 0);
  assert.equal(
    mask.reduce((n, v) => n + v, 0),
    W * H - 2,
  );
});

test("several bands are several blobs, each with its own mask and type's values", () => {
  const slope = field("F32", W, H, 1, 0);
  const intercept = field("F32", W, H, 300, 280);
  const validA = holes(W, H);
  const validB = new Uint8Array(W * H).fill(1);
  validB[7] = 0;
  const bands: Lerc2Band[] = [
    { values: slope, valid: validA },
    { values: intercept, valid: validB },
    { values: new Float32Array(W * H).fill(2.5) },
  ];
  const decoded = decode(encodeLerc2(bands, W, H), W, H, 3);
  assert.ok(decoded.bandMasks, "per-band masks");
  assert.deepEqual(Array.from(decoded.bandMasks[0]), Array.from(validA));
  assert.deepEqual(Array.from(decoded.bandMasks[1]), Array.from(validB));
  for (let i = 0; i < W * H; i++) {
    if (validA[i]) assert.equal(decoded.pixels[0][i], slope[i]);
    if (validB[i]) assert.equal(decoded.pixels[1][i], intercept[i]);
    assert.equal(decoded.pixels[2][i], 2.5);
  }
});

test("a band with no valid pixel, a constant band and a 1×1 band decode", () => {
  const none = decode(encodeLerc2([{ values: new Int16Array(W * H), valid: new Uint8Array(W * H) }], W, H), W, H, 1);
  assert.equal(none.validPixelCount, 0);
  const constant = decode(encodeLerc2([{ values: new Uint8Array(W * H).fill(9) }], W, H), W, H, 1);
  assert.ok(constant.pixels[0].every((v) => v === 9));
  const one = decode(encodeLerc2([{ values: Float64Array.of(-7.25) }], 1, 1), 1, 1, 1);
  assert.equal(one.pixels[0][0], -7.25);
});

test("8-bit lossless data (Huffman is an option the blob declines) and blocks of every mode", () => {
  // Zeros, a constant, a ramp and noise: constant-zero, constant, bit-stuffed and raw blocks.
  const values = new Uint8Array(64 * 64);
  for (let i = 0; i < values.length; i++) {
    const c = i % 64;
    values[i] = c < 16 ? 0 : c < 32 ? 200 : c < 48 ? (i >> 6) & 7 : (i * 2654435761) >>> 24;
  }
  const got = decode(encodeLerc2([{ values }], 64, 64), 64, 64, 1).pixels[0];
  assert.deepEqual(Array.from(got), Array.from(values));
});

test("blocks of a few values far apart take a lookup table: exact, and far below raw", () => {
  // Classes 0, 20000 and 30000 in runs: 15 bits a value bit-stuffed plainly, 2 through the table.
  const values = Uint16Array.from({ length: 64 * 64 }, (_, i) => [0, 20000, 30000][Math.floor((i % 64) / 3) % 3]);
  const blob = encodeLerc2([{ values }], 64, 64);
  assert.deepEqual(Array.from(decode(blob, 64, 64, 1).pixels[0]), Array.from(values));
  assert.ok(blob.length < 2000, `${blob.length} bytes of ${64 * 64 * 2} raw`);
});

test("real data: a slice of samples/sst_climatology_4deg.nc with its land masked", async () => {
  const cube = await openCube(new URL("../../samples/sst_climatology_4deg.nc", import.meta.url).pathname);
  try {
    const { width, height } = cube.grid;
    const sst = cube.variables.find((v) => v.name === "SST")!;
    const slab = await sst.read({ dims: [[0, 1]] });
    const values = Float32Array.from(slab.data as ArrayLike<number>, (v) => (v === sst.nodata ? NaN : v));
    const valid = Uint8Array.from(values, (v) => (Number.isNaN(v) ? 0 : 1));
    const count = valid.reduce((n, v) => n + v, 0);
    assert.ok(count > 0 && count < width * height, "the slice has land and sea");

    const lossless = encodeLerc2([{ values }], width, height);
    const decoded = decode(lossless, width, height, 1);
    for (let i = 0; i < values.length; i++) if (valid[i]) assert.equal(decoded.pixels[0][i], values[i]);
    // ImageryLayer's default tolerance (0.01 °C) on sea temperatures.
    const lossy = encodeLerc2([{ values }], width, height, { maxZError: 0.01 });
    const back = decode(lossy, width, height, 1).pixels[0];
    for (let i = 0; i < values.length; i++) if (valid[i]) assert.ok(Math.abs(back[i] - values[i]) <= 0.01 + 1e-5);
    const raw = width * height * 4;
    assert.ok(lossy.length < raw * 0.4, `0.01 tolerance: ${lossy.length} bytes of ${raw} raw`);
    assert.ok(lossless.length < raw, `lossless: ${lossless.length} bytes of ${raw} raw`);

    // The same slice in hundredths of a degree as U16, lossless: bit-stuffing's win.
    const centi = Uint16Array.from(values, (v) => (Number.isNaN(v) ? 0 : Math.round((v + 5) * 100)));
    const packed = encodeLerc2([{ values: centi, valid }], width, height);
    const ints = decode(packed, width, height, 1).pixels[0];
    for (let i = 0; i < values.length; i++) if (valid[i]) assert.equal(ints[i], centi[i]);
    assert.ok(packed.length < width * height * 2 * 0.6, `U16 lossless: ${packed.length} bytes of ${width * height * 2} raw`);
  } finally {
    await cube.close();
  }
});

test("bad input is refused with a reason", () => {
  assert.throws(
    () => encodeLerc2([{ values: new Float32Array(4) }], 2, 2, { maxZError: -1 }),
    (e: unknown) => e instanceof InvalidInputError && e.parameter === "compressionTolerance",
  );
  assert.throws(() => encodeLerc2([{ values: new Float32Array(3) }], 2, 2), /needs 4 values/);
  assert.throws(() => encodeLerc2([], 2, 2), /at least one band/);
});
