/**
 * Walk a cube to make a trend raster: for each fitted variable, each combination of its
 * other dimensions and each spatial tile, read the tile through the whole fitted dimension,
 * fit every pixel (trendFit.ts) and hand the bands to a sink as one block
 * [1, …, 1, bands, rows, cols]. Tiles are as large as a memory budget allows (the whole
 * grid when it fits), shaped after the input's spatial chunks (trendTileShape), so each
 * input chunk is decoded once per tile that needs it. Pure orchestration over the Cube
 * interface: no formats, no jobs.
 *
 * Output layout (docs/tasks.md): each variable keeps its name; its dimensions are its
 * non-fitted dimensions followed by `Band` (values 1..bands); values are float64 with nodata
 * NaN; the variable attribute `strata:trend` holds the TrendMetadata. Statistics are kept for
 * each variable over all its bands and for each band (bandStatisticsKey), so an image service
 * can stretch each band by its own range.
 */
import { combinationAt } from "../cube/combinations.js";
import type { Cube, Dimension, Variable, Window } from "../cube/types.js";
import { STD_TIME, variableNamed } from "../cube/types.js";
import { ownStepCount, ownsStep } from "./share.js";
import { overviewAligned, wholeChunkTile } from "./tiles.js";
import type { BlockSink, CopyOptions } from "./subset.js";
import { type Statistics, mergeStatistics, statisticsAccumulator } from "./statistics.js";
import { createTileFitter } from "./trendFit.js";
import {
  BAND_DIMENSION,
  type TrendMetadata,
  type TrendModel,
  type TrendStatistics,
  bandNames,
  bandStatisticsKey,
  centreAndScale,
  encodeX,
  xEncoding,
} from "./trendModel.js";

export interface TrendPlan {
  /** Variables to fit (each has `dimension`). */
  readonly variables: readonly string[];
  /** The dimension to fit along. */
  readonly dimension: string;
  readonly model: TrendModel;
  readonly statistics: TrendStatistics;
  readonly ignoreNoData: boolean;
  /** Spatial window of the source (north-up pixels). */
  readonly window: Window;
  /** Spatial tile (rows × cols); default from the memory budget (trendTileShape). */
  readonly tile?: { readonly height: number; readonly width: number };
  /** Memory budget of one tile (default TREND_MEMORY_BUDGET); threads sharing a job split it. */
  readonly tileBudgetBytes?: number;
}

export interface TrendVariableLayout {
  readonly name: string;
  readonly description: string;
  /** Non-fitted dimensions, then Band. */
  readonly dimensions: readonly Dimension[];
  readonly bands: readonly string[];
  readonly metadata: TrendMetadata;
  readonly tile: { readonly height: number; readonly width: number };
  /** Output chunk shape over [...dimensions, rows, cols], aligned with the blocks written. */
  readonly outputChunks: readonly number[];
}

/** Bytes a trend tile may use (the input slab through the whole dimension, plus the bands). */
export const TREND_MEMORY_BUDGET = 48 * 1024 * 1024;
/** Largest output chunk edge (as Strata's writer uses for other outputs). */
export const TREND_MAX_TILE = 512;

/**
 * The spatial tile of a fit: as large as `budget` allows for `slices` values (counted as
 * float64, whatever the input's type), `bands` outputs and the fit's work sums per pixel,
 * shaped after the input's spatial chunks:
 * - chunks spanning whole rows (one slice per chunk, as most NetCDF files): full-width strips,
 *   so each slice's rows are read in one run (about twice as fast as squares on NetCDF-3);
 * - chunks across the width: rectangles of whole chunks, so each chunk is decoded once; one
 *   chunk when a chunk is beyond the budget but not beyond CHUNK_TILE_LIMIT_BYTES (tiles.ts).
 * A tile longer than TREND_MAX_TILE along an axis it does not cover whole is a multiple of
 * it, so the 512-pixel output chunks stay aligned with the blocks written; other edges that
 * chunks do not set divide by 16 where they can (tiles.ts overviewAligned: overview levels).
 * @example
 * trendTileShape(132, 3, { x: 0, y: 0, width: 144, height: 73 }, [1, 73, 144]); // { height: 73, width: 144 }
 */
export function trendTileShape(
  slices: number,
  bands: number,
  window: Window,
  chunkShape: readonly number[] = [],
  budget = TREND_MEMORY_BUDGET,
): { height: number; width: number } {
  // The input slab, the output bands, and the fit's per-pixel sums (coefficients + 6).
  const perPixel = 8 * (slices + 2 * bands + 8);
  const area = Math.max(1, Math.floor(budget / perPixel));
  const { width: W, height: H } = window;
  const [cy, cx] = chunkShape.length >= 2 ? chunkShape.slice(-2) : [H, W];
  // A chunk beyond the budget but within CHUNK_TILE_LIMIT_BYTES: a tile of it, read once.
  if (Math.min(cy, H) * Math.min(cx, W) > area) {
    const whole = wholeChunkTile(chunkShape, window, perPixel, budget, TREND_MAX_TILE);
    if (whole) return whole;
  }
  let height: number;
  let width: number;
  if (cx >= W && area >= W) {
    width = W;
    height = Math.min(H, Math.floor(area / W));
    if (cy < H && height >= cy) height -= height % cy;
    else if (height < H) height = overviewAligned(height);
  } else {
    width = Math.max(1, Math.min(W, Math.floor(Math.sqrt(area))));
    height = Math.max(1, Math.min(H, Math.floor(area / width)));
    width = Math.max(1, Math.min(W, Math.floor(area / height)));
    width = cx < width ? width - (width % cx) : width < W ? overviewAligned(width) : width;
    height = cy < height ? height - (height % cy) : height < H ? overviewAligned(height) : height;
  }
  if (height < H && height > TREND_MAX_TILE) height -= height % TREND_MAX_TILE;
  if (width < W && width > TREND_MAX_TILE) width -= width % TREND_MAX_TILE;
  return { height, width };
}

/** Output chunk edges (rows, cols) for blocks of `tile`: the tile, at most TREND_MAX_TILE. */
export function trendOutputChunk(tile: { readonly height: number; readonly width: number }): [number, number] {
  return [Math.min(tile.height, TREND_MAX_TILE), Math.min(tile.width, TREND_MAX_TILE)];
}

/** The output variables of a trend plan. Throws when a variable lacks the dimension. */
export function trendLayout(cube: Cube, plan: TrendPlan): TrendVariableLayout[] {
  return plan.variables.map((name) => {
    const v = variableNamed(cube, name);
    const fitIndex = v.dimensions.findIndex((d) => d.name === plan.dimension);
    if (fitIndex < 0) throw new Error(`variable ${name} has no dimension ${plan.dimension}`);
    const fit = v.dimensions[fitIndex];
    const bands = bandNames(plan.model, plan.statistics);
    const x = fit.values.map((value) => encodeX(fit.name, value));
    const { center, scale } = centreAndScale(x);
    const band: Dimension = {
      name: BAND_DIMENSION,
      sourceName: BAND_DIMENSION,
      description: "Band",
      unit: "",
      values: bands.map((_, i) => i + 1),
      ...(bands.length > 1 ? { interval: 1 } : {}),
    };
    const dimensions = [...v.dimensions.filter((_, i) => i !== fitIndex), band];
    const tile = plan.tile ?? trendTileShape(fit.values.length, bands.length, plan.window, v.chunkShape, plan.tileBudgetBytes);
    const m = plan.model;
    const metadata: TrendMetadata = {
      dimension: fit.name,
      model: m.type,
      ...(m.type === "LINEAR" ? { order: 1 } : {}),
      ...(m.type === "POLYNOMIAL" ? { order: m.order } : {}),
      ...(m.type === "HARMONIC" ? { harmonics: m.harmonics, cycleLengthDays: m.cycleLengthDays } : {}),
      ...(m.type === "SEASONAL-KENDALL" ? { seasonalPeriod: m.seasonalPeriod ?? "DAYS" } : {}),
      xEncoding: xEncoding(fit.name),
      bands,
      xCenter: center,
      xScale: scale,
      dimensionIndex: fitIndex,
      dimensionUnit: fit.unit,
      dimensionDescription: fit.description,
      ignoreNoData: plan.ignoreNoData,
      variableUnit: v.unit,
    };
    return {
      name: v.name,
      description: v.description,
      dimensions,
      bands,
      metadata,
      tile,
      outputChunks: [...dimensions.slice(0, -1).map(() => 1), bands.length, ...trendOutputChunk(tile)],
    };
  });
}

/** A tile fitted for longer than this reports its progress within itself. */
const SLOW_TILE_MS = 500;

/**
 * Fit the plan's variables and write their bands to `sink`; returns each variable's
 * statistics over all its bands' valid values, and each band's (keyed by bandStatisticsKey).
 * @example
 * const stats = await computeTrend(cube, { variables: ["sst"], dimension: "StdTime", model: { type: "LINEAR" },
 *   statistics: { rmse: true, r2: false, slopePValue: false }, ignoreNoData: true, window }, writer);
 */
export async function computeTrend(
  cube: Cube,
  plan: TrendPlan,
  sink: BlockSink,
  options: CopyOptions = {},
): Promise<Map<string, Statistics | undefined>> {
  const layouts = trendLayout(cube, plan);
  const w = plan.window;
  const combos = (v: Variable) => v.dimensions.reduce((n, d) => (d.name === plan.dimension ? n : n * d.values.length), 1);
  const tiles = (l: TrendVariableLayout) => Math.ceil(w.height / l.tile.height) * Math.ceil(w.width / l.tile.width);
  const total = ownStepCount(
    layouts.reduce((n, l) => n + combos(variableNamed(cube, l.name)) * tiles(l), 0),
    options.share,
  );
  const stats = new Map<string, Statistics | undefined>();
  let step = 0;
  let done = 0;
  for (const layout of layouts) {
    const v = variableNamed(cube, layout.name);
    const fitIndex = v.dimensions.findIndex((d) => d.name === plan.dimension);
    const fit = v.dimensions[fitIndex];
    const fitter = createTileFitter({
      model: plan.model,
      statistics: plan.statistics,
      ignoreNoData: plan.ignoreNoData,
      x: fit.values.map((value) => encodeX(fit.name, value)),
      ...(fit.name === STD_TIME ? { times: fit.values } : {}),
    });
    const others = v.dimensions.map((d, i) => (i === fitIndex ? 1 : d.values.length));
    const count = combos(v);
    const perBand = layout.bands.map(() => statisticsAccumulator());
    const { height: th, width: tw } = layout.tile;
    // A stored chunk's bytes (float inputs): chunks decoded into the slab are unshuffled by the fit's kernel.
    const chunkBytes = v.chunkShape.reduce((a, b) => a * b, 1) * (v.pixelType === "F64" ? 8 : 4);
    let out = new Float64Array(0);
    for (let s = 0; s < count; s++) {
      // The s-th combination of the other dimensions (the fitted one counts as size 1: index 0).
      const at = combinationAt(s, others);
      const dims = at.map((i, d) => (d === fitIndex ? ([0, fit.values.length] as const) : ([i, i + 1] as const)));
      const outAt = at.filter((_, d) => d !== fitIndex);
      for (let y = 0; y < w.height; y += th) {
        for (let x = 0; x < w.width; x += tw) {
          if (!ownsStep(step++, options.share)) continue;
          options.signal?.throwIfAborted();
          const window = { x: w.x + x, y: w.y + y, width: Math.min(tw, w.width - x), height: Math.min(th, w.height - y) };
          const pixels = window.width * window.height;
          const into = fitter.slabArray(pixels * fit.values.length, v.pixelType, chunkBytes);
          const slab = await v.read({ dims, window, signal: options.signal, into });
          if (out.length !== fitter.bands * pixels) out = new Float64Array(fitter.bands * pixels);
          // A slow tile (Mann-Kendall of a long series: minutes) reports its pixels as it goes.
          const started = Date.now();
          fitter.fitTile(slab.data, pixels, v.nodata, out, (fitted) => {
            if (Date.now() - started >= SLOW_TILE_MS) options.onProgress?.((done + fitted / pixels) / total);
          });
          perBand.forEach((b, i) => b.add(out.subarray(i * pixels, (i + 1) * pixels), undefined));
          await sink.writeBlock(layout.name, [...outAt, 0, y, x], {
            data: out,
            shape: [...outAt.map(() => 1), fitter.bands, window.height, window.width],
          });
          options.onProgress?.(++done / total);
        }
      }
    }
    // The variable's statistics over all its bands are the merge of its bands' (histograms merge exactly).
    const bandStats = perBand.map((b) => b.result());
    stats.set(layout.name, mergeStatistics(bandStats));
    layout.bands.forEach((band, i) => stats.set(bandStatisticsKey(layout.name, band), bandStats[i]));
  }
  return stats;
}
