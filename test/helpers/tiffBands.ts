/**
 * A GeoTIFF's bands as a reader that honours GDAL_NODATA sees them (geotiff.js reads the file;
 * the tag's value becomes NaN, as rasterio's or rioxarray's masked reads give it).
 */
import { fromArrayBuffer } from "geotiff";

export interface TiffBands {
  /** Typed as float32; a float64 file's bands are Float64Arrays. */
  readonly bands: Float32Array[];
  readonly width: number;
  readonly height: number;
  /** GDAL_NODATA, or null without the tag. */
  readonly nodata: number | null;
}

/**
 * @example
 * const { bands: [values] } = await tiffBands(await response.arrayBuffer());
 */
export async function tiffBands(file: ArrayBuffer | Uint8Array): Promise<TiffBands> {
  // A copy when given a view: geotiff.js reads the whole ArrayBuffer.
  const buffer = file instanceof Uint8Array ? file.slice().buffer : file;
  const image = await (await fromArrayBuffer(buffer)).getImage();
  const nodata = image.getGDALNoData();
  if (image.getSampleFormat() !== 3) throw new Error("tiffBands reads float tiffs: integer bands cannot hold NaN");
  const bands = (await image.readRasters()) as unknown as Float32Array[];
  for (const band of bands) for (let i = 0; i < band.length; i++) if (band[i] === nodata) band[i] = NaN;
  return { bands, width: image.getWidth(), height: image.getHeight(), nodata };
}
