/**
 * The ramps the app offers, taken from the server's own tables (src/services/render, pure
 * modules) so the legend is the image's ramp: Strata's matplotlib ramps (viridis, …; `_r`
 * reverses one, RdBu_r runs blue (low) → white → red (high)) and ArcGIS's named ramps.
 */
import { isDivergingRamp } from "../../../src/services/render/colormaps.js";
import { ESRI_RAMP_NAMES } from "../../../src/services/render/esriColorRamps.js";
import { namedRampTable } from "../../../src/services/render/namedRamps.js";

export type RampName = string;

/** Strata's ramps: sequential first, then diverging ones for signed values. */
export const STRATA_RAMPS: readonly RampName[] = [
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
/** ArcGIS's named ramps, as the Maps SDK names them. */
export const ARCGIS_RAMPS: readonly RampName[] = ESRI_RAMP_NAMES;

export const isDiverging = (name: RampName) => isDivergingRamp(name) || /diverging/i.test(name);

/** Enough stops that the CSS gradient's linear blending matches the 256-entry ramp. */
const STOPS = 17;

/** A CSS gradient of the ramp, low values at the left. */
export function cssGradient(name: RampName): string {
  const lut = namedRampTable(name) ?? namedRampTable("gray")!;
  const stops = Array.from({ length: STOPS }, (_, k) => {
    const i = Math.round((k * 255) / (STOPS - 1));
    return `rgb(${lut[3 * i]}, ${lut[3 * i + 1]}, ${lut[3 * i + 2]}) ${((100 * k) / (STOPS - 1)).toFixed(1)}%`;
  });
  return `linear-gradient(to right, ${stops.join(", ")})`;
}
