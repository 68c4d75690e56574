/**
 * The `context` parameter (environment settings, SPEC §10): `extent` clips the output,
 * `outSR` (alias `outSpatialReference`) reprojects it, `cellSize` resamples it with
 * `resamplingMethod` (analysis/warp.ts; its forms in contextCellSize.ts),
 * `parallelProcessingFactor` and `processorType` are validated, `compression` (ZSTD or NONE)
 * says how the output's chunks are stored. `resolveContext` plans the
 * output grid at submit time (opening the raster a `cellSize` may name); the plan (a window,
 * and a warp when the output is not a window of the input grid) is stored with the job, and
 * `applyContext` turns it back into the cube the analysis reads.
 */
import { type ResolvedCrs, crsDefinition, resolveCrs, sameCrs } from "../analysis/crs.js";
import { type Seam, seamCube, seamFor, seamGrid } from "../analysis/seam.js";
import {
  type Envelope,
  RESAMPLING_METHODS,
  type ResamplingMethod,
  alignedWindow,
  targetGrid,
  transformEnvelope,
  warpCube,
} from "../analysis/warp.js";
import { InvalidInputError } from "../cube/errors.js";
import { gridFromTransform, windowGrid } from "../cube/grid.js";
import type { Crs, Cube, GeoTransform, Grid, Window } from "../cube/types.js";
import type { OutputCompression } from "../io/zarrWrite.js";
import { OF_INPUTS, cellSizeFor, parseCellSizeRequest } from "./contextCellSize.js";
import { parseObject } from "./gp.js";
import type { ParseEnv } from "./types.js";

/** A warp as stored with a job (JSON): the target grid and how to resample onto it. */
export interface WarpPlan {
  readonly width: number;
  readonly height: number;
  readonly transform: GeoTransform;
  readonly crs: Crs;
  readonly method: ResamplingMethod;
}

/** What task options keep of the context: the window the analysis reads, and the warp if any. */
export interface ContextPlan {
  /**
   * The input's columns renumbered so that the extent is one run of them in its own longitude
   * convention (rotated across the seam for a grid that goes round the earth): the window and
   * the warp are of the grid so presented.
   */
  readonly seam?: Seam;
  /** Window of the input grid, or with a warp of the target grid (then the whole of it). */
  readonly window: Window;
  readonly warp?: WarpPlan;
  /** context.parallelProcessingFactor: a count of threads or a percentage of the server's. */
  readonly parallelism?: { readonly percent?: number; readonly count?: number };
  /** context.compression: how the output's chunks are stored (ZSTD when absent). */
  readonly compression?: OutputCompression;
}

export interface ParsedContext extends ContextPlan {
  /** The output grid: the window of the input grid, or the warp's target grid. */
  readonly grid: Grid;
  readonly resamplingMethod: ResamplingMethod;
  /** The plan to store with the job ({window}, with warp and parallelism when given). */
  readonly plan: ContextPlan;
  readonly warnings: string[];
}

const KNOWN = new Set([
  "extent",
  "cellSize",
  "outSR",
  "outSpatialReference",
  "resamplingMethod",
  "parallelProcessingFactor",
  "processorType",
  "compression",
]);

const COMPRESSIONS: readonly OutputCompression[] = ["ZSTD", "NONE"];
const P = "context";

const present = (v: unknown) => v !== undefined && v !== null && v !== "";

/**
 * The context of a task whose input grid is `grid`, planned at submit: like parseContext,
 * and a raster `cellSize` names (`{"url"}`, `{"uri"}`, `{"itemId"}`) is resolved and opened
 * with the task's own input resolution, for its cell size.
 * @example
 * const context = await resolveContext(values.get("context"), cube.grid, env);
 */
export async function resolveContext(text: string | undefined, grid: Grid, env: ParseEnv): Promise<ParsedContext> {
  if (text === undefined || text.trim() === "") return planContext(undefined, grid);
  const ctx = parseObject(text, P);
  const request = parseCellSizeRequest(ctx.cellSize);
  if (request?.kind !== "raster") return planContext(ctx, grid);
  const named = "context.cellSize";
  const resolved = await env.resolveInput(request.descriptor, named);
  const raster = await env.openCube(resolved.location, named);
  const rasterGrid = raster.grid; // only its grid is needed
  await raster.close();
  const planned = planContext(ctx, grid, rasterGrid);
  return { ...planned, warnings: [...resolved.warnings, ...planned.warnings] };
}

/**
 * The context's plan when no raster has to be opened for it (a `cellSize` naming a raster
 * needs resolveContext).
 * @example
 * parseContext('{"extent":{"xmin":0,"ymin":0,"xmax":10,"ymax":10,"spatialReference":{"wkid":4326}}}', grid)
 * parseContext('{"outSR":{"wkid":3857},"cellSize":200000,"resamplingMethod":"BILINEAR"}', grid).warp
 */
export function parseContext(text: string | undefined, grid: Grid): ParsedContext {
  return planContext(text === undefined || text.trim() === "" ? undefined : parseObject(text, P), grid);
}

function planContext(ctx: Record<string, unknown> | undefined, input: Grid, cellSizeRaster?: Grid): ParsedContext {
  let grid = input;
  let seam: Seam | undefined;
  const whole = { x: 0, y: 0, width: grid.width, height: grid.height };
  const keep = (window: Window, warnings: string[], rest: Partial<ParsedContext> = {}): ParsedContext => ({
    window,
    grid: windowGrid(grid, window),
    resamplingMethod: "NEAREST",
    plan: {
      ...(seam ? { seam } : {}),
      window,
      ...(rest.parallelism ? { parallelism: rest.parallelism } : {}),
      ...(rest.compression ? { compression: rest.compression } : {}),
    },
    warnings,
    ...(seam ? { seam } : {}),
    ...rest,
  });
  if (ctx === undefined) return keep(whole, []);
  const warnings: string[] = [];
  for (const key of Object.keys(ctx)) {
    if (!KNOWN.has(key)) warnings.push(`context.${key} is not a setting Strata knows; it was ignored`);
  }
  // outSpatialReference is ArcGIS's other name for outSR; outSR wins when both are given.
  const srKey = present(ctx.outSR) ? "outSR" : present(ctx.outSpatialReference) ? "outSpatialReference" : undefined;
  if (srKey === "outSR" && present(ctx.outSpatialReference)) {
    warnings.push("context.outSpatialReference was ignored: context.outSR is given too, and wins");
  }
  const outSR = srKey ? resolveCrs(ctx[srKey], { parameter: P, what: `context.${srKey}` }) : undefined;
  if (outSR?.crs.wkt?.startsWith("+")) {
    warnings.push(`context.${srKey} has no WKT form Strata can write; the output's coordinate system is recorded as the proj4 string`);
  }
  const resamplingMethod = parseResampling(ctx.resamplingMethod);
  if (present(ctx.resamplingMethod) && !present(ctx.cellSize) && srKey === undefined) {
    warnings.push("context.resamplingMethod applies only with cellSize or outSR; the output keeps the input's cells");
  }
  const reproject = outSR !== undefined && !sameCrs(grid.crs, outSR.crs);
  const cellSize = cellSizeFor(parseCellSizeRequest(ctx.cellSize), grid, reproject ? outSR.crs : undefined, cellSizeRaster);
  const extent = present(ctx.extent) ? envelopeIn(ctx.extent, reproject ? outSR : undefined, grid) : undefined;
  if (extent && !reproject) seam = seamFor(grid, extent);
  if (seam) grid = seamGrid(grid, seam);
  const parallelism = parseParallelism(ctx.parallelProcessingFactor);
  const processor = ctx.processorType;
  if (processor !== undefined) {
    const t = String(processor).toUpperCase();
    if (t === "GPU") warnings.push("processorType GPU is not available on this server; the job runs on the CPU");
    else if (t !== "CPU")
      throw new InvalidInputError(`context.processorType must be CPU or GPU; got "${String(processor)}"`, { parameter: P });
  }
  const compression = parseCompression(ctx.compression);
  const extra = { resamplingMethod, ...(parallelism ? { parallelism } : {}), ...(compression ? { compression } : {}) };
  if (!reproject && cellSize === undefined && extent === undefined) return keep(whole, warnings, extra);
  const target = targetGrid(grid, { ...(reproject ? { outCrs: outSR.crs } : {}), cellSize, extent, parameter: P });
  const aligned = alignedWindow(grid, target);
  if (aligned) return keep(aligned, warnings, extra);
  const window = { x: 0, y: 0, width: target.width, height: target.height };
  const warp: WarpPlan = {
    width: target.width,
    height: target.height,
    transform: target.transform,
    crs: target.crs,
    method: resamplingMethod,
  };
  const seamed = seam ? { seam } : {};
  return {
    ...seamed,
    window,
    warp,
    grid: target,
    plan: { ...seamed, window, warp, ...(parallelism ? { parallelism } : {}), ...(compression ? { compression } : {}) },
    warnings,
    ...extra,
  };
}

/**
 * The cube an analysis reads under a context plan, and the window of it to read: the input
 * itself, or with a warp the input reprojected / resampled onto the target grid.
 * @example
 * const { cube, window } = applyContext(await openLocation(options.input), options);
 */
export function applyContext(input: Cube, plan: ContextPlan): { cube: Cube; window: Window } {
  const cube = plan.seam ? seamCube(input, plan.seam) : input;
  if (!plan.warp) return { cube, window: plan.window };
  const { width, height, transform, crs, method } = plan.warp;
  try {
    return { cube: warpCube(cube, gridFromTransform(width, height, transform, crs), method), window: plan.window };
  } catch (e) {
    void cube.close();
    throw e;
  }
}

function parseResampling(v: unknown): ResamplingMethod {
  if (!present(v)) return "NEAREST";
  const m = String(v).trim().toUpperCase();
  if ((RESAMPLING_METHODS as readonly string[]).includes(m)) return m as ResamplingMethod;
  throw new InvalidInputError(`context.resamplingMethod must be one of ${RESAMPLING_METHODS.join(", ")}; got ${JSON.stringify(v)}`, {
    parameter: P,
  });
}

function parseParallelism(v: unknown): ParsedContext["parallelism"] {
  if (v === undefined || v === null || v === "") return undefined;
  const text = String(v).trim();
  const percent = text.match(/^(\d+(?:\.\d+)?)\s*%$/);
  if (percent && Number(percent[1]) > 0 && Number(percent[1]) <= 100) return { percent: Number(percent[1]) };
  if (/^\d+$/.test(text) && Number(text) > 0) return { count: Number(text) };
  throw new InvalidInputError(`context.parallelProcessingFactor must be a percentage such as "50%" or a count of threads; got "${text}"`, {
    parameter: P,
  });
}

/** context.compression: ZSTD (the default) or NONE, in any case. */
function parseCompression(v: unknown): OutputCompression | undefined {
  if (!present(v)) return undefined;
  const c = String(v).trim().toUpperCase();
  if ((COMPRESSIONS as readonly string[]).includes(c)) return c as OutputCompression;
  throw new InvalidInputError(`context.compression must be one of ${COMPRESSIONS.join(", ")}; got ${JSON.stringify(v)}`, {
    parameter: P,
  });
}

/**
 * The extent as an envelope in the output's CRS: `outSR`'s when reprojecting, else the input
 * grid's. An extent without a spatialReference is taken to be in that CRS already. MAXOF /
 * MINOF (the union / intersection of the inputs' extents) is the whole input: every task has
 * one input grid.
 */
function envelopeIn(extent: unknown, outSR: ResolvedCrs | undefined, grid: Grid): Envelope | undefined {
  if (typeof extent === "string" && OF_INPUTS.test(extent.trim())) return undefined;
  if (typeof extent !== "object" || extent === null || Array.isArray(extent)) {
    throw new InvalidInputError(
      `context.extent must be an envelope object ({"xmin", "ymin", "xmax", "ymax", "spatialReference"}), MAXOF or MINOF; got ${JSON.stringify(extent)}`,
      { parameter: P },
    );
  }
  const e = extent as Record<string, unknown>;
  const [xmin, ymin, xmax, ymax] = ["xmin", "ymin", "xmax", "ymax"].map((k) => {
    const n = typeof e[k] === "number" ? (e[k] as number) : Number(e[k]);
    if (!Number.isFinite(n)) throw new InvalidInputError(`context.extent.${k} must be a number`, { parameter: P });
    return n;
  });
  if (!(xmin < xmax && ymin < ymax)) throw new InvalidInputError("context.extent must have xmin < xmax and ymin < ymax", { parameter: P });
  const env = { xmin, ymin, xmax, ymax };
  if (!present(e.spatialReference)) return env;
  const from = resolveCrs(e.spatialReference, { parameter: P, what: "context.extent.spatialReference" });
  const to = outSR?.crs ?? grid.crs;
  if (sameCrs(from.crs, to)) return env;
  const toDef = outSR?.definition ?? crsDefinition(grid.crs);
  const named = from.crs.epsg !== undefined ? `wkid ${from.crs.epsg}` : "the CRS of its spatialReference";
  if (!toDef) {
    throw new InvalidInputError(
      `context.extent is in ${named} but the input raster has no coordinate system Strata can convert it to; give the extent in the raster's CRS`,
      { parameter: P },
    );
  }
  const converted = transformEnvelope(env, from.definition, toDef);
  if (!converted) {
    throw new InvalidInputError(`context.extent (in ${named}) has no area in the output's coordinate system`, { parameter: P });
  }
  return converted;
}
