/**
 * How a variable is coloured, sent as an explicit renderingRule (a Colormap over a Stretch,
 * in the JSON ArcGIS takes) so the legend and the image agree. Each band has its own range
 * (a trend's Slope is about 1e-4 while its Intercept is tens). The default, as the server's
 * own: viridis over min..max, or RdBu_r over ±max(|min|, |max|) for anomalies. The user may
 * choose a standard-deviation or percent-clip stretch and any ramp.
 */
import { isAnomaly } from "../api/strataAttributes.js";
import type { ServiceInfo, Variable } from "../api/types.js";
import { type RampName, isDiverging } from "./colormaps.js";

export type StretchKind = "minMax" | "standardDeviation" | "percentClip";

/** What the user chose; the ramp is the variable's default until one is picked. */
export interface StretchChoice {
  kind: StretchKind;
  deviations: number;
  clipPercent: number;
  ramp?: RampName;
}

export const DEFAULT_STRETCH: StretchChoice = { kind: "minMax", deviations: 2, clipPercent: 2 };

/** ArcGIS's StretchType codes. */
const STRETCH_TYPE: Record<StretchKind, number> = { minMax: 5, standardDeviation: 3, percentClip: 6 };

export interface BandStatistics {
  min: number;
  max: number;
  mean: number;
  standardDeviation: number;
}

export interface Rendering {
  ramp: RampName;
  kind: StretchKind;
  /** The value range drawn across the ramp; a percent clip's comes from the server's histogram, so is not known here. */
  min?: number;
  max?: number;
  deviations?: number;
  clipPercent?: number;
  statistics: BandStatistics;
}

/** The statistics of `band` (0 unless a multiband trend raster's band is chosen). */
export function bandStatistics(variable: Variable, info: ServiceInfo, band = 0): BandStatistics {
  const stats = variable.statistics?.[band];
  // Root statistics describe the first variable only (one entry per band).
  const first = info.variableNames?.[0] ?? info.bandNames?.[0];
  const fromRoot = first === undefined || first === variable.name;
  const root = (values?: number[]) => (fromRoot ? values?.[band] : undefined);
  const min = stats?.min ?? root(info.minValues) ?? 0;
  const max = stats?.max ?? root(info.maxValues) ?? 1;
  return { min, max, mean: stats?.mean ?? (min + max) / 2, standardDeviation: stats?.standardDeviation ?? (max - min) / 4 };
}

export function renderingFor(variable: Variable, info: ServiceInfo, band = 0, choice: StretchChoice = DEFAULT_STRETCH): Rendering {
  const statistics = bandStatistics(variable, info, band);
  const ramp = choice.ramp ?? (isAnomaly(variable) ? "RdBu_r" : "viridis");
  const { min, max, mean, standardDeviation } = statistics;
  switch (choice.kind) {
    case "standardDeviation":
      return {
        ramp,
        kind: choice.kind,
        deviations: choice.deviations,
        // The server keeps mean ± n·sd within the data's range, as ArcGIS does.
        min: Math.max(min, mean - choice.deviations * standardDeviation),
        max: Math.min(max, mean + choice.deviations * standardDeviation),
        statistics,
      };
    case "percentClip":
      return { ramp, kind: choice.kind, clipPercent: choice.clipPercent, statistics };
    default: {
      // Anomalies, and signed values on a diverging ramp, put zero on the ramp's middle colour.
      const m = Math.max(Math.abs(min), Math.abs(max));
      const centred = isAnomaly(variable) || (isDiverging(ramp) && min < 0 && max > 0);
      return { ramp, kind: "minMax", min: centred ? -m : min, max: centred ? m : max, statistics };
    }
  }
}

/** The renderingRule: a Colormap naming its ramp over a Stretch, with the band's statistics given explicitly. */
export function renderingRule(r: Rendering): string {
  const { mean, standardDeviation } = r.statistics;
  const args: Record<string, unknown> = { StretchType: STRETCH_TYPE[r.kind] };
  if (r.kind === "minMax") args.Statistics = [[r.min, r.max, mean, standardDeviation]];
  if (r.kind === "standardDeviation") {
    args.NumberOfStandardDeviations = r.deviations;
    args.Statistics = [[r.statistics.min, r.statistics.max, mean, standardDeviation]];
  }
  if (r.kind === "percentClip") Object.assign(args, { MinPercent: r.clipPercent, MaxPercent: r.clipPercent });
  return JSON.stringify({
    rasterFunction: "Colormap",
    rasterFunctionArguments: { ColorrampName: r.ramp, Raster: { rasterFunction: "Stretch", rasterFunctionArguments: args } },
  });
}
