/**
 * exportImage (SPEC §11): a slice of a service drawn on a map's grid. The request's bbox,
 * bboxSR, imageSR and size make the target grid (square cells unless adjustAspectRatio is
 * false); the slice comes from sliceId / mosaicRule / time; the values are resampled onto
 * the target by analysis/warp (nearest, bilinear or cubic), then rendered (renderingRule, or
 * a default that suits scientific data) and encoded as PNG, JPEG, or a float GeoTIFF.
 * `bandIds` choose the bands of a multiband (trend) raster: one band is drawn with the
 * rendering's colours, three as red, green and blue; a tiff or a lerc blob (raw values,
 * lercRaster.ts) holds the bands asked for (all by default).
 */
import type { Statistics } from "../analysis/statistics.js";
import { type Envelope, type ResamplingMethod, transformEnvelope, warpCube } from "../analysis/warp.js";
import { InvalidInputError } from "../cube/errors.js";
import { gridFromTransform } from "../cube/grid.js";
import { type Cube, type Grid, PIXEL_ARRAYS, type PixelType, type Variable, type Window } from "../cube/types.js";
import { encodeGridGeoTiff } from "../io/geotiffWrite.js";
import { MAX_IMAGE_HEIGHT, MAX_IMAGE_WIDTH, gridEnvelope } from "./info.js";
import { type ImageEncoder, type PictureFormat, encodeImage } from "./render/encodeImage.js";
import {
  type RenderPlan,
  defaultRenderPlan,
  parseRenderingRule,
  renderNeedsAllPixels,
  renderRgb,
  renderRgba,
} from "./render/renderingRule.js";
import { type StretchSpec, stretchNeedsPixels } from "./render/stretch.js";
import { bandNamesOf, bandStatistics, parseBandIds, sliceReadDims } from "./bands.js";
import { LERC_CONTENT_TYPE, LERC_EXTENSION, lercRaster, lercTolerance } from "./lercRaster.js";
import { servedGrid } from "./servedExtent.js";
import { tiffEncoding } from "./tiffValues.js";
import { envelopeInImageSR } from "./worldBbox.js";
import { type Slice, selectSlice } from "./slices.js";
import { booleanParam, choiceParam, numberParam } from "./requestValues.js";
import { gridCrs, parseEnvelope, parseSpatialReference } from "./spatial.js";

export const IMAGE_FORMATS = ["png", "png8", "png24", "png32", "jpg", "jpgpng", "tiff", "lerc"] as const;
/** Formats of raw values rather than colours. */
const RAW_FORMATS: readonly ImageFormat[] = ["tiff", "lerc"];
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

const INTERPOLATIONS: Readonly<Record<string, ResamplingMethod>> = {
  rsp_nearestneighbor: "NEAREST",
  rsp_bilinearinterpolation: "BILINEAR",
  rsp_cubicconvolution: "CUBIC",
  rsp_majority: "NEAREST",
  nearest: "NEAREST",
  bilinear: "BILINEAR",
  cubic: "CUBIC",
};

const PIXEL_TYPES: readonly PixelType[] = ["U8", "S8", "U16", "S16", "U32", "S32", "F32", "F64"];

/** A checked exportImage request: everything needed to draw it. */
export interface ExportPlan {
  /** The grid the image covers, in imageSR. */
  readonly target: Grid;
  readonly format: ImageFormat;
  /** The slice drawn; undefined when the request names values no slice has (a blank image). */
  readonly slice: Slice | undefined;
  readonly method: ResamplingMethod;
  /** The bands read, as indices of the variable's bands: one drawn with `render`, three drawn as RGB, any number in a tiff. */
  readonly bands: readonly number[];
  readonly render: RenderPlan;
  /** Three bands: how each is stretched into its colour channel. */
  readonly rgb?: StretchSpec;
  /** tiff and lerc: the pixel type written (default F32 for a tiff, the variable's for lerc). */
  readonly pixelType?: PixelType;
  /** lerc: the largest error a value may take (compressionTolerance; 0 lossless). */
  readonly maxZError?: number;
  /** lerc: the only pixels that hold values (a tile's beyond the service's extent have none, tiling.ts). */
  readonly validWindow?: Window;
  /** Values drawn transparent (and tiff's nodata, lerc's masked). */
  readonly noData?: number;
  readonly quality: number;
}

/**
 * Check an exportImage request against a service; every bad value is a 400 naming its parameter.
 * @example
 * const plan = planExport(cube, stats, { bbox: "-180,-90,180,90", bboxSR: "4326", imageSR: "3857", size: "512,512", format: "png" });
 */
export function planExport(
  cube: Cube,
  statistics: Readonly<Record<string, Statistics | null | undefined>>,
  params: Record<string, string>,
): ExportPlan {
  const service = gridCrs(cube.grid);
  const box = params.bbox?.trim() ? parseEnvelope(params.bbox, "bbox") : undefined;
  const bboxCrs = parseSpatialReference(params.bboxSR, "bboxSR") ?? box?.spatialReference ?? service;
  const imageCrs = parseSpatialReference(params.imageSR, "imageSR") ?? bboxCrs;
  const [width, height] = parseSize(params.size);
  let envelope: Envelope | undefined = box
    ? box.envelope
    : transformEnvelope(gridEnvelope(servedGrid(cube.grid)), service.definition, bboxCrs.definition);
  if (envelope && bboxCrs.definition !== imageCrs.definition)
    envelope = envelopeInImageSR(envelope, bboxCrs.definition, imageCrs.definition);
  if (!envelope) throw new InvalidInputError("bbox has no part that can be drawn in imageSR", { parameter: "bbox" });
  if (booleanParam(params.adjustAspectRatio, true, "adjustAspectRatio")) envelope = squareCells(envelope, width, height);
  const cx = (envelope.xmax - envelope.xmin) / width;
  const cy = (envelope.ymax - envelope.ymin) / height;
  const target = gridFromTransform(width, height, [envelope.xmin, cx, 0, envelope.ymax, 0, -cy], imageCrs.crs);

  const format = choiceParam(params.format, "png", IMAGE_FORMATS, "format");
  const slice = selectSlice(cube, { sliceId: params.sliceId, mosaicRule: params.mosaicRule, time: params.time });
  const variable = slice?.variable ?? cube.variables[0];
  const bandCount = bandNamesOf(variable).length;
  const requested = parseBandIds(params.bandIds, bandCount);
  const raw = RAW_FORMATS.includes(format);
  const bands = raw ? (requested ?? Array.from({ length: bandCount }, (_, i) => i)) : drawnBands(requested);
  const stats = bandStatistics(statistics, variable)[bands[0]];
  const rule = params.renderingRule?.trim() ? parseRenderingRule(params.renderingRule) : undefined;
  const render = rule ?? defaultRenderPlan({ anomaly: "strata:anomaly" in variable.attributes, ...(stats ? { statistics: stats } : {}) });
  const rgb = !raw && bands.length === 3 ? rgbStretch(rule) : undefined;
  const interpolation = params.interpolation?.trim();
  const method = interpolation ? INTERPOLATIONS[interpolation.toLowerCase()] : "BILINEAR";
  if (!method) {
    throw new InvalidInputError(
      `interpolation must be RSP_NearestNeighbor, RSP_BilinearInterpolation, RSP_CubicConvolution or RSP_Majority; got "${interpolation}"`,
      {
        parameter: "interpolation",
      },
    );
  }
  const pixelType =
    params.pixelType?.trim() && params.pixelType.trim().toUpperCase() !== "UNKNOWN"
      ? choiceParam(params.pixelType.toUpperCase(), "F32", PIXEL_TYPES, "pixelType")
      : undefined;
  const noData = parseNoData(params.noData, format);
  // A tiff's noData must be a value of its pixel type: a 400 now, not a broken file later.
  if (format === "tiff") tiffEncoding(pixelType ?? "F32", noData);
  const quality = params.compressionQuality?.trim() ? numberParam(params.compressionQuality, "compressionQuality") : 75;
  if (!(quality >= 1 && quality <= 100))
    throw new InvalidInputError(`compressionQuality must be 1 to 100; got ${quality}`, { parameter: "compressionQuality" });
  return {
    target,
    format,
    slice,
    method,
    bands,
    render,
    ...(rgb ? { rgb } : {}),
    ...(pixelType ? { pixelType } : {}),
    ...(noData !== undefined ? { noData } : {}),
    ...(format === "lerc" ? { maxZError: lercTolerance(params) } : {}),
    quality,
  };
}

/** The request's noData: a number, or NaN (a float tiff's nodata marks; other formats treat NaN as nodata anyway). */
function parseNoData(text: string | undefined, format: ImageFormat): number | undefined {
  const trimmed = text?.trim();
  if (!trimmed) return undefined;
  if (trimmed.toLowerCase() !== "nan") return numberParam(trimmed, "noData");
  if (format === "tiff") return NaN;
  throw new InvalidInputError(`noData NaN is only for format=tiff (NaN is always nodata); got format=${format}`, { parameter: "noData" });
}

/** The bands an image draws: the first by default, one, or three (the first three of more) as RGB. */
function drawnBands(requested: number[] | undefined): number[] {
  if (requested === undefined) return [0];
  if (requested.length === 2) {
    throw new InvalidInputError("bandIds: an image draws one band (with the rendering's colours) or three (as red, green, blue), not two", {
      parameter: "bandIds",
    });
  }
  return requested.slice(0, 3);
}

/** How three bands are stretched: a Stretch rule's stretch, else min-max over each band's range. */
function rgbStretch(rule: RenderPlan | undefined): StretchSpec {
  if (rule === undefined) return { type: "minMax" };
  if (rule.kind === "stretch" && rule.ramp === "gray") return rule.stretch;
  throw new InvalidInputError(
    "renderingRule: a Colormap or a Remap applies to one band; with three bandIds give a Stretch, or choose one band",
    {
      parameter: "renderingRule",
    },
  );
}

/** An image ready to send. */
export interface ExportedImage {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  /** File extension for the image's href. */
  readonly extension: string;
}

/**
 * Draw a planned export. Values are read and coloured in strips of rows, so a maximal image
 * holds its pixels once as RGBA (or as the tiff's or lerc's values) plus one strip, unless its colours
 * depend on its own pixels (DRA, a Remap, no statistics or histogram), which needs them all at once.
 * `encoder` picks how PNG and JPEG are encoded (render/encodeImage.ts; default sharp).
 * @example
 * const { bytes, contentType } = await renderExport(cube, stats, planExport(cube, stats, params));
 */
export async function renderExport(
  cube: Cube,
  statistics: Readonly<Record<string, Statistics | null | undefined>>,
  plan: ExportPlan,
  { signal, encoder }: { signal?: AbortSignal; encoder?: ImageEncoder } = {},
): Promise<ExportedImage> {
  const { target } = plan;
  const read = sliceReader(cube, plan, signal);
  if (plan.format === "tiff") {
    const pixelType = plan.pixelType ?? "F32";
    const { nodata, convert } = tiffEncoding(pixelType, plan.noData);
    const bands = plan.bands.map(() => new PIXEL_ARRAYS[pixelType](target.width * target.height));
    for (const strip of strips(target, Math.max(1, Math.floor(STRIP_PIXELS / plan.bands.length)))) {
      const values = await read(strip);
      bands.forEach((band, i) => band.set(convert(values[i]), strip.y * target.width));
    }
    return {
      bytes: encodeGridGeoTiff(target, { bands, pixelType, ...(nodata !== undefined ? { nodata } : {}), compress: true }),
      contentType: "image/tiff",
      extension: "tif",
    };
  }
  if (plan.format === "lerc") {
    const pixelType = plan.pixelType ?? (plan.slice?.variable ?? cube.variables[0]).pixelType;
    const raster = lercRaster(plan.bands.length, target.width, target.height, pixelType, {
      maxZError: plan.maxZError ?? 0,
      ...(plan.noData !== undefined ? { noData: plan.noData } : {}),
      ...(plan.validWindow ? { validWindow: plan.validWindow } : {}),
    });
    for (const strip of strips(target, Math.max(1, Math.floor(STRIP_PIXELS / plan.bands.length)))) {
      raster.put(await read(strip), strip.y * target.width);
    }
    return { bytes: raster.encode(), contentType: LERC_CONTENT_TYPE, extension: LERC_EXTENSION };
  }
  const variable = plan.slice?.variable ?? cube.variables[0];
  const stats = bandStatistics(statistics, variable);
  const drawn = plan.bands.map((b) => stats[b]);
  const rgba = new Uint8Array(target.width * target.height * 4);
  const rgb = plan.rgb;
  const fixed = rgb ? !drawn.some((s) => stretchNeedsPixels(rgb, s)) : !renderNeedsAllPixels(plan.render, drawn[0]);
  for (const strip of strips(target, fixed ? STRIP_PIXELS : Infinity)) {
    const values = await read(strip);
    const colours = rgb
      ? renderRgb([values[0], values[1], values[2]], strip.width, strip.height, plan.noData, rgb, drawn)
      : renderRgba(values[0], strip.width, strip.height, plan.noData, plan.render, drawn[0]);
    rgba.set(colours, strip.y * target.width * 4);
  }
  return encodeImage(rgba, target.width, target.height, plan.format as PictureFormat, {
    quality: plan.quality,
    ...(encoder ? { encoder } : {}),
  });
}

/** About 1 M pixels a strip: ~20 MB of buffers whatever the image's size. */
const STRIP_PIXELS = 1 << 20;

/** Whole-width windows of the target, top to bottom, of about `pixels` each. */
function* strips(target: Grid, pixels: number): Generator<Window> {
  const rows = Math.max(1, Math.min(target.height, Math.floor(pixels / target.width)));
  for (let y = 0; y < target.height; y += rows) yield { x: 0, y, width: target.width, height: Math.min(rows, target.height - y) };
}

/**
 * A reader of the slice's values on the target grid, by window: one array per band of
 * `plan.bands`, NaN for nodata (all NaN for no slice). The bands from the lowest to the
 * highest asked for are read at once.
 */
function sliceReader(cube: Cube, plan: ExportPlan, signal?: AbortSignal): (window: Window) => Promise<Float64Array[]> {
  const slice = plan.slice;
  const v = slice && warpCube(cube, plan.target, plan.method).variables.find((x) => x.name === slice.variable.name)!;
  const lo = Math.min(...plan.bands);
  const hi = Math.max(...plan.bands) + 1;
  const dims = slice && sliceReadDims(slice.variable, slice.indices, [lo, hi]);
  return (window) => sliceValues(v, dims ?? [], plan.bands, lo, window, signal);
}

async function sliceValues(
  v: Variable | undefined,
  dims: readonly (readonly [number, number])[],
  bands: readonly number[],
  lo: number,
  window: Window,
  signal?: AbortSignal,
): Promise<Float64Array[]> {
  const n = window.width * window.height;
  const out = bands.map(() => new Float64Array(n).fill(NaN));
  if (!v) return out;
  const slab = await v.read({ dims, window, signal });
  const nodata = v.nodata;
  bands.forEach((b, k) => {
    const o = out[k];
    const at = (b - lo) * n;
    for (let i = 0; i < n; i++) {
      const x = slab.data[at + i];
      if (x !== nodata) o[i] = x;
    }
  });
  return out;
}

/** The envelope grown about its centre so width × height cells are square (as ArcGIS does). */
function squareCells(e: Envelope, width: number, height: number): Envelope {
  const cell = Math.max((e.xmax - e.xmin) / width, (e.ymax - e.ymin) / height);
  const cx = (e.xmin + e.xmax) / 2;
  const cy = (e.ymin + e.ymax) / 2;
  return { xmin: cx - (cell * width) / 2, xmax: cx + (cell * width) / 2, ymin: cy - (cell * height) / 2, ymax: cy + (cell * height) / 2 };
}

function parseSize(text: string | undefined): [number, number] {
  if (text === undefined || text.trim() === "") return [400, 400];
  const parts = text.split(",").map((p) => Number(p.trim()));
  if (parts.length !== 2 || parts.some((p) => !Number.isInteger(p) || p < 1)) {
    throw new InvalidInputError(`size must be "width,height" in whole pixels; got "${text}"`, { parameter: "size" });
  }
  if (parts[0] > MAX_IMAGE_WIDTH || parts[1] > MAX_IMAGE_HEIGHT) {
    throw new InvalidInputError(
      `size ${parts[0]}×${parts[1]} is larger than this service allows (maxImageWidth ${MAX_IMAGE_WIDTH}, maxImageHeight ${MAX_IMAGE_HEIGHT})`,
      {
        parameter: "size",
      },
    );
  }
  return [parts[0], parts[1]];
}
