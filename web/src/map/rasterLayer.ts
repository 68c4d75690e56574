/**
 * The image service drawn by OpenLayers' ImageArcGISRest (exportImage in EPSG:3857): the
 * chosen slice as `time` (StdTime) and a mosaicRule (the variable and any other dimension),
 * with the legend's renderingRule and the token; a multiband (trend) raster's band as `bandIds`.
 */
import ImageLayer from "ol/layer/Image.js";
import ImageArcGISRest from "ol/source/ImageArcGISRest.js";
import type { Variable } from "../api/types.js";
import { isTime } from "../format.js";
import { type Rendering, renderingRule } from "./rendering.js";

/** The slice shown: an index into each dimension's values. */
export type SliceIndex = Readonly<Record<string, number>>;

/** The request parameters that choose a slice: `time` for StdTime, a mosaicRule for the variable and the rest. */
export function sliceSelection(variable: Variable, slice: SliceIndex): { time?: number; mosaicRule: string } {
  const definition: { variableName: string; dimensionName?: string; values?: number[] }[] = [];
  let time: number | undefined;
  for (const d of variable.dimensions) {
    const value = d.values[slice[d.name] ?? 0];
    if (isTime(d.name)) time = value;
    else definition.push({ variableName: variable.name, dimensionName: d.name, values: [value] });
  }
  // Name the variable even when it has no other dimension: the service draws its first one otherwise.
  if (!definition.length) definition.push({ variableName: variable.name });
  return { ...(time !== undefined ? { time } : {}), mosaicRule: JSON.stringify({ multidimensionalDefinition: definition }) };
}

export function sliceParams(
  variable: Variable,
  slice: SliceIndex,
  rendering: Rendering,
  token: string,
  band?: number,
): Record<string, string | number> {
  const { time, mosaicRule } = sliceSelection(variable, slice);
  return {
    format: "png32",
    renderingRule: renderingRule(rendering),
    token,
    // Always sent, so a band chosen once does not linger in the source's params for another variable.
    bandIds: band === undefined ? "" : String(band),
    // Empty when the variable has no time, for the same reason.
    time: time ?? "",
    mosaicRule,
  };
}

export function rasterLayer(url: string): { layer: ImageLayer<ImageArcGISRest>; source: ImageArcGISRest } {
  // ratio 1: the image covers just the viewport, so a slice change fetches as little as possible.
  const source = new ImageArcGISRest({ url, ratio: 1, crossOrigin: "anonymous", params: {} });
  return { layer: new ImageLayer({ source, zIndex: 1 }), source };
}
