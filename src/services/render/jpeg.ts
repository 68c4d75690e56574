/**
 * JPEG output for exportImage (jpeg-js, pure JavaScript), and the ArcGIS `jpgpng` choice: a
 * JPEG when every pixel is opaque, else a PNG32 so transparency survives.
 */
import jpeg from "jpeg-js";
import type { Rgb } from "./colormaps.js";
import { composite, encodePng, hasTransparency } from "./png.js";

export interface JpegOptions {
  /** 1..100; default 75 (ArcGIS compressionQuality's default). */
  readonly quality?: number;
  /** Colour under transparent pixels (JPEG has no alpha); default white. */
  readonly background?: Rgb;
}

/**
 * Encode RGBA pixels as a baseline JPEG; transparent pixels show the background.
 * @throws RangeError when the sizes disagree or quality is out of range.
 * @example
 * const jpg = encodeJpeg(rgba, 512, 512, { quality: 80 });
 */
export function encodeJpeg(rgba: Uint8Array, width: number, height: number, options: JpegOptions = {}): Uint8Array {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`JPEG size must be positive integers, got ${width}x${height}`);
  }
  if (rgba.length !== width * height * 4) {
    throw new RangeError(`JPEG: ${rgba.length} bytes of RGBA for a ${width}x${height} image (expected ${width * height * 4})`);
  }
  const quality = options.quality ?? 75;
  if (!(quality >= 1 && quality <= 100)) throw new RangeError(`JPEG quality must be 1..100, got ${quality}`);
  // jpeg-js reads RGBA and ignores alpha: flatten onto the background first when needed.
  const data = hasTransparency(rgba) ? expandRgb(composite(rgba, options.background ?? [255, 255, 255])) : rgba;
  const { data: bytes } = jpeg.encode({ data, width, height }, Math.round(quality));
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export interface EncodedImage {
  readonly format: "jpg" | "png";
  readonly contentType: "image/jpeg" | "image/png";
  readonly bytes: Uint8Array;
}

/**
 * ArcGIS `jpgpng`: PNG32 when any pixel is transparent (nodata stays see-through), JPEG otherwise.
 * @example
 * const { contentType, bytes } = encodeJpgPng(rgba, 512, 512, { quality: 75 });
 */
export function encodeJpgPng(rgba: Uint8Array, width: number, height: number, options: JpegOptions = {}): EncodedImage {
  return hasTransparency(rgba)
    ? { format: "png", contentType: "image/png", bytes: encodePng(rgba, width, height, { format: "png32" }) }
    : { format: "jpg", contentType: "image/jpeg", bytes: encodeJpeg(rgba, width, height, options) };
}

/** RGB -> opaque RGBA. */
function expandRgb(rgb: Uint8Array): Uint8Array {
  const n = rgb.length / 3;
  const out = new Uint8Array(n * 4);
  for (let i = 0, s = 0, d = 0; i < n; i++, s += 3, d += 4) {
    out[d] = rgb[s];
    out[d + 1] = rgb[s + 1];
    out[d + 2] = rgb[s + 2];
    out[d + 3] = 255;
  }
  return out;
}
