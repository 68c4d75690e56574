/**
 * A rendered RGBA image in one of exportImage's picture formats, by the encoder the server
 * runs with:
 * - `sharp` (the default): png24, png32 and jpg through libvips (sharpImage.ts);
 * - `js`: the pure-JavaScript encoders (png.ts, jpeg.ts), also used whenever sharp cannot load.
 * png8 (and `png`, which is png8) always takes png.ts's own palette: libvips quantises with
 * libimagequant, which is not exact (a rendered ramp is 256 colours plus transparent, and it
 * moves colours to fit them) and measured slower here (1024², 215 colours: ~105-170 ms
 * against 59 ms), and deflating the index plane through libvips was slower than node:zlib.
 * `jpgpng` is ArcGIS's: a PNG32 when any pixel is transparent (nodata stays see-through),
 * a JPEG otherwise.
 */
import { encodeJpeg } from "./jpeg.js";
import { encodePng, hasTransparency } from "./png.js";
import { loadSharp, sharpJpeg, sharpPng } from "./sharpImage.js";

export const IMAGE_ENCODERS = ["sharp", "js"] as const;
export type ImageEncoder = (typeof IMAGE_ENCODERS)[number];

export type PictureFormat = "png" | "png8" | "png24" | "png32" | "jpg" | "jpgpng";

export interface EncodedImage {
  readonly bytes: Uint8Array;
  readonly contentType: "image/png" | "image/jpeg";
  /** File extension for the image's href. */
  readonly extension: "png" | "jpg";
}

export interface EncodeImageOptions {
  /** JPEG quality 1..100; default 75. */
  readonly quality?: number;
  /** Default "sharp" (the pure-JS encoders when it cannot load). */
  readonly encoder?: ImageEncoder;
}

/**
 * @throws RangeError when the sizes disagree or quality is out of range.
 * @example
 * const { bytes, contentType } = await encodeImage(rgba, 512, 512, "jpgpng", { quality: 80 });
 */
export async function encodeImage(
  rgba: Uint8Array,
  width: number,
  height: number,
  format: PictureFormat,
  options: EncodeImageOptions = {},
): Promise<EncodedImage> {
  const chosen = format === "jpgpng" ? (hasTransparency(rgba) ? "png32" : "jpg") : format;
  const load = (options.encoder ?? "sharp") === "sharp" ? await loadSharp() : undefined;
  const sharp = load?.ok ? load.sharp : undefined;
  if (chosen === "jpg") {
    const quality = options.quality ?? 75;
    const bytes = sharp ? await sharpJpeg(sharp, rgba, width, height, quality) : encodeJpeg(rgba, width, height, { quality });
    return { bytes, contentType: "image/jpeg", extension: "jpg" };
  }
  const bytes =
    sharp && (chosen === "png24" || chosen === "png32")
      ? await sharpPng(sharp, rgba, width, height, chosen)
      : encodePng(rgba, width, height, { format: chosen });
  return { bytes, contentType: "image/png", extension: "png" };
}
