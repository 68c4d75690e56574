/**
 * exportImage format=tiff, read back by three readers that are not Strata: the ArcGIS Maps
 * SDK's own TIFF decoder (@arcgis/core TiffDecoder.js, what an ImageryLayer with format "tiff"
 * runs), GDAL (Debian's python3-gdal; skipped, saying why, when absent) and geotiff.js. No data
 * must be masked by all of them, and values beyond the pixel type clamped as ArcGIS truncates
 * them, never wrapped. Every expected value is worked by hand from the cube's values below.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { fromArrayBuffer } from "geotiff";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { planExport, renderExport } from "../../src/services/exportImage.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";

const run = promisify(execFile);
const F32_LOWEST = -3.4028234663852886e38; // -(2 - 2^-23) * 2^127
// The lowest value data keep: the float32 nearest the lowest times (1 - 1e-6), beyond GDAL's and
// the SDK's tolerance of the mark; by numpy: float(np.float32(-3.4028234663852886e38 * (1 - 1e-6))).
const F32_DATA_FLOOR = -3.402820018375656e38;
const FILL = -999;

/**
 * Each cube's values: two rows of three cells, stored south row first (lat -5, then 5).
 * Pictures run north-up, so a picture's pixels are the file's second row, then its first.
 */
const FILE_VALUES: Readonly<Record<"float" | "double", number[]>> = {
  float: [1.5, FILL, 300, -2.6, 254.5, F32_LOWEST],
  double: [1e39, -1e39, NaN, 7.25, -3.4e38, 0],
};
const northUp = (fileOrder: number[]): number[] => [...fileOrder.slice(3), ...fileOrder.slice(0, 3)];

let dir: string;
const cubes: Partial<Record<"float" | "double", Cube>> = {};

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-export-tiff-"));
  for (const type of ["float", "double"] as const) {
    const path = join(dir, `${type}.nc`);
    await writeNetcdf3(path, {
      dims: [
        { name: "time", size: 1, record: true },
        { name: "lat", size: 2 },
        { name: "lon", size: 3 },
      ],
      vars: [
        { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [-5, 5] },
        { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [0, 10, 20] },
        { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: () => [0] },
        { name: "v", dims: ["time", "lat", "lon"], type, attrs: { _FillValue: FILL }, data: () => FILE_VALUES[type] },
      ],
    });
    cubes[type] = await openCube(path);
  }
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The tiff exportImage answers for the whole 3 × 2 grid, cell for cell (nearest neighbour). */
async function exportTiff(type: "float" | "double", params: Record<string, string> = {}): Promise<Uint8Array> {
  const cube = cubes[type]!;
  const request = { bbox: "-5,-10,25,10", size: "3,2", format: "tiff", interpolation: "RSP_NearestNeighbor", ...params };
  const { bytes, contentType } = await renderExport(cube, {}, planExport(cube, {}, request));
  assert.equal(contentType, "image/tiff");
  return bytes;
}

async function readGeotiffJs(bytes: Uint8Array): Promise<{ values: number[]; nodata: number | null; format: number; bits: number }> {
  const image = await (await fromArrayBuffer(bytes.slice().buffer)).getImage();
  const [band] = (await image.readRasters()) as unknown as ArrayLike<number>[];
  return { values: Array.from(band), nodata: image.getGDALNoData(), format: image.getSampleFormat(), bits: image.getBitsPerSample() };
}

/** The SDK's internal TIFF decoder module (untyped: @arcgis/core declares only its public API). */
const SDK_TIFF_DECODER: string = "@arcgis/core/layers/raster/formats/TiffDecoder.js";
type SdkDecode = (file: ArrayBuffer) => Promise<{ pixels: ArrayLike<number>[]; mask?: Uint8Array }>;

/** The SDK's decoder (it expects a browser: its JPEG module reads `self` when loaded). */
async function decodeWithSdk(bytes: Uint8Array): Promise<{ pixels: ArrayLike<number>[]; mask?: Uint8Array }> {
  (globalThis as { self?: unknown }).self ??= globalThis;
  const { decode } = (await import(SDK_TIFF_DECODER)) as { decode: SdkDecode };
  return decode(bytes.slice().buffer);
}

describe("exportImage format=tiff", () => {
  it("float32 by default: no data is the lowest float32, in the GDAL_NODATA tag and the pixels", async () => {
    const t = await readGeotiffJs(await exportTiff("float"));
    assert.deepEqual([t.format, t.bits], [3, 32], "IEEE float, 32 bits");
    assert.equal(t.nodata, F32_LOWEST);
    // The data's own lowest float32 is kept off the mark (beyond the SDK's tolerance), so it stays data.
    const expected = northUp([1.5, F32_LOWEST, 300, Math.fround(-2.6), 254.5, F32_DATA_FLOOR]);
    assert.deepEqual(t.values, expected);
  });

  it("the ArcGIS Maps SDK's TIFF decoder masks exactly the no-data cells", async () => {
    const decoded = await decodeWithSdk(await exportTiff("float"));
    assert.ok(decoded.mask, "the SDK made a mask from GDAL_NODATA");
    // File order [data, fill, data / data, data, data] drawn north-up: only the fill is masked.
    assert.deepEqual(
      Array.from(decoded.mask, (m) => (m ? 1 : 0)),
      northUp([1, 0, 1, 1, 1, 1]),
    );
  });

  it("noData=NaN keeps NaN marks (GDAL_NODATA 'nan'), which the SDK's decoder does not mask", async () => {
    const bytes = await exportTiff("float", { noData: "NaN" });
    const t = await readGeotiffJs(bytes);
    assert.ok(Number.isNaN(t.nodata) && Number.isNaN(t.values[4]), "NaN in the tag and the no-data pixel");
    assert.equal((await decodeWithSdk(bytes)).mask, undefined, "why NaN is not the default");
  });

  it("a float64 source as float32: beyond the type's range clamps to its ends, above the mark", async () => {
    const t = await readGeotiffJs(await exportTiff("double"));
    assert.deepEqual(t.values, northUp([3.4028234663852886e38, F32_DATA_FLOOR, F32_LOWEST, 7.25, Math.fround(-3.4e38), 0]));
  });

  it("pixelType=F64: the lowest float64 marks no data", async () => {
    const t = await readGeotiffJs(await exportTiff("double", { pixelType: "F64" }));
    assert.deepEqual([t.format, t.bits, t.nodata], [3, 64, -Number.MAX_VALUE]);
    assert.deepEqual(t.values, northUp([1e39, -1e39, -Number.MAX_VALUE, 7.25, -3.4e38, 0]));
  });

  it("integer pixel types round and clamp (300 as U8 is 255, not 44); noData fills no data", async () => {
    const u8 = await readGeotiffJs(await exportTiff("float", { pixelType: "U8", noData: "7" }));
    assert.equal(u8.nodata, 7);
    // 1.5 rounds to 2, -2.6 to -3 then clamps to 0, 254.5 rounds to 255, the lowest float32 clamps to 0.
    assert.deepEqual(u8.values, northUp([2, 7, 255, 0, 255, 0]));
    const s8 = await readGeotiffJs(await exportTiff("float", { pixelType: "S8" }));
    assert.equal(s8.nodata, null, "an integer tiff without noData has no nodata tag");
    assert.deepEqual(s8.values, northUp([2, 0, 127, -3, 127, -128]));
  });

  it("noData=-3.4028235e38 (the lowest float32 as clients print it) is that float32", async () => {
    const t = await readGeotiffJs(await exportTiff("float", { noData: "-3.4028235e38" }));
    assert.equal(t.nodata, F32_LOWEST);
    // An explicit noData reserves nothing: the data's own lowest float32 is no data too.
    assert.deepEqual(t.values, northUp([1.5, F32_LOWEST, 300, Math.fround(-2.6), 254.5, F32_LOWEST]));
  });

  it("a noData the pixel type cannot hold is a 400 naming noData", () => {
    const cube = cubes.float!;
    const base = { bbox: "-5,-10,25,10", size: "3,2", format: "tiff" };
    for (const [params, message] of [
      [{ pixelType: "U8", noData: "-1" }, /noData -1 is not a value a U8 tiff can hold \(integers 0 to 255\)/],
      [{ pixelType: "S16", noData: "1.5" }, /noData 1.5 is not a value a S16 tiff can hold/],
      [{ pixelType: "U16", noData: "NaN" }, /noData NaN is not a value a U16 tiff can hold/],
      [{ noData: "1e39" }, /noData 1e\+39 is not a value a F32 tiff can hold/],
      [{ format: "png", noData: "NaN" }, /noData NaN is only for format=tiff/],
    ] as const) {
      assert.throws(
        () => planExport(cube, {}, { ...base, ...params }),
        (e: unknown) => (e as { parameter?: string }).parameter === "noData" && message.test((e as Error).message),
        String(message),
      );
    }
  });
});

const python = "/usr/bin/python3";
const noGdal =
  spawnSync(python, ["-c", "from osgeo import gdal"]).status === 0
    ? undefined
    : "python3-gdal is not installed (Debian: apt-get install python3-gdal)";

describe("GDAL reads exportImage's tiff", { skip: noGdal }, () => {
  it("band nodata is the lowest float32 and its mask leaves out the no-data cell", async () => {
    const path = join(dir, "export.tif");
    await writeFile(path, await exportTiff("float"));
    const script = [
      "import json, sys",
      "from osgeo import gdal",
      "dataset = gdal.Open(sys.argv[1])  # held: a band outlived by its dataset crashes GDAL's bindings",
      "band = dataset.GetRasterBand(1)",
      "print(json.dumps({'nodata': band.GetNoDataValue(), 'mask': band.GetMaskBand().ReadAsArray().ravel().tolist()}))",
    ].join("\n");
    const { stdout } = await run(python, ["-c", script, path]);
    const gdal = JSON.parse(stdout) as { nodata: number; mask: number[] };
    assert.equal(gdal.nodata, F32_LOWEST);
    // GDAL's mask: 255 data, 0 no data. The last cell (data at the float32 floor) is left out:
    // GDAL 3.6 masks it too, its tolerance test overflowing to Infinity so far down.
    const [north, south] = [gdal.mask.slice(0, 3), gdal.mask.slice(3)];
    assert.deepEqual([...south, ...north.slice(0, 2)], [255, 0, 255, 255, 255]);
  });
});
