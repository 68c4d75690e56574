/**
 * CRS from CF grid_mapping attributes: the WKT (crs_wkt, or GDAL's spatial_ref) and the
 * EPSG code when one is stated or the WKT's outermost AUTHORITY/ID names it.
 */
import type { Crs } from "../cube/types.js";
import { type Attributes, stringAttr } from "./raw.js";
import { epsgFromWkt } from "../cube/wkt.js";

/**
 * @example
 * crsFromGridMapping({ grid_mapping_name: "latitude_longitude" }) // { epsg: 4326 }
 */
export function crsFromGridMapping(attrs: Attributes): Crs | undefined {
  const wkt = stringAttr(attrs, "crs_wkt") ?? stringAttr(attrs, "spatial_ref");
  const code = stringAttr(attrs, "epsg_code") ?? stringAttr(attrs, "proj:code");
  const stated = code?.match(/EPSG:(\d+)/i);
  const epsg = stated ? Number(stated[1]) : wkt ? epsgFromWkt(wkt) : undefined;
  if (epsg !== undefined || wkt) return { ...(epsg !== undefined ? { epsg } : {}), ...(wkt ? { wkt } : {}) };
  return stringAttr(attrs, "grid_mapping_name") === "latitude_longitude" ? { epsg: 4326 } : undefined;
}
