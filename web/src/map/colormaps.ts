/**
 * The ramps the app offers, taken from the server's own tables
 * (src/services/render/colormaps.ts, a pure module) so the legend is the image's ramp. Names
 * are matplotlib's; `_r` reverses a ramp (RdBu_r runs blue (low) → white → red (high)).
 */
import { colorRamp, isDivergingRamp } from "../../../src/services/render/colormaps.js";

export type RampName = string;

/** The ramps in the ramp list: sequential first, then diverging ones for signed values. */
export const RAMPS: readonly RampName[] = [
  "viridis",
  "magma",
  "inferno",
  "plasma",
  "cividis",
  "gray",
  "RdBu_r",
  "RdBu",
  "BrBG",
  "Spectral",
];

export const isDiverging = (name: RampName) => isDivergingRamp(name);

/** Enough stops that the CSS gradient's linear blending matches the 256-entry ramp. */
const STOPS = 17;

/** A CSS gradient of the ramp, low values at the left. */
export function cssGradient(name: RampName): string {
  const lut = colorRamp(name);
  const stops = Array.from({ length: STOPS }, (_, k) => {
    const i = Math.round((k * 255) / (STOPS - 1));
    return `rgb(${lut[3 * i]}, ${lut[3 * i + 1]}, ${lut[3 * i + 2]}) ${((100 * k) / (STOPS - 1)).toFixed(1)}%`;
  });
  return `linear-gradient(to right, ${stops.join(", ")})`;
}
