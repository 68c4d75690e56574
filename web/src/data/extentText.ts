/** An extent as a person reads it: degrees with hemispheres, else map units with the CRS. */
import { wkidOf } from "../api/spatialReference.js";
import type { Extent } from "../api/types.js";

export function extentText(e: Extent): string {
  const wkid = wkidOf(e);
  const round = (v: number) => String(Math.round(v * 100) / 100);
  if (wkid === 4326) {
    const lon = (v: number) => `${round(Math.abs(v))}°${v < 0 ? "W" : "E"}`;
    const lat = (v: number) => `${round(Math.abs(v))}°${v < 0 ? "S" : "N"}`;
    return `${lon(e.xmin)} – ${lon(e.xmax)}, ${lat(e.ymin)} – ${lat(e.ymax)}`;
  }
  return `x ${round(e.xmin)} – ${round(e.xmax)}, y ${round(e.ymin)} – ${round(e.ymax)}${wkid ? ` (EPSG:${wkid})` : ""}`;
}
