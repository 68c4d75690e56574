/** Frame a service's extent in a Web Mercator view (a global grid shows the whole world). */
import type View from "ol/View.js";
import { transformExtent } from "ol/proj.js";
import { wkidOf } from "../api/spatialReference.js";
import type { Extent } from "../api/types.js";

/** A global grid: the whole width, centred on the equator. */
const WORLD: [number, number, number, number] = [-180, -75, 180, 75];

export function fitView(view: View, extent: Extent, size: [number, number] | undefined): void {
  const wkid = wkidOf(extent);
  let box: number[];
  if (wkid === 3857 || wkid === 102100) {
    box = [extent.xmin, extent.ymin, extent.xmax, extent.ymax];
  } else if (wkid === 4326 || wkid === 4269 || wkid === undefined) {
    const global = extent.xmax - extent.xmin >= 359;
    const lonLat = global ? WORLD : [extent.xmin, Math.max(-85, extent.ymin), extent.xmax, Math.min(85, extent.ymax)];
    box = transformExtent(lonLat, "EPSG:4326", "EPSG:3857");
  } else {
    return;
  }
  view.fit(box, { size, padding: [8, 8, 8, 8] });
}
