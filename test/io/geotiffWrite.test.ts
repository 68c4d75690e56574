/**
 * Tests of the GeoTIFF writer (src/io/geotiffWrite.ts): files are read back with geotiff.js
 * (values bit-exact, georeferencing, GeoKeys, GDAL_NODATA) and with Strata's own reader.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fromArrayBuffer } from "geotiff";

import { UnsupportedDataError } from "../../src/cube/errors.js";
import { gridFromTransform } from "../../src/cube/grid.js";
import type { PixelType, TypedArray } from "../../src/cube/types.js";
import { type GeoTiffInput, encodeGeoTiff, encodeGridGeoTiff, isGeographicEpsg } from "../../src/io/geotiffWrite.js";
import { openGeotiff } from "../../src/io/geotiff.js";

async function readBack(file: Uint8Array) {
  const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
  const tiff = await fromArrayBuffer(buffer);
  const image = await tiff.getImage(0);
  const rasters = (await image.readRasters()) as unknown as TypedArray[];
  return { image, rasters };
}

/** Bit-exact: compare the bytes, so NaN payloads and -0 count too. */
function sameBits(got: TypedArray, want: TypedArray, what: string): void {
  assert.equal(got.constructor.name, want.constructor.name, `${what}: array type`);
  assert.deepEqual(
    new Uint8Array(got.buffer, got.byteOffset, got.byteLength),
    new Uint8Array(want.buffer, want.byteOffset, want.byteLength),
    what,
  );
}

const base = { originX: -10, originY: 60, pixelWidth: 0.5, pixelHeight: 0.5 };

test("F32 with NaN, -0 and a -9999 nodata in EPSG:4326, compressed and not", async () => {
  const values = Float32Array.from({ length: 20 * 10 }, (_, i) => Math.sin(i) * 1e3);
  values[3] = NaN;
  values[4] = -0;
  values[5] = -9999;
  values[6] = 3.4e38;
  for (const compress of [false, true]) {
    const file = encodeGeoTiff({ width: 20, height: 10, bands: [values], pixelType: "F32", nodata: -9999, epsg: 4326, compress, ...base });
    const { image, rasters } = await readBack(file);
    assert.equal(image.getWidth(), 20);
    assert.equal(image.getHeight(), 10);
    assert.equal(image.getSampleFormat(0), 3);
    assert.equal(image.getBitsPerSample(0), 32);
    sameBits(rasters[0], values, `compress ${compress}`);
    assert.deepEqual(image.getOrigin(), [-10, 60, 0]);
    assert.deepEqual(image.getResolution(), [0.5, -0.5, 0]);
    assert.equal(image.getGDALNoData(), -9999);
    const keys = image.getGeoKeys();
    assert.equal(keys?.GTModelTypeGeoKey, 2, "geographic");
    assert.equal(keys?.GTRasterTypeGeoKey, 1, "PixelIsArea");
    assert.equal(keys?.GeographicTypeGeoKey, 4326);
    assert.equal(keys?.ProjectedCSTypeGeoKey, undefined);
  }
});

test("F32 nodata NaN is written as GDAL's 'nan'; a fractional F32 nodata as the float32 it becomes", async () => {
  const values = new Float32Array([1, NaN, 0.1, 4]);
  assert.ok(
    Number.isNaN(
      (
        await readBack(encodeGeoTiff({ width: 2, height: 2, bands: [values], pixelType: "F32", nodata: NaN, ...base }))
      ).image.getGDALNoData(),
    ),
  );
  const { image } = await readBack(encodeGeoTiff({ width: 2, height: 2, bands: [values], pixelType: "F32", nodata: 0.1, ...base }));
  assert.equal(image.getGDALNoData(), Math.fround(0.1));
  assert.equal(image.getGDALNoData(), values[2]);
});

test("three S16 bands in Web Mercator (EPSG:3857) read back band by band", async () => {
  const width = 12;
  const height = 8;
  const bands = [0, 1, 2].map((b) => Int16Array.from({ length: width * height }, (_, i) => ((i * 37 * (b + 1)) % 65536) - 32768));
  bands[1][7] = -32768;
  const file = encodeGeoTiff({
    width,
    height,
    bands,
    pixelType: "S16",
    nodata: -32768,
    originX: -20037508.342789244,
    originY: 20037508.342789244,
    pixelWidth: 30,
    pixelHeight: 30,
    epsg: 3857,
  });
  const { image, rasters } = await readBack(file);
  assert.equal(image.getSamplesPerPixel(), 3);
  assert.equal(image.getSampleFormat(2), 2);
  assert.equal(image.getBitsPerSample(2), 16);
  bands.forEach((b, i) => sameBits(rasters[i], b, `band ${i + 1}`));
  assert.deepEqual(image.getOrigin(), [-20037508.342789244, 20037508.342789244, 0]);
  assert.deepEqual(image.getResolution(), [30, -30, 0]);
  assert.equal(image.getGDALNoData(), -32768);
  const keys = image.getGeoKeys();
  assert.equal(keys?.GTModelTypeGeoKey, 1, "projected");
  assert.equal(keys?.ProjectedCSTypeGeoKey, 3857);
  assert.equal(keys?.GeographicTypeGeoKey, undefined);
});

test("every pixel type round-trips bit-exact across several strips, compressed and not", async () => {
  const arrays: Record<PixelType, (n: number) => TypedArray> = {
    U8: (n) => Uint8Array.from({ length: n }, (_, i) => i * 7),
    S8: (n) => Int8Array.from({ length: n }, (_, i) => i * 7),
    U16: (n) => Uint16Array.from({ length: n }, (_, i) => i * 977),
    S16: (n) => Int16Array.from({ length: n }, (_, i) => i * -977),
    U32: (n) => Uint32Array.from({ length: n }, (_, i) => i * 2654435761),
    S32: (n) => Int32Array.from({ length: n }, (_, i) => i * -2654435761),
    F32: (n) => Float32Array.from({ length: n }, (_, i) => i / 3 - 1e6),
    F64: (n) => Float64Array.from({ length: n }, (_, i) => Math.PI * i - 1e12),
  };
  // 300 × 250 F64 is 2400 bytes a row: strips of 109 rows, three per band.
  const width = 300;
  const height = 250;
  for (const [pixelType, make] of Object.entries(arrays) as [PixelType, (n: number) => TypedArray][]) {
    const bands = [make(width * height), make(width * height).reverse()];
    for (const compress of [false, true]) {
      const { image, rasters } = await readBack(encodeGeoTiff({ width, height, bands, pixelType, compress, ...base }));
      bands.forEach((b, i) => sameBits(rasters[i], b, `${pixelType} band ${i + 1} compress ${compress}`));
      assert.equal(image.getGDALNoData(), null, "no nodata tag when none is given");
    }
  }
});

test("Web Mercator aliases are written as 3857; without an EPSG code no CRS keys are written", async () => {
  const band = new Float32Array(4);
  const alias = await readBack(encodeGeoTiff({ width: 2, height: 2, bands: [band], pixelType: "F32", epsg: 102100, ...base }));
  assert.equal(alias.image.getGeoKeys()?.ProjectedCSTypeGeoKey, 3857);
  const none = (await readBack(encodeGeoTiff({ width: 2, height: 2, bands: [band], pixelType: "F32", ...base }))).image.getGeoKeys();
  assert.deepEqual(none, { GTRasterTypeGeoKey: 1 });
  const forced = await readBack(
    encodeGeoTiff({ width: 2, height: 2, bands: [band], pixelType: "F32", epsg: 4087, geographic: false, ...base }),
  );
  assert.equal(forced.image.getGeoKeys()?.ProjectedCSTypeGeoKey, 4087);
});

test("isGeographicEpsg tells common geographic codes from projected ones", () => {
  for (const code of [4326, 4269, 4258, 6318, 7844]) assert.equal(isGeographicEpsg(code), true, String(code));
  for (const code of [3857, 32633, 27700, 4087, 3031]) assert.equal(isGeographicEpsg(code), false, String(code));
});

test("encodeGridGeoTiff places a Strata grid, and Strata's reader opens the file", async () => {
  const grid = gridFromTransform(4, 3, [100, 2, 0, 50, 0, -2], { epsg: 32633 });
  const band = Float32Array.from({ length: 12 }, (_, i) => i - 5.5);
  const file = encodeGridGeoTiff(grid, { bands: [band], pixelType: "F32", nodata: -5.5, compress: true });
  const { image } = await readBack(file);
  assert.deepEqual(image.getOrigin(), [100, 50, 0]);
  assert.deepEqual(image.getResolution(), [2, -2, 0]);
  assert.equal(image.getGeoKeys()?.ProjectedCSTypeGeoKey, 32633);

  const dir = await mkdtemp(join(tmpdir(), "strata-geotiff-write-"));
  try {
    const path = join(dir, "grid.tif");
    await writeFile(path, file);
    const cube = await openGeotiff(path);
    try {
      assert.deepEqual(cube.grid.transform, [100, 2, 0, 50, 0, -2]);
      assert.deepEqual(cube.grid.crs, { epsg: 32633 });
      const v = cube.variables[0];
      assert.equal(v.pixelType, "F32");
      assert.equal(v.nodata, -5.5);
      sameBits((await v.read()).data, band, "values through openGeotiff");
    } finally {
      await cube.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("encodeGridGeoTiff refuses rotated and south-up grids", () => {
  const band = new Float32Array(4);
  for (const transform of [
    [0, 1, 0.1, 0, 0, -1],
    [0, 1, 0, 0, 0, 1],
  ] as const) {
    assert.throws(
      () => encodeGridGeoTiff(gridFromTransform(2, 2, transform, {}), { bands: [band], pixelType: "F32" }),
      UnsupportedDataError,
    );
  }
});

test("bad inputs are RangeErrors that say what is wrong", () => {
  const ok: GeoTiffInput = { width: 2, height: 2, bands: [new Float32Array(4)], pixelType: "F32", ...base };
  const cases: [Partial<GeoTiffInput>, RegExp][] = [
    [{ bands: [new Float32Array(5)] }, /band 1 has 5 values, expected 2x2 = 4/],
    [{ bands: [new Float32Array(4), new Float32Array(3)] }, /band 2 has 3 values/],
    [{ pixelType: "U64" as PixelType }, /unknown pixel type "U64"; known: U8, S8, U16, S16, U32, S32, F32, F64/],
    [{ bands: [new Float64Array(4)] }, /band 1 is a Float64Array but pixel type F32 needs a Float32Array/],
    [{ bands: [] }, /needs 1 to 65535 bands, got 0/],
    [{ width: 0 }, /width and height must be positive integers/],
    [{ pixelType: "U8", bands: [new Uint8Array(4)], nodata: 300 }, /nodata 300 is not a value of pixel type U8 \(integers 0..255\)/],
    [{ pixelType: "S16", bands: [new Int16Array(4)], nodata: 1.5 }, /nodata 1.5 is not a value of pixel type S16/],
    [{ pixelType: "U16", bands: [new Uint16Array(4)], nodata: NaN }, /nodata NaN is not a value of pixel type U16/],
    [{ nodata: 1e39 }, /nodata 1e\+39 is not a finite value of pixel type F32/],
    [{ pixelHeight: -0.5 }, /cell size must be positive/],
    [{ originX: NaN }, /origin must be finite/],
    [{ epsg: 40000 }, /EPSG code 40000 cannot be written as a GeoKey/],
  ];
  for (const [change, message] of cases)
    assert.throws(
      () => encodeGeoTiff({ ...ok, ...change }),
      (e: unknown) => e instanceof RangeError && message.test(e.message),
      String(message),
    );
});
