/**
 * Evaluate a trend raster's models at chosen values of the fitted dimension
 * (PredictUsingTrendRaster, docs/tasks.md). For each variable, each combination of its other
 * dimensions and each spatial tile, the coefficient bands are read once and every requested
 * value is written as one float32 slice; a pixel with any nodata coefficient is nodata.
 * Evaluation is in float64 on the documented basis (x = days since 1970-01-01 for StdTime).
 */
import { combinationAt } from "../cube/combinations.js";
import type { Cube, Dimension, Variable, Window } from "../cube/types.js";
import { STD_TIME, variableNamed } from "../cube/types.js";
import { dimensionInterval } from "../cube/dimension.js";
import { ownStepCount, ownsStep } from "./share.js";
import type { BlockSink, CopyOptions } from "./subset.js";
import { type Statistics, statisticsAccumulator } from "./statistics.js";
import { sliceChunk, windowTiles } from "./tiles.js";
import {
  BAND_DIMENSION,
  type TrendMetadata,
  coefficientCount,
  documentedBasis,
  encodeX,
  isKendall,
  modelOf,
  readTrendMetadata,
} from "./trendModel.js";

export interface PredictPlan {
  readonly variables: readonly string[];
  /** Values of the trend's dimension to predict at, in its units (epoch ms for StdTime). */
  readonly values: readonly number[];
  readonly window: Window;
  /** Spatial tile edge of the reads and output chunks (see sliceChunk). */
  readonly tile: number;
}

export interface PredictVariableLayout {
  readonly name: string;
  readonly description: string;
  readonly metadata: TrendMetadata;
  /** Output dimensions: the trend's other dimensions with the predicted one back in place. */
  readonly dimensions: readonly Dimension[];
  /** Where the predicted dimension is among them. */
  readonly predictedIndex: number;
}

/**
 * The usable trend metadata of a variable, or why it cannot be predicted from (not a trend
 * raster, a Mann-Kendall one, bands that do not match).
 */
export function predictableTrend(v: Variable): TrendMetadata | string {
  const meta = readTrendMetadata(v.attributes);
  if (typeof meta === "string") return meta;
  if (isKendall(modelOf(meta)))
    return `it is a ${meta.model} trend raster, which holds test statistics rather than a model: it cannot predict`;
  const last = v.dimensions[v.dimensions.length - 1];
  if (!last || last.name !== BAND_DIMENSION || last.values.length < meta.bands.length)
    return `its last dimension is not the ${BAND_DIMENSION} dimension of its ${meta.bands.length} bands`;
  if (v.dimensions.some((d) => d.name === meta.dimension)) return `it still has the dimension ${meta.dimension} its trend was fitted along`;
  return meta;
}

/** The output variables of a prediction. Throws when a variable is not a usable trend. */
export function predictLayout(cube: Cube, plan: PredictPlan): PredictVariableLayout[] {
  return plan.variables.map((name) => {
    const v = variableNamed(cube, name);
    const meta = predictableTrend(v);
    if (typeof meta === "string") throw new Error(`variable ${name} cannot be predicted from: ${meta}`);
    const others = v.dimensions.slice(0, -1);
    const predictedIndex = Math.max(0, Math.min(others.length, meta.dimensionIndex));
    const isTime = meta.dimension === STD_TIME;
    const predicted: Dimension = {
      name: meta.dimension,
      sourceName: meta.dimension,
      description: meta.dimensionDescription,
      unit: meta.dimensionUnit,
      values: [...plan.values],
      ...dimensionInterval(plan.values, isTime),
    };
    const dimensions = [...others.slice(0, predictedIndex), predicted, ...others.slice(predictedIndex)];
    return { name: v.name, description: v.description, metadata: meta, dimensions, predictedIndex };
  });
}

/**
 * Write the predictions of the plan's variables to `sink` (float32 slices); returns each
 * variable's statistics.
 * @example
 * await computePredict(trendCube, { variables: ["sst"], values: [Date.UTC(2050, 0, 1)], window, tile: 512 }, writer);
 */
export async function computePredict(
  cube: Cube,
  plan: PredictPlan,
  sink: BlockSink,
  options: CopyOptions = {},
): Promise<Map<string, Statistics | undefined>> {
  const layouts = predictLayout(cube, plan);
  const w = plan.window;
  const chunk = sliceChunk(w, plan.tile);
  const tiles = windowTiles(w, chunk.height, chunk.width);
  const combos = (v: Variable) => v.dimensions.slice(0, -1).reduce((n, d) => n * d.values.length, 1);
  const total = ownStepCount(
    layouts.reduce((n, l) => n + combos(variableNamed(cube, l.name)) * tiles.length, 0),
    options.share,
  );
  const stats = new Map<string, Statistics | undefined>();
  let step = 0;
  let done = 0;
  for (const layout of layouts) {
    const v = variableNamed(cube, layout.name);
    const model = modelOf(layout.metadata);
    const p = coefficientCount(model);
    // The documented basis at each requested value, value-major.
    const basis = new Float64Array(plan.values.length * p);
    const row = new Float64Array(p);
    plan.values.forEach((value, k) => {
      documentedBasis(model, encodeX(layout.metadata.dimension, value), row);
      basis.set(row, k * p);
    });
    const others = v.dimensions.slice(0, -1).map((d) => d.values.length);
    const acc = statisticsAccumulator();
    for (let s = 0; s < combos(v); s++) {
      const at = combinationAt(s, others);
      const dims = [...at.map((i) => [i, i + 1] as const), [0, p] as const];
      for (const { ox: x, oy: y, ...window } of tiles) {
        if (!ownsStep(step++, options.share)) continue;
        options.signal?.throwIfAborted();
        const slab = await v.read({ dims, window, signal: options.signal });
        const pixels = window.width * window.height;
        const coef = slab.data;
        const nodata = v.nodata === undefined ? NaN : v.nodata;
        const out = new Float32Array(pixels);
        for (let k = 0; k < plan.values.length; k++) {
          const b0 = k * p;
          for (let q = 0; q < pixels; q++) {
            let sum = 0;
            for (let j = 0; j < p; j++) {
              const c = coef[j * pixels + q];
              if (c !== c || c === nodata) {
                sum = NaN;
                break;
              }
              sum += c * basis[b0 + j];
            }
            out[q] = sum;
          }
          acc.add(out, undefined);
          const start = [...at.slice(0, layout.predictedIndex), k, ...at.slice(layout.predictedIndex), y, x];
          const shape = [...layout.dimensions.map(() => 1), window.height, window.width];
          await sink.writeBlock(layout.name, start, { data: out, shape });
        }
        options.onProgress?.(++done / total);
      }
    }
    stats.set(layout.name, acc.result());
  }
  return stats;
}
