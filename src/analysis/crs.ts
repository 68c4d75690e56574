/**
 * Coordinate reference systems for the warp: resolve what a request names (a wkid, a WKT, a
 * proj4 string) to a proj4 definition and to the `Crs` a grid carries, and transform points
 * between two of them. proj4 does the projection maths; EPSG codes come from the EPSG registry
 * as the epsg-index package has it (epsgIndex.ts): every 2D geographic or projected system
 * proj4 can run without a datum grid file, plus Web Mercator's aliases 102100, 102113, 900913
 * and 3785. Anything else comes as WKT (WKT1 or WKT2; a WKT whose outermost AUTHORITY/ID is a
 * usable code is taken as that code) or as a proj4 string.
 */
import proj4 from "proj4";
import { InvalidInputError } from "../cube/errors.js";
import type { Crs } from "../cube/types.js";
import { epsgFromWkt } from "../cube/wkt.js";
import { epsgSystem } from "./epsgIndex.js";

/** Codes naming Web Mercator; all are stored as 3857. */
export const WEB_MERCATOR_CODES: ReadonlySet<number> = new Set([3857, 102100, 102113, 900913, 3785]);

/** Latitude bound of the Web Mercator square (where y = ±20037508.34 m). */
export const MERCATOR_MAX_LATITUDE = 85.0511287798066;

/**
 * The proj4 definition of a usable EPSG code (Web Mercator aliases included), or undefined.
 * @example
 * epsgDefinition(32633); // "+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs"
 */
export function epsgDefinition(code: number): string | undefined {
  const found = epsgSystem(canonicalCode(code));
  return found.ok ? found.system.proj4 : undefined;
}

/** The code a grid stores for `code` (Web Mercator aliases become 3857). */
export function canonicalCode(code: number): number {
  return WEB_MERCATOR_CODES.has(code) ? 3857 : code;
}

/** A CRS resolved for the warp. */
export interface ResolvedCrs {
  /** What a Grid carries: the EPSG code when there is one, and a WKT (generated when none was given). */
  readonly crs: Crs;
  /** What proj4 reads: a proj string or the WKT as given. */
  readonly definition: string;
  readonly geographic: boolean;
}

/** Where a CRS came from, for error messages: `context.outSR`, `context.extent.spatialReference`. */
export interface CrsLabel {
  /** The parameter named by an InvalidInputError (default "context"). */
  readonly parameter?: string;
  /** How the message names the value (default "context.outSR"). */
  readonly what?: string;
}

/**
 * Resolve a spatial reference as requests give it: a wkid (number, "3857", "EPSG:3857"),
 * `{wkid, latestWkid}`, `{wkt}`, a WKT string or a proj4 string (also in `{wkt}` or
 * `{proj4}`). Unknown codes and definitions proj4 cannot read are an InvalidInputError.
 * @example
 * resolveCrs({ wkid: 102100 }).crs.epsg; // 3857
 * resolveCrs("+proj=utm +zone=33 +datum=WGS84").geographic; // false
 */
export function resolveCrs(value: unknown, label: CrsLabel = {}): ResolvedCrs {
  const parameter = label.parameter ?? "context";
  const what = label.what ?? "context.outSR";
  const fail = (why: string) => new InvalidInputError(`${what} ${why}`, { parameter });
  if (typeof value === "number") return fromCode(value, what, parameter);
  if (typeof value === "string") {
    const text = value.trim();
    const code = text.match(/^(?:EPSG:)?(\d+)$/i);
    if (code) return fromCode(Number(code[1]), what, parameter);
    if (text === "") throw fail("is empty");
    return fromText(text, what, parameter);
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const codes = [o.latestWkid, o.wkid].filter((c) => c !== undefined && c !== null && c !== "");
    for (const c of codes) {
      const n = typeof c === "number" ? c : Number(c);
      if (!Number.isInteger(n)) throw fail(`wkid must be a whole number; got ${JSON.stringify(c)}`);
      if (epsgDefinition(n)) return fromCode(n, what, parameter);
    }
    const text = typeof o.wkt === "string" ? o.wkt : typeof o.proj4 === "string" ? o.proj4 : undefined;
    if (text !== undefined && text.trim() !== "") return fromText(text.trim(), what, parameter);
    if (codes.length > 0) return fromCode(Number(codes[codes.length - 1]), what, parameter);
    throw fail("must have a wkid or a wkt");
  }
  throw fail(`must be a wkid, {"wkid": ...}, {"wkt": ...} or a proj4 string; got ${JSON.stringify(value)}`);
}

function fromCode(code: number, what: string, parameter: string): ResolvedCrs {
  const epsg = canonicalCode(code);
  const found = epsgSystem(epsg);
  const p = found.ok ? projection(found.system.proj4) : undefined;
  if (!found.ok || !p) {
    const why = found.ok ? `proj4 cannot read ${found.system.name}` : found.reason;
    throw new InvalidInputError(`${what}: wkid ${code} cannot be used: ${why}; give it as WKT or a proj4 string instead`, { parameter });
  }
  return { crs: { epsg, wkt: found.system.wkt }, definition: found.system.proj4, geographic: isLongLat(p) };
}

function fromText(text: string, what: string, parameter: string): ResolvedCrs {
  const isProj = text.startsWith("+");
  if (!isProj) {
    const code = epsgFromWkt(text);
    const known = code !== undefined ? epsgDefinition(code) : undefined;
    if (code !== undefined && known) {
      const p = projection(known)!;
      return { crs: { epsg: canonicalCode(code), wkt: text }, definition: known, geographic: isLongLat(p) };
    }
  }
  const p = projection(text);
  if (!p) {
    throw new InvalidInputError(`${what} is not a ${isProj ? "proj4 string" : "WKT"} Strata can read: ${text.slice(0, 120)}`, {
      parameter,
    });
  }
  if (isProj) {
    // No WKT came with it: describe it as WKT1 when the projection is a common one.
    const wkt = wktOf(p, "unnamed");
    return { crs: { wkt: wkt ?? text }, definition: text, geographic: isLongLat(p) };
  }
  return { crs: { wkt: text }, definition: text, geographic: isLongLat(p) };
}

/**
 * The proj4 definition of a grid's CRS: its EPSG code when Strata knows it, else its WKT (or
 * proj4 string). Undefined when the grid has neither or proj4 cannot read it.
 * @example
 * crsDefinition({ epsg: 4326 }); // "+proj=longlat +datum=WGS84 +no_defs"
 */
export function crsDefinition(crs: Crs): string | undefined {
  const known = crs.epsg !== undefined ? epsgDefinition(crs.epsg) : undefined;
  if (known) return known;
  if (crs.wkt && projection(crs.wkt)) return crs.wkt;
  return undefined;
}

/** True when a definition is geographic (longitude/latitude in degrees). */
export function isGeographicDefinition(definition: string): boolean {
  const p = projection(definition);
  return p !== undefined && isLongLat(p);
}

/** True when a definition is a Mercator projection (unbounded at the poles). */
export function isMercatorDefinition(definition: string): boolean {
  const p = projection(definition);
  return p !== undefined && (p.names ?? []).includes("merc");
}

/**
 * True when a definition's x is periodic around the globe (cylindrical projections and
 * longitude/latitude): any x has an image, a whole turn east or west of the principal one.
 */
export function isCylindricalDefinition(definition: string): boolean {
  const p = projection(definition);
  const names = p?.names ?? [];
  return ["longlat", "merc", "eqc", "cea", "mill"].some((n) => names.includes(n));
}

/**
 * True when two CRSs are the same: equal EPSG codes (Web Mercator aliases alike), or equal
 * WKT / proj4 text when either has no code.
 */
export function sameCrs(a: Crs, b: Crs): boolean {
  if (a.epsg !== undefined && b.epsg !== undefined) return canonicalCode(a.epsg) === canonicalCode(b.epsg);
  const ca = a.epsg ?? (a.wkt ? epsgFromWkt(a.wkt) : undefined);
  const cb = b.epsg ?? (b.wkt ? epsgFromWkt(b.wkt) : undefined);
  if (ca !== undefined && cb !== undefined) return canonicalCode(ca) === canonicalCode(cb);
  return a.wkt !== undefined && a.wkt.replace(/\s+/g, " ").trim() === b.wkt?.replace(/\s+/g, " ").trim();
}

/** A point transform between two CRSs; NaN coordinates where the point has no image. */
export interface PointTransform {
  forward(x: number, y: number): [number, number];
  inverse(x: number, y: number): [number, number];
}

/**
 * The transform from `from` to `to` (proj4 definitions), or undefined when they are the
 * same definition (identity). Points proj4 cannot project come back as NaN.
 * @example
 * pointTransform(epsgDefinition(4326)!, epsgDefinition(3857)!)!.forward(15, 45);
 */
export function pointTransform(from: string, to: string): PointTransform | undefined {
  if (from === to) return undefined;
  const a = projection(from);
  const b = projection(to);
  if (!a || !b) throw new RangeError("pointTransform needs definitions proj4 can read");
  const c = proj4(a, b);
  const run = (f: (p: number[]) => number[], x: number, y: number): [number, number] => {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return [NaN, NaN];
    try {
      const r = f([x, y]);
      return Number.isFinite(r[0]) && Number.isFinite(r[1]) ? [r[0], r[1]] : [NaN, NaN];
    } catch {
      return [NaN, NaN];
    }
  };
  return {
    forward: (x, y) => run((p) => c.forward(p), x, y),
    inverse: (x, y) => run((p) => c.inverse(p), x, y),
  };
}

// ---- proj4 objects -------------------------------------------------------------------------

type Projection = InstanceType<typeof proj4.Proj> & Record<string, unknown>;

const cache = new Map<string, Projection | null>();

/** proj4's parsed projection of a definition, cached; undefined when proj4 cannot read it. */
function projection(definition: string): Projection | undefined {
  let p = cache.get(definition);
  if (p === undefined) {
    try {
      const made = new proj4.Proj(definition) as Projection;
      // proj4 accepts some garbage silently: a usable projection has a name and a forward.
      p = made && typeof made.forward === "function" && (made.names?.length ?? 0) > 0 ? made : null;
    } catch {
      p = null;
    }
    if (cache.size > 256) cache.clear();
    cache.set(definition, p);
  }
  return p ?? undefined;
}

function isLongLat(p: Projection): boolean {
  return (p.names ?? []).includes("longlat");
}

// ---- WKT1 for grids that were given a proj4 string -----------------------------------------------

const DEG = 180 / Math.PI;

const fmt = (v: number) => String(Number(v.toPrecision(15)));
const param = (name: string, v: number | undefined) => `PARAMETER["${name}",${fmt(v ?? 0)}]`;
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * WKT1 (as GDAL writes it) of a parsed proj4 projection, for the common families (longlat,
 * Mercator, transverse Mercator / UTM, Lambert conformal conic, Albers, Lambert azimuthal,
 * polar stereographic, equirectangular, cylindrical equal area, Robinson, Mollweide,
 * sinusoidal); undefined for the others.
 */
function wktOf(p: Projection, name: string): string | undefined {
  const geog = geogcs(p);
  if (isLongLat(p)) return geog;
  const names = p.names ?? [];
  const has = (n: string) => names.includes(n);
  const toMeter = num(p.to_meter) ?? 1;
  const fe = (num(p.x0) ?? 0) / toMeter;
  const fn = (num(p.y0) ?? 0) / toMeter;
  const lat0 = (num(p.lat0) ?? 0) * DEG;
  const lon0 = (num(p.long0) ?? 0) * DEG;
  const k0 = num(p.k0) ?? 1;
  const lat1 = num(p.lat1) !== undefined ? num(p.lat1)! * DEG : undefined;
  const lat2 = num(p.lat2) !== undefined ? num(p.lat2)! * DEG : undefined;
  const latTs = num(p.lat_ts) !== undefined ? num(p.lat_ts)! * DEG : undefined;
  let body: string;
  if (has("merc")) {
    body =
      latTs !== undefined && latTs !== 0
        ? `PROJECTION["Mercator_2SP"],${param("standard_parallel_1", latTs)},${param("central_meridian", lon0)}`
        : `PROJECTION["Mercator_1SP"],${param("central_meridian", lon0)},${param("scale_factor", k0)}`;
  } else if (has("tmerc") || has("etmerc") || has("utm")) {
    body = `PROJECTION["Transverse_Mercator"],${param("latitude_of_origin", lat0)},${param("central_meridian", lon0)},${param("scale_factor", k0)}`;
  } else if (has("lcc")) {
    body =
      lat2 !== undefined && lat1 !== undefined && Math.abs(lat2 - lat1) > 1e-12
        ? `PROJECTION["Lambert_Conformal_Conic_2SP"],${param("standard_parallel_1", lat1)},${param("standard_parallel_2", lat2)},` +
          `${param("latitude_of_origin", lat0)},${param("central_meridian", lon0)}`
        : `PROJECTION["Lambert_Conformal_Conic_1SP"],${param("latitude_of_origin", lat1 ?? lat0)},${param("central_meridian", lon0)},${param("scale_factor", k0)}`;
  } else if (has("aea")) {
    body =
      `PROJECTION["Albers_Conic_Equal_Area"],${param("standard_parallel_1", lat1)},${param("standard_parallel_2", lat2 ?? lat1)},` +
      `${param("latitude_of_center", lat0)},${param("longitude_of_center", lon0)}`;
  } else if (has("laea")) {
    body = `PROJECTION["Lambert_Azimuthal_Equal_Area"],${param("latitude_of_center", lat0)},${param("longitude_of_center", lon0)}`;
  } else if (has("stere") && Math.abs(Math.abs(lat0) - 90) < 1e-9) {
    // GDAL's Polar_Stereographic: latitude_of_origin is the latitude of true scale.
    body =
      latTs !== undefined
        ? `PROJECTION["Polar_Stereographic"],${param("latitude_of_origin", latTs)},${param("central_meridian", lon0)},${param("scale_factor", 1)}`
        : `PROJECTION["Polar_Stereographic"],${param("latitude_of_origin", lat0)},${param("central_meridian", lon0)},${param("scale_factor", k0)}`;
  } else if (has("eqc")) {
    body = `PROJECTION["Equirectangular"],${param("standard_parallel_1", latTs ?? 0)},${param("central_meridian", lon0)}`;
  } else if (has("cea")) {
    body = `PROJECTION["Cylindrical_Equal_Area"],${param("standard_parallel_1", latTs ?? 0)},${param("central_meridian", lon0)}`;
  } else if (has("robin") || has("moll") || has("sinu")) {
    const kind = has("robin") ? "Robinson" : has("moll") ? "Mollweide" : "Sinusoidal";
    body = `PROJECTION["${kind}"],${param("central_meridian", lon0)}`;
  } else {
    return undefined;
  }
  const unit = toMeter === 1 ? 'UNIT["metre",1]' : `UNIT["${String(p.units ?? "unit")}",${fmt(toMeter)}]`;
  return (
    `PROJCS["${name}",${geog},${body},${param("false_easting", fe)},${param("false_northing", fn)},${unit},` +
    `AXIS["Easting",EAST],AXIS["Northing",NORTH]]`
  );
}

function geogcs(p: Projection): string {
  const code = String(p.datumCode ?? "").toLowerCase();
  const a = num(p.a) ?? 6378137;
  const b = num(p.b);
  const rf = num(p.rf) ?? (b !== undefined && b !== a ? a / (a - b) : 0);
  const params = (Array.isArray(p.datum_params) ? p.datum_params : []).map(Number);
  const towgs84 = params.length >= 3 && params.some((v) => v !== 0) ? `,TOWGS84[${params.map(fmt).join(",")}]` : "";
  const degree = 'PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]';
  if (code === "wgs84" && !towgs84) return `GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],${degree}]`;
  if (code === "nad83" && !towgs84)
    return `GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980",6378137,298.257222101]],${degree}]`;
  return `GEOGCS["unknown",DATUM["unknown",SPHEROID["unnamed",${fmt(a)},${fmt(rf)}]${towgs84}],${degree}]`;
}
