/**
 * exportImage's and the tile resource's `format=lerc` (SPEC §11): raw values, not colours, in
 * a LERC2 blob (io/lerc2Write.ts), one blob per band, as ArcGIS answers the Maps SDK's
 * ImageryLayer (pixel access, client-side rendering) and ImageryTileLayer. Pixels without a
 * value (nodata, NaN, the request's noData, outside the data) are left out by the blob's mask.
 *
 * Request parameters, as ArcGIS names them: `compressionTolerance` (the largest error a
 * value may take; default lossless; integers are never coarser than 0.5, which is lossless
 * for them; the SDK sends 0.01) and `lercVersion` (2, the default; 1 is the older CntZImage
 * format, which Strata does not write).
 */
import { InvalidInputError } from "../cube/errors.js";
import { PIXEL_ARRAYS, type PixelType, type Window } from "../cube/types.js";
import { type Lerc2Band, encodeLerc2 } from "../io/lerc2Write.js";
import { PIXEL_RANGE, isFloatPixelType } from "./pixelRange.js";
import { numberParam } from "./requestValues.js";

/** What a blob of raw values is served as (ArcGIS answers LERC as plain bytes). */
export const LERC_CONTENT_TYPE = "application/octet-stream";
export const LERC_EXTENSION = "lerc";

/**
 * The tolerance of a LERC request: `compressionTolerance` ≥ 0 (default 0, lossless);
 * `lercVersion` must be 2 when given.
 * @example
 * lercTolerance({ compressionTolerance: "0.01", lercVersion: "2" }); // 0.01
 */
export function lercTolerance(params: Readonly<Record<string, string | undefined>>): number {
  const version = params.lercVersion?.trim();
  if (version && version !== "2") {
    throw new InvalidInputError(`lercVersion must be 2 (LERC2); Strata does not write LERC version ${version}`, {
      parameter: "lercVersion",
    });
  }
  const text = params.compressionTolerance?.trim();
  if (!text) return 0;
  const tolerance = numberParam(text, "compressionTolerance");
  if (tolerance < 0) {
    throw new InvalidInputError(`compressionTolerance must be 0 (lossless) or more; got ${text}`, { parameter: "compressionTolerance" });
  }
  return tolerance;
}

/** Bands of raw values being filled, strip by strip, then encoded as one LERC2 blob. */
export interface LercRaster {
  /**
   * Put one strip's values of every band (NaN for no value) starting at pixel `at`. Integer
   * types take values rounded and clamped to their range; values equal to `noData`, and
   * pixels outside `validWindow`, have none.
   */
  put(values: readonly Float64Array[], at: number): void;
  encode(): Uint8Array;
}

/**
 * @example
 * const raster = lercRaster(2, 256, 256, "F32", { maxZError: 0.01 });
 * raster.put([slope, intercept], 0);
 * const blob = raster.encode();
 */
export function lercRaster(
  bandCount: number,
  width: number,
  height: number,
  pixelType: PixelType,
  { maxZError, noData, validWindow }: { maxZError: number; noData?: number; validWindow?: Window },
): LercRaster {
  const n = width * height;
  const bands: (Lerc2Band & { valid: Uint8Array })[] = Array.from({ length: bandCount }, () => ({
    values: new PIXEL_ARRAYS[pixelType](n),
    valid: new Uint8Array(n),
  }));
  const range = isFloatPixelType(pixelType) ? undefined : PIXEL_RANGE[pixelType];
  const stored = pixelType === "F32" ? Math.fround : (x: number) => x;
  const w = validWindow;
  const inWindow = w
    ? (k: number) => {
        const x = k % width;
        const y = (k - x) / width;
        return x >= w.x && x < w.x + w.width && y >= w.y && y < w.y + w.height;
      }
    : () => true;
  return {
    put(values, at) {
      values.forEach((strip, b) => {
        const { values: out, valid } = bands[b];
        for (let i = 0; i < strip.length; i++) {
          const v = strip[i];
          if (v !== v || v === noData || !inWindow(at + i)) continue;
          const z = range ? Math.min(range[1], Math.max(range[0], Math.round(v))) : v;
          // The request's noData compared as stored too (an F32 noData of -3.4e38 rounds).
          if (noData !== undefined && stored(z) === stored(noData)) continue;
          out[at + i] = z;
          valid[at + i] = 1;
        }
      });
    },
    encode: () => encodeLerc2(bands, width, height, { maxZError }),
  };
}
