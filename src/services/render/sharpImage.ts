/**
 * PNG and JPEG through sharp (libvips; the native binaries come in its npm package): libpng
 * with zlib-ng for PNG, mozjpeg for JPEG. sharp is loaded once per thread, on first use, and
 * set up for a server that encodes many mid-sized images on few cores:
 * - one libvips thread per image (`concurrency(1)`): an encode is a single sequential pass,
 *   and the parallelism is the work pool's threads, one image each;
 * - no libvips operation cache: every rendered image is new, so a cache only holds buffers.
 * sharp runs the encode on libuv's thread pool; the calling thread just awaits it.
 *
 * On glibc, libvips must stay loaded while threads that used it come and go (sharp's
 * documentation, lovell/sharp#2263): the server loads it on its main thread at start
 * (`loadSharp`), before any work thread exists.
 */
import type SharpModule from "sharp";
import type { Rgb } from "./colormaps.js";
import { checkJpegQuality } from "./jpeg.js";
import { checkRgbaSize, composite, hasTransparency } from "./png.js";

type Sharp = typeof SharpModule;

/** sharp, or why it could not load (the pure-JS encoders are used then). */
export type SharpLoad =
  { readonly ok: true; readonly sharp: Sharp; readonly version: string } | { readonly ok: false; readonly reason: string };

let loading: Promise<SharpLoad> | undefined;

/**
 * Load and set up sharp once; never throws.
 * @example
 * const load = await loadSharp();
 * if (!load.ok) log.warn(`PNG and JPEG in JavaScript: ${load.reason}`);
 */
export function loadSharp(): Promise<SharpLoad> {
  loading ??= import("sharp").then(
    ({ default: sharp }): SharpLoad => {
      sharp.concurrency(1);
      sharp.cache(false);
      return { ok: true, sharp, version: `sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}` };
    },
    (e: unknown): SharpLoad => ({ ok: false, reason: (e instanceof Error ? e.message : String(e)).split("\n")[0] }),
  );
  return loading;
}

/**
 * RGBA pixels as a truecolour PNG: png32 keeps alpha, png24 is composited over white (no row
 * filter and zlib level 6, as png.ts: rendered images are runs of few colours, which deflate
 * finds as repeats).
 * @example
 * const png = await sharpPng(sharp, rgba, 512, 512, "png32");
 */
export async function sharpPng(
  sharp: Sharp,
  rgba: Uint8Array,
  width: number,
  height: number,
  format: "png24" | "png32",
): Promise<Uint8Array> {
  checkRgbaSize(rgba, width, height, "PNG");
  // Compositing stays ours (png.ts's composite), so png24 pixels are the pure-JS encoder's to the bit.
  const pixels = format === "png24" ? composite(rgba, WHITE) : rgba;
  const out = await sharp(asBuffer(pixels), { raw: { width, height, channels: format === "png24" ? 3 : 4 } })
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return asBytes(out);
}

/**
 * RGBA pixels as a baseline JPEG with the IJG quality scaling (1..100) and no chroma
 * subsampling, as jpeg-js (the pure-JS encoder): same quantisation tables, same colours within
 * JPEG's error; transparent pixels show white.
 * @example
 * const jpg = await sharpJpeg(sharp, rgba, 512, 512, 80);
 */
export async function sharpJpeg(sharp: Sharp, rgba: Uint8Array, width: number, height: number, quality: number): Promise<Uint8Array> {
  checkRgbaSize(rgba, width, height, "JPEG");
  checkJpegQuality(quality);
  const transparent = hasTransparency(rgba);
  const image = sharp(asBuffer(transparent ? composite(rgba, WHITE) : rgba), { raw: { width, height, channels: transparent ? 3 : 4 } });
  const out = await (transparent ? image : image.removeAlpha())
    .jpeg({ quality: Math.round(quality), chromaSubsampling: "4:4:4" })
    .toBuffer();
  return asBytes(out);
}

const WHITE: Rgb = [255, 255, 255];

/** The same bytes as a Buffer, without a copy (sharp takes Buffers). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function asBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
