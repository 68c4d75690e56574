/**
 * The values exportImage's `format=tiff` holds (SPEC §11): the slice's values in the requested
 * pixel type, clamped to the type's range as ArcGIS truncates them (300 as U8 is 255, not 44),
 * and no data marked by a value that GDAL, rasterio and the ArcGIS Maps SDK all read from the
 * GDAL_NODATA tag.
 *
 * Why not NaN: the SDK's TIFF reader (tiffParser.js in @arcgis/core) drops a NaN GDAL_NODATA,
 * and an ImageryLayer sends no `noData`, so NaN pixels would be drawn as data. ArcGIS marks a
 * float raster's NoData with the type's lowest value (-3.4028234663852886e38 for float32), which
 * every reader of the tag masks. Data near that mark are kept off it, since readers match so
 * large a no-data value within a tolerance: such values (none in real data) move by at most a
 * relative 1e-6. A request's own `noData` is used as given (values equal to it are no
 * data, as ArcGIS defines the parameter); `noData=NaN` asks for NaN marks in a float tiff.
 */
import { InvalidInputError } from "../cube/errors.js";
import { PIXEL_ARRAYS, type PixelType, type TypedArray } from "../cube/types.js";
import { PIXEL_RANGE, isFloatPixelType as isFloat } from "./pixelRange.js";

/** How a tiff of one pixel type holds values and no data. */
export interface TiffEncoding {
  /** Written in nodata pixels and as GDAL_NODATA; undefined for an integer tiff without `noData` (nodata pixels hold 0). */
  readonly nodata: number | undefined;
  /** One band's values (NaN for no data) in the pixel type. */
  convert(values: Float64Array): TypedArray;
}

/**
 * The encoding of a tiff of `pixelType`, given the request's `noData` (NaN allowed for float types).
 * @throws InvalidInputError naming noData when the pixel type cannot hold it.
 * @example
 * tiffEncoding("F32", undefined).nodata; // -3.4028234663852886e38
 * tiffEncoding("U8", 0).convert(Float64Array.of(300, NaN, -2.6)); // Uint8Array [255, 0, 0]
 */
export function tiffEncoding(pixelType: PixelType, requested: number | undefined): TiffEncoding {
  const [lowest, highest] = PIXEL_RANGE[pixelType];
  const float = isFloat(pixelType);
  if (requested !== undefined) checkNoData(requested, pixelType);
  const nodata = requested ?? (float ? lowest : undefined);
  // The default mark is reserved: data stay beyond readers' tolerance of it.
  const low = requested === undefined && float ? reservedFloor(lowest, pixelType) : lowest;
  const fill = nodata ?? 0;
  return {
    nodata,
    convert(values) {
      const out = new PIXEL_ARRAYS[pixelType](values.length);
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (v !== v) out[i] = fill;
        else {
          // float32 rounds before the clamp, so nothing rounds onto the reserved mark afterwards.
          const x = pixelType === "F32" ? Math.fround(v) : float ? v : Math.round(v);
          out[i] = x < low ? low : x > highest ? highest : x;
        }
      }
      return out;
    },
  };
}

function checkNoData(noData: number, pixelType: PixelType): void {
  const [lowest, highest] = PIXEL_RANGE[pixelType];
  // A float32 noData counts by the float32 it becomes: -3.4028235e38, as clients print the lowest, is it.
  const held = pixelType === "F32" ? Math.fround(noData) : noData;
  const inRange = held >= lowest && held <= highest;
  if (isFloat(pixelType) ? Number.isNaN(noData) || inRange : Number.isInteger(noData) && inRange) return;
  const kind = isFloat(pixelType) ? `values ${lowest} to ${highest}, or NaN` : `integers ${lowest} to ${highest}`;
  throw new InvalidInputError(`noData ${noData} is not a value a ${pixelType} tiff can hold (${kind})`, { parameter: "noData" });
}

/**
 * How far (relative) data are kept from a float type's lowest when it marks no data: readers
 * match a no-data value this large within a tolerance, the Maps SDK 2e-7 (pixelRangeUtils.js),
 * GDAL about 4.8e-7 (ARE_REAL_EQUAL). GDAL 3.6's test overflows for values below about -1e31
 * (their sum with the mark is -Infinity), so it masks those too: no margin can help there.
 */
const DATA_MARGIN = 1e-6;

/** The lowest value data may take when `mark` (a float type's lowest) marks no data. */
function reservedFloor(mark: number, pixelType: PixelType): number {
  const floor = mark * (1 - DATA_MARGIN);
  return pixelType === "F32" ? Math.fround(floor) : floor;
}
