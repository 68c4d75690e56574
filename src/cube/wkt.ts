/** WKT facts every layer needs without a projection library. */

/**
 * The EPSG code of the outermost object of a WKT1 or WKT2 string (its last AUTHORITY/ID).
 * @example
 * epsgFromWkt('GEOGCS["WGS 84",...,AUTHORITY["EPSG","4326"]]') // 4326
 */
export function epsgFromWkt(wkt: string): number | undefined {
  const all = [...wkt.matchAll(/(?:AUTHORITY|ID)\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]/gi)];
  if (!all.length) return undefined;
  const last = all[all.length - 1];
  // The outermost authority closes just before the final bracket.
  const tail = wkt.slice((last.index ?? 0) + last[0].length).replace(/\s/g, "");
  return /^\]*$/.test(tail) ? Number(last[1]) : undefined;
}
