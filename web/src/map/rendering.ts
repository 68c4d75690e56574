/**
 * How a variable is coloured: viridis over its min..max, or for anomalies RdBu_r over a range
 * symmetric about zero (as the server's default rendering does). The app sends the same choice
 * as an explicit renderingRule, so the legend and the image agree exactly.
 */
import { isAnomaly } from "../api/strataAttributes.js";
import type { ServiceInfo, Variable } from "../api/types.js";
import type { RampName } from "./colormaps.js";

export interface Rendering {
  ramp: RampName;
  min: number;
  max: number;
}

/** The rendering of `band` (0 unless a multiband trend raster's band is chosen): its own range. */
export function renderingFor(variable: Variable, info: ServiceInfo, band = 0): Rendering {
  const stats = variable.statistics?.[band];
  // Root statistics describe the first variable only (one entry per band).
  const first = info.variableNames?.[0] ?? info.bandNames?.[0];
  const fromRoot = first === undefined || first === variable.name;
  const min = stats?.min ?? (fromRoot ? info.minValues?.[band] : undefined) ?? 0;
  const max = stats?.max ?? (fromRoot ? info.maxValues?.[band] : undefined) ?? 1;
  if (isAnomaly(variable)) {
    const m = Math.max(Math.abs(min), Math.abs(max));
    return { ramp: "RdBu_r", min: -m, max: m };
  }
  return { ramp: "viridis", min, max };
}

/** The renderingRule: a Colormap over a min-max Stretch with the legend's range. */
export function renderingRule(r: Rendering): string {
  return JSON.stringify({
    rasterFunction: "Colormap",
    rasterFunctionArguments: {
      ColormapName: r.ramp,
      Raster: {
        rasterFunction: "Stretch",
        rasterFunctionArguments: { StretchType: 5, Statistics: [[r.min, r.max, (r.min + r.max) / 2, 1]] },
      },
    },
  });
}
