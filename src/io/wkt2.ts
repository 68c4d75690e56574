/**
 * OGC WKT2 (2019) of the coordinate systems Strata writes, for GeoZarr's `proj:wkt2`. No
 * well-kept JavaScript library writes WKT2 (proj4js and wkt-parser only read it), so the
 * systems Strata itself names are spelled here as PROJ 9 / GDAL 3.6 spell them
 * (`gdalsrsinfo -o wkt2_2019 EPSG:<code>`, without the optional USAGE): WGS 84 (EPSG:4326),
 * Web Mercator (EPSG:3857) and the WGS 84 UTM zones (EPSG:32601..32660, 32701..32760). A CRS
 * whose WKT is WKT2 already keeps it. Anything else has no WKT2 here (undefined): writers then
 * leave `proj:wkt2` out rather than put WKT1 under a WKT2 name; `proj:code` and the CF grid
 * mapping's `crs_wkt` still say what it is.
 */
import type { Crs } from "../cube/types.js";

const DEGREE = 'ANGLEUNIT["degree",0.0174532925199433]';
const METRE = 'LENGTHUNIT["metre",1]';
const WGS84_DATUM =
  'ENSEMBLE["World Geodetic System 1984 ensemble",MEMBER["World Geodetic System 1984 (Transit)"],' +
  'MEMBER["World Geodetic System 1984 (G730)"],MEMBER["World Geodetic System 1984 (G873)"],' +
  'MEMBER["World Geodetic System 1984 (G1150)"],MEMBER["World Geodetic System 1984 (G1674)"],' +
  'MEMBER["World Geodetic System 1984 (G1762)"],MEMBER["World Geodetic System 1984 (G2139)"],' +
  `ELLIPSOID["WGS 84",6378137,298.257223563,${METRE}],ENSEMBLEACCURACY[2.0]],PRIMEM["Greenwich",0,${DEGREE}]`;

const WGS84 =
  `GEOGCRS["WGS 84",${WGS84_DATUM},CS[ellipsoidal,2],` +
  `AXIS["geodetic latitude (Lat)",north,ORDER[1],${DEGREE}],AXIS["geodetic longitude (Lon)",east,ORDER[2],${DEGREE}],ID["EPSG",4326]]`;

const BASE = `BASEGEOGCRS["WGS 84",${WGS84_DATUM},ID["EPSG",4326]]`;

const parameter = (name: string, value: number, unit: string, id: number) => `PARAMETER["${name}",${value},${unit},ID["EPSG",${id}]]`;

const WEB_MERCATOR =
  `PROJCRS["WGS 84 / Pseudo-Mercator",${BASE},` +
  `CONVERSION["Popular Visualisation Pseudo-Mercator",METHOD["Popular Visualisation Pseudo Mercator",ID["EPSG",1024]],` +
  `${parameter("Latitude of natural origin", 0, DEGREE, 8801)},${parameter("Longitude of natural origin", 0, DEGREE, 8802)},` +
  `${parameter("False easting", 0, METRE, 8806)},${parameter("False northing", 0, METRE, 8807)}],` +
  `CS[Cartesian,2],AXIS["easting (X)",east,ORDER[1],${METRE}],AXIS["northing (Y)",north,ORDER[2],${METRE}],ID["EPSG",3857]]`;

function utm(zone: number, south: boolean): string {
  const name = `UTM zone ${zone}${south ? "S" : "N"}`;
  return (
    `PROJCRS["WGS 84 / ${name}",${BASE},` +
    `CONVERSION["${name}",METHOD["Transverse Mercator",ID["EPSG",9807]],` +
    `${parameter("Latitude of natural origin", 0, DEGREE, 8801)},${parameter("Longitude of natural origin", zone * 6 - 183, DEGREE, 8802)},` +
    `${parameter("Scale factor at natural origin", 0.9996, 'SCALEUNIT["unity",1]', 8805)},` +
    `${parameter("False easting", 500000, METRE, 8806)},${parameter("False northing", south ? 10000000 : 0, METRE, 8807)}],` +
    `CS[Cartesian,2],AXIS["(E)",east,ORDER[1],${METRE}],AXIS["(N)",north,ORDER[2],${METRE}],ID["EPSG",${(south ? 32700 : 32600) + zone}]]`
  );
}

/** WKT2 keywords that open a coordinate reference system (WKT1 opens with GEOGCS, PROJCS ...). */
const WKT2_OPENING =
  /^\s*(GEOGCRS|GEOGRAPHICCRS|GEODCRS|GEODETICCRS|PROJCRS|PROJECTEDCRS|BASEGEOGCRS|VERTCRS|COMPOUNDCRS|BOUNDCRS|ENGCRS|TIMECRS|DERIVEDPROJCRS)\s*\[/i;

/**
 * The CRS as OGC WKT2 (2019), or undefined when Strata cannot write it.
 * @example
 * wkt2Of({ epsg: 4326 }); // 'GEOGCRS["WGS 84",ENSEMBLE[...],...,ID["EPSG",4326]]'
 * wkt2Of({ wkt: 'GEOGCS["WGS 84",...]' }); // undefined: WKT1 of no EPSG code Strata spells
 */
export function wkt2Of(crs: Crs): string | undefined {
  if (crs.wkt && WKT2_OPENING.test(crs.wkt)) return crs.wkt;
  const code = crs.epsg;
  if (code === 4326) return WGS84;
  if (code === 3857) return WEB_MERCATOR;
  if (code !== undefined && code > 32600 && code <= 32660) return utm(code - 32600, false);
  if (code !== undefined && code > 32700 && code <= 32760) return utm(code - 32700, true);
  return undefined;
}
