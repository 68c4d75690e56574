/**
 * The `statistics` and `histograms` resources of an image service (SPEC §11), as ArcGIS Image
 * Server answers them: one entry per band of a variable, over all its slices, from the
 * statistics and histogram kept when the dataset was written ("strata:statistics"), so no
 * pixel is read. `variable` chooses the variable (default: the first, which the root
 * describes); a trend raster's bands come in band order. The Maps SDK asks both when it
 * loads a layer (fetchRasterInfo) and per variable (fetchVariableStatisticsHistograms).
 */
import { histogramBins } from "../analysis/histogram.js";
import type { Statistics } from "../analysis/statistics.js";
import { InvalidInputError } from "../cube/errors.js";
import type { Cube, Variable } from "../cube/types.js";
import { bandStatistics } from "./bands.js";
import { parseRenderingRule } from "./render/renderingRule.js";
import type { Histogram } from "./statisticsHistograms.js";
import { HISTOGRAM_SIZE } from "./statisticsHistograms.js";

type StoredStatistics = Readonly<Record<string, Statistics | null | undefined>>;

/** ArcGIS's statistics object (median and mode are not kept, so not given). */
export interface BandStatistics {
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly standardDeviation: number;
  readonly count: number;
}

/**
 * `{statistics: [...]}`, one per band, or an empty list when the dataset kept none.
 * @example
 * statisticsResource(cube, stats, { variable: "sst" }); // { statistics: [{ min, max, mean, standardDeviation, count }] }
 */
export function statisticsResource(
  cube: Cube,
  stored: StoredStatistics,
  params: Readonly<Record<string, string>>,
): { statistics: BandStatistics[] } {
  const perBand = bandStatistics(stored, chosenVariable(cube, params));
  if (!perBand.every((s) => s !== undefined)) return { statistics: [] };
  return { statistics: perBand.map((s) => ({ min: s!.min, max: s!.max, mean: s!.mean, standardDeviation: s!.stddev, count: s!.count })) };
}

/**
 * `{histograms: [...]}`: 256 bins over [min, max] per band, or an empty list when any band
 * has no histogram kept (an old dataset).
 * @example
 * histogramsResource(cube, stats, {}); // { histograms: [{ size: 256, min, max, counts }] }
 */
export function histogramsResource(
  cube: Cube,
  stored: StoredStatistics,
  params: Readonly<Record<string, string>>,
): { histograms: Histogram[] } {
  const perBand = bandStatistics(stored, chosenVariable(cube, params));
  if (!perBand.every((s) => s?.histogram !== undefined)) return { histograms: [] };
  return {
    histograms: perBand.map((s) => ({
      size: HISTOGRAM_SIZE,
      min: s!.min,
      max: s!.max,
      counts: histogramBins(s!.histogram!, s!.min, s!.max, HISTOGRAM_SIZE),
    })),
  };
}

/**
 * Whether the service has histograms (the root's `hasHistograms`): every band of its first
 * variable kept one.
 */
export function hasStoredHistograms(cube: Cube, stored: StoredStatistics): boolean {
  const first = cube.variables[0];
  return first !== undefined && bandStatistics(stored, first).every((s) => s?.histogram !== undefined);
}

/** The variable a request names (default the first); an unknown name or a renderingRule is a 400. */
function chosenVariable(cube: Cube, params: Readonly<Record<string, string>>): Variable {
  refuseRenderingRule(params.renderingRule);
  const name = params.variable?.trim();
  if (!name) {
    const first = cube.variables[0];
    if (!first) throw new InvalidInputError("this service has no variable", { parameter: "variable" });
    return first;
  }
  const found = cube.variables.find((v) => v.name === name);
  if (!found) {
    throw new InvalidInputError(
      `variable "${name}" is not one of this service's variables (${cube.variables.map((v) => v.name).join(", ")})`,
      {
        parameter: "variable",
      },
    );
  }
  return found;
}

/**
 * Statistics are kept for the stored values only: no rule, an empty one or the identity
 * ("None") is fine; any other rule would change the values, so it is refused, not ignored.
 */
function refuseRenderingRule(text: string | undefined): void {
  if (!text?.trim() || parseRenderingRule(text) === undefined) return;
  throw new InvalidInputError(
    "renderingRule: statistics and histograms are kept for the service's stored values only; ask without a renderingRule " +
      "(or with the None function)",
    { parameter: "renderingRule" },
  );
}
