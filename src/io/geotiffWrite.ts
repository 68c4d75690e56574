/**
 * GeoTIFF writer: one image of one or more bands (little-endian, strips, uncompressed or
 * deflate), georeferenced by pixel scale + tiepoint + GeoKeys, with GDAL's nodata tag. Enough
 * for exportImage format=tiff. Read back by geotiff.js in the tests (and checked with tifffile).
 *
 * Bands are stored band-sequential (PlanarConfiguration 2) so each band is written as it comes,
 * without interleaving. The file is classic TIFF, so it must stay under 4 GiB.
 */
import zlib from "node:zlib";
import { UnsupportedDataError } from "../cube/errors.js";
import type { Grid, PixelType, TypedArray } from "../cube/types.js";

export interface GeoTiffInput {
  readonly width: number;
  readonly height: number;
  /** One array per band, each width × height values row-major, north-up, of the pixel type's array class. */
  readonly bands: readonly TypedArray[];
  readonly pixelType: PixelType;
  /**
   * Written as GDAL_NODATA; NaN is allowed for float types, but the ArcGIS Maps SDK ignores a NaN
   * GDAL_NODATA (exportImage writes the lowest float32 instead, services/tiffValues.ts).
   */
  readonly nodata?: number;
  /** Map coordinates of the upper-left corner of the upper-left pixel. */
  readonly originX: number;
  readonly originY: number;
  /** Cell size, both positive (rows run north to south). */
  readonly pixelWidth: number;
  readonly pixelHeight: number;
  /** EPSG code of the CRS (Web Mercator aliases such as 102100 are written as 3857); none = no CRS keys. */
  readonly epsg?: number;
  /** Whether the CRS is geographic (longitude/latitude); guessed from the code when absent. */
  readonly geographic?: boolean;
  /** Deflate each strip (TIFF compression 8); default false. */
  readonly compress?: boolean;
}

interface PixelLayout {
  readonly array: new (n: number) => TypedArray;
  readonly bits: number;
  /** TIFF SampleFormat: 1 unsigned integer, 2 signed integer, 3 IEEE float. */
  readonly format: 1 | 2 | 3;
  readonly min: number;
  readonly max: number;
}

const LAYOUTS: Readonly<Record<PixelType, PixelLayout>> = {
  U8: { array: Uint8Array, bits: 8, format: 1, min: 0, max: 255 },
  S8: { array: Int8Array, bits: 8, format: 2, min: -128, max: 127 },
  U16: { array: Uint16Array, bits: 16, format: 1, min: 0, max: 65535 },
  S16: { array: Int16Array, bits: 16, format: 2, min: -32768, max: 32767 },
  U32: { array: Uint32Array, bits: 32, format: 1, min: 0, max: 4294967295 },
  S32: { array: Int32Array, bits: 32, format: 2, min: -2147483648, max: 2147483647 },
  F32: { array: Float32Array, bits: 32, format: 3, min: -Infinity, max: Infinity },
  F64: { array: Float64Array, bits: 64, format: 3, min: -Infinity, max: Infinity },
};

const WEB_MERCATOR_ALIASES: ReadonlySet<number> = new Set([102100, 102113, 900913, 3785]);
/** Geographic 2D codes outside 4000-4999 that Strata's data are likely to carry. */
const GEOGRAPHIC_OUTSIDE_4000S: ReadonlySet<number> = new Set([6318, 6322, 6783, 7844]);
/** Projected codes inside 4000-4999 (World Equidistant Cylindrical and its sphere). */
const PROJECTED_INSIDE_4000S: ReadonlySet<number> = new Set([4087, 4088]);

/** Strips of about this many uncompressed bytes: big enough to deflate well, small enough to read in part. */
const STRIP_BYTES = 256 * 1024;

/**
 * Encode bands as a GeoTIFF file.
 * @throws RangeError naming the problem for a wrong band length or array class, an unknown
 *   pixel type, a nodata the type cannot hold, a bad cell size or EPSG code.
 * @example
 * const tif = encodeGeoTiff({ width: 360, height: 180, bands: [values], pixelType: "F32", nodata: NaN,
 *   originX: -180, originY: 90, pixelWidth: 1, pixelHeight: 1, epsg: 4326, compress: true });
 */
export function encodeGeoTiff(input: GeoTiffInput): Uint8Array {
  const { width, height, bands, pixelType, nodata } = input;
  const layout = LAYOUTS[pixelType];
  if (!layout) throw new RangeError(`GeoTIFF: unknown pixel type "${pixelType}"; known: ${Object.keys(LAYOUTS).join(", ")}`);
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`GeoTIFF: width and height must be positive integers, got ${width}x${height}`);
  }
  if (bands.length === 0 || bands.length > 65535) throw new RangeError(`GeoTIFF: needs 1 to 65535 bands, got ${bands.length}`);
  bands.forEach((b, i) => {
    if (!(b instanceof layout.array)) {
      throw new RangeError(`GeoTIFF: band ${i + 1} is a ${b.constructor.name} but pixel type ${pixelType} needs a ${layout.array.name}`);
    }
    if (b.length !== width * height)
      throw new RangeError(`GeoTIFF: band ${i + 1} has ${b.length} values, expected ${width}x${height} = ${width * height}`);
  });
  const { originX, originY, pixelWidth, pixelHeight } = input;
  if (![originX, originY].every(Number.isFinite)) throw new RangeError(`GeoTIFF: the origin must be finite, got (${originX}, ${originY})`);
  if (!(pixelWidth > 0 && pixelHeight > 0 && Number.isFinite(pixelWidth) && Number.isFinite(pixelHeight))) {
    throw new RangeError(`GeoTIFF: the cell size must be positive, got ${pixelWidth} x ${pixelHeight}`);
  }
  const nodataText = nodata === undefined ? undefined : nodataString(nodata, pixelType, layout);
  const geoKeys = geoKeyDirectory(input.epsg, input.geographic);

  // Strips, band by band.
  const bytesPerSample = layout.bits / 8;
  const rowBytes = width * bytesPerSample;
  const rowsPerStrip = Math.max(1, Math.min(height, Math.floor(STRIP_BYTES / rowBytes)));
  const stripsPerBand = Math.ceil(height / rowsPerStrip);
  const strips: Uint8Array[] = [];
  for (const band of bands) {
    const bytes = littleEndianBytes(band, bytesPerSample);
    for (let s = 0; s < stripsPerBand; s++) {
      const raw = bytes.subarray(s * rowsPerStrip * rowBytes, Math.min(height, (s + 1) * rowsPerStrip) * rowBytes);
      strips.push(input.compress ? zlib.deflateSync(raw) : raw);
    }
  }

  const n = bands.length;
  const entries: Entry[] = [
    { tag: 256, type: LONG, values: [width] }, // ImageWidth
    { tag: 257, type: LONG, values: [height] }, // ImageLength
    { tag: 258, type: SHORT, values: Array(n).fill(layout.bits) }, // BitsPerSample
    { tag: 259, type: SHORT, values: [input.compress ? 8 : 1] }, // Compression: 1 none, 8 Adobe deflate
    { tag: 262, type: SHORT, values: [1] }, // PhotometricInterpretation: BlackIsZero
    { tag: 273, type: LONG, values: Array(strips.length).fill(0) }, // StripOffsets, filled in below
    { tag: 277, type: SHORT, values: [n] }, // SamplesPerPixel
    { tag: 278, type: LONG, values: [rowsPerStrip] }, // RowsPerStrip
    { tag: 279, type: LONG, values: strips.map((s) => s.length) }, // StripByteCounts
    { tag: 284, type: SHORT, values: [n > 1 ? 2 : 1] }, // PlanarConfiguration: 2 = band-sequential
    // ExtraSamples: bands past the first are unspecified data (not alpha), as GDAL writes them.
    ...(n > 1 ? [{ tag: 338, type: SHORT, values: Array(n - 1).fill(0) }] : []),
    { tag: 339, type: SHORT, values: Array(n).fill(layout.format) }, // SampleFormat
    { tag: 33550, type: DOUBLE, values: [pixelWidth, pixelHeight, 0] }, // ModelPixelScaleTag
    { tag: 33922, type: DOUBLE, values: [0, 0, 0, originX, originY, 0] }, // ModelTiepointTag: pixel (0,0) -> origin
    { tag: 34735, type: SHORT, values: geoKeys }, // GeoKeyDirectoryTag
    ...(nodataText !== undefined ? [{ tag: 42113, type: ASCII, values: nodataText }] : []), // GDAL_NODATA
  ];
  return layoutFile(entries, strips);
}

/**
 * Encode bands on a Strata grid (north-up, unrotated): origin and cell size come from its
 * transform and the EPSG code from its CRS. A CRS known only by WKT is not written (the file
 * is still placed by its pixel scale and tiepoint).
 * @throws UnsupportedDataError for rotated or south-up grids.
 * @example
 * const tif = encodeGridGeoTiff(grid, { bands: [slab.data as Float32Array], pixelType: "F32", nodata: NaN, compress: true });
 */
export function encodeGridGeoTiff(
  grid: Grid,
  options: { bands: readonly TypedArray[]; pixelType: PixelType; nodata?: number; compress?: boolean },
): Uint8Array {
  const [t0, t1, t2, t3, t4, t5] = grid.transform;
  if (t2 !== 0 || t4 !== 0 || !(t1 > 0) || !(t5 < 0)) {
    throw new UnsupportedDataError(`cannot write a GeoTIFF for a rotated or south-up grid (transform ${JSON.stringify(grid.transform)})`);
  }
  return encodeGeoTiff({
    width: grid.width,
    height: grid.height,
    ...options,
    originX: t0,
    originY: t3,
    pixelWidth: t1,
    pixelHeight: -t5,
    ...(grid.crs.epsg !== undefined ? { epsg: grid.crs.epsg } : {}),
  });
}

/* ---------------------------------------------------------------------------------- */
/* GeoKeys and nodata                                                                  */
/* ---------------------------------------------------------------------------------- */

/**
 * True for EPSG codes of geographic 2D CRSs, by a heuristic with no CRS database: 4000-4999 but
 * 4087/4088, plus a few NAD83 and GDA2020 realisations. Pass `geographic` to encodeGeoTiff when
 * it guesses wrong.
 * @example
 * isGeographicEpsg(4326); // true
 * isGeographicEpsg(32633); // false
 */
export function isGeographicEpsg(code: number): boolean {
  return (code >= 4000 && code <= 4999 && !PROJECTED_INSIDE_4000S.has(code)) || GEOGRAPHIC_OUTSIDE_4000S.has(code);
}

function geoKeyDirectory(epsg: number | undefined, geographic: boolean | undefined): number[] {
  // Header: KeyDirectoryVersion 1, KeyRevision 1.0, then the number of keys.
  const keys: [number, number][] = [[1025, 1]]; // GTRasterTypeGeoKey: RasterPixelIsArea
  if (epsg !== undefined) {
    const code = WEB_MERCATOR_ALIASES.has(epsg) ? 3857 : epsg;
    // GeoKey values are 16-bit; EPSG CRS codes lie in 1024..32766 (32767 means user-defined).
    if (!(Number.isInteger(code) && code >= 1024 && code <= 32766))
      throw new RangeError(`GeoTIFF: EPSG code ${epsg} cannot be written as a GeoKey (1024..32766)`);
    const geo = geographic ?? isGeographicEpsg(code);
    keys.push([1024, geo ? 2 : 1]); // GTModelTypeGeoKey: 2 geographic, 1 projected
    keys.push(geo ? [2048, code] : [3072, code]); // GeographicTypeGeoKey or ProjectedCSTypeGeoKey
  }
  keys.sort((a, b) => a[0] - b[0]);
  // Each key: id, location 0 (value inline), count 1, value.
  return [1, 1, 0, keys.length, ...keys.flatMap(([id, value]) => [id, 0, 1, value])];
}

/** GDAL_NODATA text: the value as the type will hold it. */
function nodataString(nodata: number, pixelType: PixelType, layout: PixelLayout): string {
  if (layout.format === 3) {
    if (Number.isNaN(nodata)) return "nan";
    // F32 pixels hold fround(nodata): write that, so readers comparing in double still match.
    const held = pixelType === "F32" ? Math.fround(nodata) : nodata;
    if (!Number.isFinite(held)) throw new RangeError(`GeoTIFF: nodata ${nodata} is not a finite value of pixel type ${pixelType}`);
    return String(held);
  }
  if (!(Number.isInteger(nodata) && nodata >= layout.min && nodata <= layout.max)) {
    throw new RangeError(`GeoTIFF: nodata ${nodata} is not a value of pixel type ${pixelType} (integers ${layout.min}..${layout.max})`);
  }
  return String(nodata);
}

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The band's bytes in little-endian order (a view, no copy, on little-endian hosts). */
function littleEndianBytes(band: TypedArray, size: number): Uint8Array {
  const bytes = new Uint8Array(band.buffer, band.byteOffset, band.byteLength);
  if (HOST_LITTLE_ENDIAN || size === 1) return bytes;
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += size) for (let k = 0; k < size; k++) out[i + k] = bytes[i + size - 1 - k];
  return out;
}

/* ---------------------------------------------------------------------------------- */
/* TIFF layout                                                                         */
/* ---------------------------------------------------------------------------------- */

const ASCII = 2;
const SHORT = 3;
const LONG = 4;
const DOUBLE = 12;
const TYPE_SIZE: Readonly<Record<number, number>> = { [ASCII]: 1, [SHORT]: 2, [LONG]: 4, [DOUBLE]: 8 };

/** An IFD entry; ASCII values are a string (written NUL-terminated). */
interface Entry {
  readonly tag: number;
  readonly type: number;
  values: number[] | string;
}

const align8 = (x: number): number => (x + 7) & ~7;

/** Header, one IFD (entries sorted by tag), values that do not fit in an entry, then the strips. */
function layoutFile(entries: Entry[], strips: readonly Uint8Array[]): Uint8Array {
  const count = (e: Entry): number => (typeof e.values === "string" ? e.values.length + 1 : e.values.length);
  const ifdSize = 2 + entries.length * 12 + 4;
  // Out-of-line values, each 8-aligned (TIFF needs word alignment; doubles read better aligned).
  let offset = align8(8 + ifdSize);
  const valueOffsets = entries.map((e) => {
    const size = count(e) * TYPE_SIZE[e.type];
    if (size <= 4) return -1;
    const at = offset;
    offset = align8(offset + size);
    return at;
  });
  const stripOffsets = strips.map((s) => {
    const at = offset;
    offset = align8(offset + s.length);
    return at;
  });
  if (offset > 0xffffffff) throw new RangeError(`GeoTIFF: ${offset} bytes is past classic TIFF's 4 GiB limit`);
  const offsetsEntry = entries.find((e) => e.tag === 273);
  if (offsetsEntry) offsetsEntry.values = stripOffsets;

  const out = new Uint8Array(offset);
  const v = new DataView(out.buffer);
  out.set([0x49, 0x49], 0); // "II": little-endian
  v.setUint16(2, 42, true);
  v.setUint32(4, 8, true);
  v.setUint16(8, entries.length, true);
  entries.forEach((e, i) => {
    const p = 10 + i * 12;
    v.setUint16(p, e.tag, true);
    v.setUint16(p + 2, e.type, true);
    v.setUint32(p + 4, count(e), true);
    const at = valueOffsets[i] < 0 ? p + 8 : valueOffsets[i];
    if (valueOffsets[i] >= 0) v.setUint32(p + 8, at, true);
    writeValues(v, at, e);
  });
  v.setUint32(10 + entries.length * 12, 0, true); // no next IFD
  strips.forEach((s, i) => out.set(s, stripOffsets[i]));
  return out;
}

function writeValues(v: DataView, at: number, e: Entry): void {
  if (typeof e.values === "string") {
    for (let i = 0; i < e.values.length; i++) v.setUint8(at + i, e.values.charCodeAt(i));
    v.setUint8(at + e.values.length, 0);
    return;
  }
  const size = TYPE_SIZE[e.type];
  e.values.forEach((x, i) => {
    if (e.type === SHORT) v.setUint16(at + i * size, x, true);
    else if (e.type === LONG) v.setUint32(at + i * size, x, true);
    else v.setFloat64(at + i * size, x, true);
  });
}
