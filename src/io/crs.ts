/**
 * CRS from CF grid_mapping attributes: the WKT (crs_wkt, or GDAL's spatial_ref) and the
 * EPSG code when one is stated or the WKT's outermost AUTHORITY/ID names it.
 */
import type { Crs } from "../cube/types.js";
import { type Attributes, stringAttr } from "./raw.js";

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

/** The EPSG code of the outermost object of a WKT1 or WKT2 string (its last AUTHORITY/ID). */
export function epsgFromWkt(wkt: string): number | undefined {
  const all = [...wkt.matchAll(/(?:AUTHORITY|ID)\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]/gi)];
  if (!all.length) return undefined;
  const last = all[all.length - 1];
  // The outermost authority closes just before the final bracket.
  const tail = wkt.slice((last.index ?? 0) + last[0].length).replace(/\s/g, "");
  return /^\]*$/.test(tail) ? Number(last[1]) : undefined;
}
