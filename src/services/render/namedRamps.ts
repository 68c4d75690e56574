/**
 * Colour ramps by name, as a renderingRule names them: ArcGIS's own ramp names first
 * ("Elevation #1", "Slope", … see esriColorRamps.ts), then ArcGIS's predefined colormaps
 * (NDVI, Elevation, … see arcgisColormaps.ts), then the matplotlib ramps Strata draws with by
 * default (viridis, RdBu_r, … see colormaps.ts). Names match case-insensitively.
 */
import { ARCGIS_COLORMAP_NAMES, arcgisColormapTable } from "./arcgisColormaps.js";
import { rampTable } from "./colorRampJson.js";
import { RAMP_NAMES, colorRamp } from "./colormaps.js";
import { esriNamedRamp } from "./esriColorRamps.js";

/** What a refused name is told it could have been. */
export const RAMP_NAME_HINT =
  `an ArcGIS colour-ramp name (such as "Elevation #1", "Precipitation", "Red to Green", "Slope", "Temperature"; ` +
  `docs/api.md lists all 57), an ArcGIS colormap (${ARCGIS_COLORMAP_NAMES.join(", ")}) ` +
  `or ${RAMP_NAMES.join(", ")} (append _r to reverse these)`;

/**
 * The 256-entry RGB table (768 bytes) of a named ramp, or undefined for an unknown name.
 * @example
 * namedRampTable("Temperature"); // white-pink -> magenta -> blue -> cyan -> green -> yellow -> orange -> dark red
 * namedRampTable("viridis");
 */
export function namedRampTable(name: string): Uint8Array | undefined {
  const esri = esriNamedRamp(name);
  if (esri) return rampTable(esri);
  const colormap = arcgisColormapTable(name);
  if (colormap) return colormap;
  try {
    return colorRamp(name);
  } catch {
    return undefined;
  }
}
