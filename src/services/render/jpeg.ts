/**
 * JPEG in pure JavaScript (jpeg-js): exportImage's JPEG encoder only when sharp cannot load
 * (sharpImage.ts encodes JPEG otherwise, with the same quantisation tables).
 */
import jpeg from "jpeg-js";
import type { Rgb } from "./colormaps.js";
import { checkRgbaSize, composite, hasTransparency } from "./png.js";

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
  checkRgbaSize(rgba, width, height, "JPEG");
  const quality = options.quality ?? 75;
  checkJpegQuality(quality);
  // jpeg-js reads RGBA and ignores alpha: flatten onto the background first when needed.
  const data = hasTransparency(rgba) ? expandRgb(composite(rgba, options.background ?? [255, 255, 255])) : rgba;
  const { data: bytes } = jpeg.encode({ data, width, height }, Math.round(quality));
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * @throws RangeError unless 1 ≤ quality ≤ 100.
 * @example
 * checkJpegQuality(0); // RangeError: JPEG quality must be 1..100, got 0
 */
export function checkJpegQuality(quality: number): void {
  if (!(quality >= 1 && quality <= 100)) throw new RangeError(`JPEG quality must be 1..100, got ${quality}`);
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
