/**
 * The two ramps the app draws with, taken from the server's own tables
 * (src/services/render/colormaps.ts, a pure module) so the legend is the image's ramp:
 * viridis, and RdBu_r running blue (low) → white → red (high). Used for the legend's gradient.
 */
import { colorRamp } from "../../../src/services/render/colormaps.js";

export type RampName = "viridis" | "RdBu_r";

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
