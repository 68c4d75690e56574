/**
 * The forms `context.cellSize` takes (SPEC §10, ArcGIS's Cell Size environment): a number in
 * the output's units; `MAXOF` / `MINOF` (also spelled `MaxOfIn` / `MinOfIn`, `MaxOf` /
 * `MinOf`): the largest / smallest cell size of the inputs; a raster descriptor
 * (`{"url"}`, `{"uri"}`, `{"itemId"}` as SPEC §4): that raster's cell size; `{"factor": n}`:
 * n times the input's cell size. Every task has one input grid (Anomaly's reference raster
 * must be on the input's grid), so MAXOF and MINOF are the input's own cells.
 */
import { sameCrs } from "../analysis/crs.js";
import { targetGrid } from "../analysis/warp.js";
import { InvalidInputError, StrataError } from "../cube/errors.js";
import type { Crs, Grid } from "../cube/types.js";
import { INPUT_DESCRIPTOR_KEYS } from "./types.js";

/** What was asked for, before any raster is opened. */
export type CellSizeRequest =
  | { readonly kind: "value"; readonly size: number }
  | { readonly kind: "inputs" }
  | { readonly kind: "factor"; readonly factor: number }
  | { readonly kind: "raster"; readonly descriptor: Record<string, unknown> };

const P = "context";
const WHAT = "context.cellSize";
/** MAXOF / MINOF as ArcGIS spells them in its environments, REST and Python API. */
export const OF_INPUTS = /^(MAX|MIN)OF(IN)?$/i;

const FORMS = `a positive number (in the output's units), MAXOF, MINOF, a raster ({"url": ...}, {"uri": ...} or {"itemId": ...}) or {"factor": n}`;

/**
 * @example
 * parseCellSizeRequest("MaxOfIn");          // { kind: "inputs" }
 * parseCellSizeRequest({ factor: 2 });      // { kind: "factor", factor: 2 }
 * parseCellSizeRequest({ url: "https://.../ImageServer" }); // { kind: "raster", descriptor }
 */
export function parseCellSizeRequest(v: unknown): CellSizeRequest | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v === "string" && OF_INPUTS.test(v.trim())) return { kind: "inputs" };
  if (typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const raster = INPUT_DESCRIPTOR_KEYS.some((k) => o[k] !== undefined);
    if (o.factor !== undefined) {
      if (raster) throw new InvalidInputError(`${WHAT} gives both a factor and a raster; give one of them`, { parameter: P });
      const factor = typeof o.factor === "number" ? o.factor : typeof o.factor === "string" ? Number(o.factor.trim()) : NaN;
      if (!(Number.isFinite(factor) && factor > 0)) {
        throw new InvalidInputError(`${WHAT}.factor must be a positive number; got ${JSON.stringify(o.factor)}`, { parameter: P });
      }
      return { kind: "factor", factor };
    }
    if (raster) return { kind: "raster", descriptor: o };
    throw new InvalidInputError(`${WHAT} must be ${FORMS}; got ${JSON.stringify(v)}`, { parameter: P });
  }
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v.trim()) : NaN;
  if (!(Number.isFinite(n) && n > 0)) {
    throw new InvalidInputError(`${WHAT} must be ${FORMS}; got ${JSON.stringify(v)}`, { parameter: P });
  }
  return { kind: "value", size: n };
}

/**
 * The square cell edge in the output's units the request asks for, or undefined for the
 * input's own cells (kept as they are, or converted at the input's centre when reprojecting).
 * `raster` is the grid of the raster a `{"url"}`-like request names.
 * @example
 * cellSizeFor({ kind: "factor", factor: 2 }, input.grid, undefined); // 2 × the input's cell edge
 */
export function cellSizeFor(request: CellSizeRequest | undefined, input: Grid, outCrs: Crs | undefined, raster?: Grid): number | undefined {
  switch (request?.kind) {
    case undefined:
    case "inputs":
      return undefined;
    case "value":
      return request.size;
    case "factor":
      return request.factor === 1 ? undefined : request.factor * cellEdgeIn(input, outCrs, "the input raster");
    case "raster":
      if (!raster) throw new Error("cellSizeFor: the raster context.cellSize names was not opened");
      return cellEdgeIn(raster, outCrs, "the raster context.cellSize names");
  }
}

/**
 * A grid's cell edge in `outCrs`'s units: in its own CRS the edge of a square of the cell's
 * area (the cell edge when cells are square); in another CRS the edge the warp gives the
 * grid's cells there (converted at its centre).
 */
function cellEdgeIn(grid: Grid, outCrs: Crs | undefined, what: string): number {
  const [, t1, t2, , t4, t5] = grid.transform;
  if (outCrs === undefined || sameCrs(grid.crs, outCrs)) return Math.sqrt(Math.hypot(t1, t4) * Math.hypot(t2, t5));
  try {
    return Math.abs(targetGrid(grid, { outCrs, parameter: P }).transform[1]);
  } catch (e) {
    if (!(e instanceof StrataError)) throw e;
    throw new InvalidInputError(`${WHAT}: the cell size of ${what} cannot be stated in the output's coordinate system (${e.message})`, {
      parameter: P,
      cause: e,
    });
  }
}
