/**
 * A minimal PNG decoder for tests, written apart from src/services/render/png.ts so that a round
 * trip checks the encoder against an independent reading of the spec: chunk walk with CRC check
 * (node:zlib's crc32), IHDR, PLTE, tRNS, IDAT inflate, all five row filters, and expansion of
 * 8-bit greyscale, RGB, palette and RGBA images to RGBA.
 */
import zlib from "node:zlib";

export interface DecodedPng {
  readonly width: number;
  readonly height: number;
  readonly bitDepth: number;
  readonly colorType: number;
  /** Chunk types in file order. */
  readonly chunks: readonly string[];
  readonly palette?: Uint8Array;
  readonly trns?: Uint8Array;
  /** Filter type of each row. */
  readonly filters: readonly number[];
  readonly rgba: Uint8Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function decodePng(file: Uint8Array): DecodedPng {
  SIGNATURE.forEach((b, i) => {
    if (file[i] !== b) throw new Error(`byte ${i} of the signature is ${file[i]}, expected ${b}`);
  });
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const chunks: string[] = [];
  const idat: Uint8Array[] = [];
  let header: { width: number; height: number; bitDepth: number; colorType: number } | undefined;
  let palette: Uint8Array | undefined;
  let trns: Uint8Array | undefined;
  let p = 8;
  while (p < file.length) {
    const length = view.getUint32(p);
    const type = String.fromCharCode(...file.subarray(p + 4, p + 8));
    const data = file.subarray(p + 8, p + 8 + length);
    const crc = view.getUint32(p + 8 + length);
    const native = (zlib as Partial<typeof zlib>).crc32;
    if (native && native(file.subarray(p + 4, p + 8 + length)) >>> 0 !== crc) throw new Error(`bad CRC in chunk ${type}`);
    chunks.push(type);
    if (type === "IHDR") {
      const d = new DataView(data.buffer, data.byteOffset, data.byteLength);
      header = { width: d.getUint32(0), height: d.getUint32(4), bitDepth: data[8], colorType: data[9] };
      if (data[10] !== 0 || data[11] !== 0 || data[12] !== 0) throw new Error("unsupported compression, filter method or interlace");
    } else if (type === "PLTE") palette = data.slice();
    else if (type === "tRNS") trns = data.slice();
    else if (type === "IDAT") idat.push(data);
    p += 12 + length;
    if (type === "IEND") break;
  }
  if (!header) throw new Error("no IHDR");
  if (header.bitDepth !== 8) throw new Error(`bit depth ${header.bitDepth} is not supported by the test decoder`);
  const { width, height, colorType } = header;
  const channels = CHANNELS[colorType];
  const stride = width * channels;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  if (raw.length !== height * (stride + 1)) throw new Error(`inflated ${raw.length} bytes, expected ${height * (stride + 1)}`);
  const pixels = new Uint8Array(height * stride);
  const filters: number[] = [];
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    filters.push(f);
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const o = y * stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? pixels[o + i - channels] : 0;
      const b = y > 0 ? pixels[o - stride + i] : 0;
      const c = y > 0 && i >= channels ? pixels[o - stride + i - channels] : 0;
      let pred: number;
      if (f === 0) pred = 0;
      else if (f === 1) pred = a;
      else if (f === 2) pred = b;
      else if (f === 3) pred = (a + b) >> 1;
      else if (f === 4) {
        const q = a + b - c;
        const pa = Math.abs(q - a);
        const pb = Math.abs(q - b);
        const pc = Math.abs(q - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else throw new Error(`row ${y} has unknown filter ${f}`);
      pixels[o + i] = (line[i] + pred) & 255;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const s = i * channels;
    let px: number[];
    if (colorType === 6) px = [pixels[s], pixels[s + 1], pixels[s + 2], pixels[s + 3]];
    else if (colorType === 2) px = [pixels[s], pixels[s + 1], pixels[s + 2], 255];
    else if (colorType === 0) px = [pixels[s], pixels[s], pixels[s], 255];
    else if (colorType === 4) px = [pixels[s], pixels[s], pixels[s], pixels[s + 1]];
    else {
      const k = pixels[s];
      if (!palette || k * 3 >= palette.length) throw new Error(`palette index ${k} is outside the PLTE`);
      px = [palette[k * 3], palette[k * 3 + 1], palette[k * 3 + 2], trns && k < trns.length ? trns[k] : 255];
    }
    rgba.set(px, i * 4);
  }
  return { ...header, chunks, palette, trns, filters, rgba };
}
