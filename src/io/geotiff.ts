/**
 * GeoTIFF reader on geotiff.js (tiles and strips read on demand). A GeoTIFF has no
 * multidimensional structure: it is one variable whose bands form the dimension `Band`
 * (values 1..n), on the grid of its first image.
 */
import { stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { fromFile } from "geotiff";
import { CorruptDataError, StrataError, UnsupportedDataError } from "../cube/errors.js";
import { dimensionInterval } from "../cube/dimension.js";
import { gridFromTransform } from "../cube/grid.js";
import type { Crs, Cube, GeoTransform, PixelType, Selection, Slab, TypedArray, Variable } from "../cube/types.js";

/**
 * Open a GeoTIFF as a one-variable cube.
 * @example
 * const cube = await openGeotiff("dem.tif");
 * const band1 = await cube.variables[0].read({ dims: [[0, 1]], window: { x: 0, y: 0, width: 64, height: 64 } });
 */
export async function openGeotiff(path: string): Promise<Cube> {
  let tiff: GeoTIFF | undefined;
  try {
    tiff = await fromFile(path);
    return await cubeOf(tiff, path);
  } catch (e) {
    await Promise.resolve(tiff?.close()).catch(() => undefined);
    if (e instanceof StrataError) throw e;
    throw new CorruptDataError(`${path} is not a readable GeoTIFF: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

type GeoTIFF = Awaited<ReturnType<typeof fromFile>>;

async function cubeOf(tiff: GeoTIFF, path: string): Promise<Cube> {
  const image = await tiff.getImage(0);
  await checkBlocksInFile(image, path);
  const width = image.getWidth();
  const height = image.getHeight();
  const bands = image.getSamplesPerPixel();
  const transform = transformOf(image, path);
  const crs = crsOf(image.getGeoKeys() ?? {});
  const grid = gridFromTransform(width, height, transform, crs);
  const pixelType = pixelTypeOf(image.getSampleFormat(0), image.getBitsPerSample(0), path);
  const noData = image.getGDALNoData();
  const nodata = noData ?? (pixelType === "F32" || pixelType === "F64" ? NaN : undefined);
  const values = Array.from({ length: bands }, (_, i) => i + 1);
  const name = basename(path, extname(path)).replace(/[^A-Za-z0-9_]/g, "_") || "Band";

  async function read(selection: Selection = {}): Promise<Slab> {
    const [b0, b1] = selection.dims?.[0] ?? [0, bands];
    const w = selection.window ?? { x: 0, y: 0, width, height };
    if (!(b0 >= 0 && b1 <= bands && b0 < b1)) throw new RangeError(`${name} dimension Band: range [${b0}, ${b1}) is outside [0, ${bands})`);
    if (!(w.x >= 0 && w.y >= 0 && w.x + w.width <= width && w.y + w.height <= height && w.width > 0 && w.height > 0)) {
      throw new RangeError(`${name}: window ${JSON.stringify(w)} is outside the ${width}x${height} grid`);
    }
    const samples = Array.from({ length: b1 - b0 }, (_, i) => b0 + i);
    let rasters: TypedArray[];
    try {
      rasters = (await image.readRasters({
        window: [w.x, w.y, w.x + w.width, w.y + w.height],
        samples,
        interleave: false,
        signal: selection.signal,
      })) as unknown as TypedArray[];
    } catch (e) {
      if (selection.signal?.aborted) throw e;
      throw new CorruptDataError(
        `${path}: cannot decode the pixels of ${name} (the file is damaged): ${e instanceof Error ? e.message : String(e)}`,
        {
          cause: e,
        },
      );
    }
    const plane = w.width * w.height;
    const out = new (rasters[0].constructor as new (n: number) => TypedArray)(plane * samples.length);
    rasters.forEach((r, i) => out.set(r as never, i * plane));
    return { data: out, shape: [samples.length, w.height, w.width] };
  }

  const variable: Variable = {
    name,
    description: name,
    unit: "",
    pixelType,
    nodata,
    dimensions: [{ name: "Band", sourceName: "Band", description: "Band", unit: "", values, ...dimensionInterval(values, false) }],
    chunkShape: [1, image.getTileHeight?.() ?? height, image.getTileWidth?.() ?? width],
    attributes: {},
    read,
  };
  return {
    grid,
    variables: [variable],
    attributes: {},
    skipped: [],
    close: async () => {
      await tiff.close();
    },
  };
}

/**
 * geotiff.js reads past the end of a file as zeros, so a truncated file would decode as
 * zeros: check that every tile or strip lies inside the file (byte count 0 is a GDAL
 * sparse block, filled with nodata, and is fine).
 */
async function checkBlocksInFile(image: Image, path: string): Promise<void> {
  const fd = image.fileDirectory;
  const tiled = fd.hasTag("TileOffsets");
  const what = tiled ? "tile" : "strip";
  const offsets = (await fd.loadValue(tiled ? "TileOffsets" : "StripOffsets")) as ArrayLike<number> | undefined;
  const counts = (await fd.loadValue(tiled ? "TileByteCounts" : "StripByteCounts")) as ArrayLike<number> | undefined;
  if (!offsets || !counts || offsets.length !== counts.length) {
    throw new CorruptDataError(`${path} is not a readable GeoTIFF: its first image has no valid ${what} offsets and byte counts`);
  }
  const { size } = await stat(path);
  for (let i = 0; i < offsets.length; i++) {
    const end = Number(offsets[i]) + Number(counts[i]);
    if (Number(counts[i]) > 0 && end > size) {
      throw new CorruptDataError(`${path} is truncated: ${what} ${i} ends at byte ${end} but the file has ${size} bytes`);
    }
  }
}

type Image = Awaited<ReturnType<GeoTIFF["getImage"]>>;

/**
 * The grid's transform from ModelTransformation, or from the first tiepoint (raster I,J to
 * model X,Y) and the pixel scale. PixelIsPoint rasters are shifted half a cell, as GDAL does,
 * so the transform always describes cell corners.
 */
function transformOf(image: Image, path: string): GeoTransform {
  const fd = image.fileDirectory;
  const pointKey = (image.getGeoKeys() ?? {}).GTRasterTypeGeoKey === 2;
  const matrix = fd.getValue("ModelTransformation") as number[] | undefined;
  const tie = fd.getValue("ModelTiepoint") as number[] | undefined;
  const scale = fd.getValue("ModelPixelScale") as number[] | undefined;
  let t: [number, number, number, number, number, number];
  if (matrix && matrix.length >= 8) t = [matrix[3], matrix[0], matrix[1], matrix[7], matrix[4], matrix[5]];
  else if (tie && tie.length >= 6 && scale && scale.length >= 2) {
    const [i, j, , x, y] = tie;
    t = [x - i * scale[0], scale[0], 0, y + j * scale[1], 0, -scale[1]];
  } else {
    throw new UnsupportedDataError(`${path} has no georeferencing (no ModelTiepoint/ModelPixelScale or ModelTransformation tags)`);
  }
  if (pointKey) {
    t[0] -= 0.5 * (t[1] + t[2]);
    t[3] -= 0.5 * (t[4] + t[5]);
  }
  return t;
}

function crsOf(keys: Record<string, unknown>): Crs {
  const projected = keys.ProjectedCSTypeGeoKey;
  const geographic = keys.GeographicTypeGeoKey;
  const code =
    typeof projected === "number" && projected !== 32767
      ? projected
      : typeof geographic === "number" && geographic !== 32767
        ? geographic
        : undefined;
  return code !== undefined ? { epsg: code } : {};
}

function pixelTypeOf(format: number, bits: number, path: string): PixelType {
  // TIFF SampleFormat: 1 unsigned, 2 signed, 3 float.
  const key = `${format}:${bits}`;
  const table: Record<string, PixelType> = {
    "1:8": "U8",
    "2:8": "S8",
    "1:16": "U16",
    "2:16": "S16",
    "1:32": "U32",
    "2:32": "S32",
    "3:32": "F32",
    "3:64": "F64",
  };
  const t = table[key];
  if (!t) throw new UnsupportedDataError(`${path}: ${bits}-bit samples of format ${format} are not supported`);
  return t;
}
