/**
 * The `context` parameter (environment settings, SPEC §10). This module parses it for the
 * tasks that exist so far: `extent` clips the output; `parallelProcessingFactor` and
 * `processorType` are validated; `cellSize`, `outSR` and `resamplingMethod` need the warp
 * (a later issue) and are refused with a clear 400 rather than silently ignored.
 */
import { InvalidInputError } from "../cube/errors.js";
import { envelopeWindow } from "../cube/grid.js";
import { epsgFromWkt } from "../io/crs.js";
import type { Grid, Window } from "../cube/types.js";
import { parseObject } from "./gp.js";

export interface ParsedContext {
  readonly window: Window;
  readonly parallelism?: { readonly percent?: number; readonly count?: number };
  readonly warnings: string[];
}

const KNOWN = new Set(["extent", "cellSize", "outSR", "resamplingMethod", "parallelProcessingFactor", "processorType"]);
const NOT_YET = new Set(["cellSize", "outSR", "resamplingMethod"]);
const WEB_MERCATOR = new Set([3857, 102100, 102113, 900913]);
const P = "context";

/**
 * @example
 * parseContext('{"extent":{"xmin":0,"ymin":0,"xmax":10,"ymax":10,"spatialReference":{"wkid":4326}}}', grid)
 */
export function parseContext(text: string | undefined, grid: Grid): ParsedContext {
  const whole = { x: 0, y: 0, width: grid.width, height: grid.height };
  if (text === undefined || text.trim() === "") return { window: whole, warnings: [] };
  const ctx = parseObject(text, P);
  const warnings: string[] = [];
  for (const key of Object.keys(ctx)) {
    if (!KNOWN.has(key)) warnings.push(`context.${key} is not a setting Strata knows; it was ignored`);
    else if (NOT_YET.has(key)) {
      throw new InvalidInputError(`context.${key} is not supported by this server yet (reprojection and resampling arrive with the warp)`, {
        parameter: P,
      });
    }
  }
  let window: Window = whole;
  if (ctx.extent !== undefined && ctx.extent !== null && ctx.extent !== "") {
    const env = envelopeIn(ctx.extent, grid);
    // A geographic grid stored 0..360 is also addressed -180..180 (and the reverse).
    const shifts = grid.crs.epsg === 4326 ? [0, 360, -360] : [0];
    const w = shifts
      .map((s) => envelopeWindow(grid, { ...env, xmin: env.xmin + s, xmax: env.xmax + s }))
      .filter((x): x is Window => x !== undefined)
      .sort((a, b) => b.width * b.height - a.width * a.height)[0];
    if (!w) throw new InvalidInputError("context.extent does not overlap the input raster", { parameter: P });
    window = w;
  }
  const parallelism = parseParallelism(ctx.parallelProcessingFactor);
  const processor = ctx.processorType;
  if (processor !== undefined) {
    const t = String(processor).toUpperCase();
    if (t === "GPU") warnings.push("processorType GPU is not available on this server; the job runs on the CPU");
    else if (t !== "CPU")
      throw new InvalidInputError(`context.processorType must be CPU or GPU; got "${String(processor)}"`, { parameter: P });
  }
  return { window, ...(parallelism ? { parallelism } : {}), warnings };
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

/** The extent as an envelope in the grid's CRS (same CRS, or geographic <-> Web Mercator). */
function envelopeIn(extent: unknown, grid: Grid): { xmin: number; ymin: number; xmax: number; ymax: number } {
  if (typeof extent !== "object" || extent === null)
    throw new InvalidInputError("context.extent must be an envelope object", { parameter: P });
  const e = extent as Record<string, unknown>;
  const [xmin, ymin, xmax, ymax] = ["xmin", "ymin", "xmax", "ymax"].map((k) => {
    const n = typeof e[k] === "number" ? (e[k] as number) : Number(e[k]);
    if (!Number.isFinite(n)) throw new InvalidInputError(`context.extent.${k} must be a number`, { parameter: P });
    return n;
  });
  if (!(xmin < xmax && ymin < ymax)) throw new InvalidInputError("context.extent must have xmin < xmax and ymin < ymax", { parameter: P });
  const sr = e.spatialReference as { wkid?: number; latestWkid?: number; wkt?: string } | undefined;
  let from = sr?.latestWkid ?? sr?.wkid;
  if (from === undefined && typeof sr?.wkt === "string") {
    from = epsgFromWkt(sr.wkt);
    if (from === undefined)
      throw new InvalidInputError("context.extent.spatialReference.wkt names no EPSG code; give the extent with a wkid", { parameter: P });
  }
  from ??= grid.crs.epsg;
  const to = grid.crs.epsg;
  if (from === to || (from !== undefined && to !== undefined && WEB_MERCATOR.has(from) && WEB_MERCATOR.has(to)))
    return { xmin, ymin, xmax, ymax };
  if (from === 4326 && to !== undefined && WEB_MERCATOR.has(to)) {
    const [a, b] = [toMercator(xmin, ymin), toMercator(xmax, ymax)];
    return { xmin: a[0], ymin: a[1], xmax: b[0], ymax: b[1] };
  }
  if (from !== undefined && WEB_MERCATOR.has(from) && to === 4326) {
    const [a, b] = [toGeographic(xmin, ymin), toGeographic(xmax, ymax)];
    return { xmin: a[0], ymin: a[1], xmax: b[0], ymax: b[1] };
  }
  throw new InvalidInputError(
    `context.extent is in wkid ${String(from)} but the input raster is in ${to === undefined ? "an unnamed CRS" : `EPSG:${to}`}; give the extent in the raster's CRS`,
    { parameter: P },
  );
}

const R = 6378137;
function toMercator(lon: number, lat: number): [number, number] {
  const phi = (Math.max(-85.0511287798, Math.min(85.0511287798, lat)) * Math.PI) / 180;
  return [(lon * Math.PI * R) / 180, R * Math.log(Math.tan(Math.PI / 4 + phi / 2))];
}
function toGeographic(x: number, y: number): [number, number] {
  return [((x / R) * 180) / Math.PI, ((2 * Math.atan(Math.exp(y / R)) - Math.PI / 2) * 180) / Math.PI];
}
