/**
 * Spatial parameters of image service requests: spatial references (bboxSR, imageSR, sr,
 * a geometry's own), envelopes and geometries as ArcGIS sends them (JSON or "x,y" text),
 * and where a map point falls in a service's grid.
 */
import { type ResolvedCrs, crsDefinition, isGeographicDefinition, pointTransform, resolveCrs } from "../analysis/crs.js";
import type { Envelope } from "../analysis/warp.js";
import { InvalidInputError } from "../cube/errors.js";
import type { Grid } from "../cube/types.js";

/** The service grid's CRS in the form the warp and transforms take. */
export function gridCrs(grid: Grid): ResolvedCrs {
  const definition = crsDefinition(grid.crs);
  if (!definition) throw new InvalidInputError("the service's coordinate system is not one Strata can transform", { parameter: "imageSR" });
  return { crs: grid.crs, definition, geographic: isGeographicDefinition(definition) };
}

/**
 * A spatial reference parameter: a wkid ("4326", "102100") or JSON ({"wkid":..} or {"wkt":..});
 * undefined when absent.
 * @example
 * parseSpatialReference("102100", "bboxSR")?.crs.epsg; // 3857
 */
export function parseSpatialReference(text: string | undefined, parameter: string): ResolvedCrs | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const t = text.trim();
  return resolveCrs(t.startsWith("{") ? parseJsonParam(t, parameter) : t, { parameter, what: parameter });
}

/** JSON of a parameter, or a 400 naming it. */
export function parseJsonParam(text: string, parameter: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidInputError(`${parameter} is not valid JSON`, { parameter });
  }
}

/**
 * An envelope parameter: "xmin,ymin,xmax,ymax" or JSON {xmin, ymin, xmax, ymax, spatialReference?}.
 * @example
 * parseEnvelope("-180,-90,180,90", "bbox"); // { envelope: {...}, spatialReference: undefined }
 */
export function parseEnvelope(text: string, parameter: string): { envelope: Envelope; spatialReference?: ResolvedCrs } {
  const t = text.trim();
  let o: Record<string, unknown>;
  if (t.startsWith("{")) {
    const v = parseJsonParam(t, parameter);
    if (typeof v !== "object" || v === null) throw new InvalidInputError(`${parameter} must be an envelope object`, { parameter });
    o = v as Record<string, unknown>;
  } else {
    const parts = t.split(",").map((p) => Number(p.trim()));
    if (parts.length !== 4) throw new InvalidInputError(`${parameter} must be "xmin,ymin,xmax,ymax"; got "${text}"`, { parameter });
    o = { xmin: parts[0], ymin: parts[1], xmax: parts[2], ymax: parts[3] };
  }
  const num = (k: string): number => {
    const n = typeof o[k] === "number" ? (o[k] as number) : Number(o[k]);
    if (!Number.isFinite(n)) throw new InvalidInputError(`${parameter}.${k} must be a number; got ${JSON.stringify(o[k])}`, { parameter });
    return n;
  };
  // Corners in either order, as ArcGIS Server takes them (esri-leaflet sends ymax before ymin).
  const [x0, y0, x1, y1] = [num("xmin"), num("ymin"), num("xmax"), num("ymax")];
  const envelope = { xmin: Math.min(x0, x1), ymin: Math.min(y0, y1), xmax: Math.max(x0, x1), ymax: Math.max(y0, y1) };
  if (!(envelope.xmin < envelope.xmax && envelope.ymin < envelope.ymax)) {
    throw new InvalidInputError(`${parameter} must have some width and height; got ${JSON.stringify(envelope)}`, { parameter });
  }
  const sr = o.spatialReference;
  return sr === undefined || sr === null
    ? { envelope }
    : { envelope, spatialReference: resolveCrs(sr, { parameter, what: `${parameter}.spatialReference` }) };
}

/** A map point. */
export interface MapPoint {
  readonly x: number;
  readonly y: number;
}

/** A geometry as ArcGIS sends it, reduced to what the queries need. */
export type Geometry =
  | { readonly type: "point"; readonly points: readonly MapPoint[] }
  | { readonly type: "multipoint"; readonly points: readonly MapPoint[] }
  | { readonly type: "polyline"; readonly paths: readonly (readonly MapPoint[])[] }
  | { readonly type: "polygon"; readonly rings: readonly (readonly MapPoint[])[] }
  | { readonly type: "envelope"; readonly envelope: Envelope };

const GEOMETRY_TYPES: Readonly<Record<string, Geometry["type"]>> = {
  esrigeometrypoint: "point",
  esrigeometrymultipoint: "multipoint",
  esrigeometrypolyline: "polyline",
  esrigeometrypolygon: "polygon",
  esrigeometryenvelope: "envelope",
};

/**
 * A `geometry` parameter with its `geometryType` (guessed from the JSON's keys when absent)
 * and its spatial reference (its own, else `sr`'s text, else undefined = the service's).
 * "x,y" is a point.
 * @example
 * parseGeometry('{"x":10,"y":20,"spatialReference":{"wkid":4326}}', undefined);
 */
export function parseGeometry(
  text: string | undefined,
  geometryType: string | undefined,
  allowed: readonly Geometry["type"][],
  parameter = "geometry",
): { geometry: Geometry; spatialReference?: ResolvedCrs } {
  if (text === undefined || text.trim() === "") throw new InvalidInputError(`${parameter} is required`, { parameter });
  const t = text.trim();
  let o: Record<string, unknown>;
  if (!t.startsWith("{")) {
    const parts = t.split(",").map((p) => Number(p.trim()));
    if (parts.length !== 2 || parts.some((p) => !Number.isFinite(p))) {
      throw new InvalidInputError(`${parameter} must be JSON geometry or "x,y"; got "${text}"`, { parameter });
    }
    o = { x: parts[0], y: parts[1] };
  } else {
    const v = parseJsonParam(t, parameter);
    if (typeof v !== "object" || v === null || Array.isArray(v))
      throw new InvalidInputError(`${parameter} must be a JSON geometry object`, { parameter });
    o = v as Record<string, unknown>;
  }
  let type: Geometry["type"] | undefined;
  if (geometryType !== undefined && geometryType.trim() !== "") {
    type = GEOMETRY_TYPES[geometryType.trim().toLowerCase()];
    if (!type)
      throw new InvalidInputError(
        `geometryType must be one of ${Object.keys(GEOMETRY_TYPES).map(esriName).join(", ")}; got "${geometryType}"`,
        { parameter: "geometryType" },
      );
  } else {
    type =
      "x" in o
        ? "point"
        : "points" in o
          ? "multipoint"
          : "paths" in o
            ? "polyline"
            : "rings" in o
              ? "polygon"
              : "xmin" in o
                ? "envelope"
                : undefined;
    if (!type) throw new InvalidInputError(`${parameter} is not a point, multipoint, polyline, polygon or envelope`, { parameter });
  }
  if (!allowed.includes(type)) {
    throw new InvalidInputError(
      `${parameter} must be ${allowed.map((a) => `an ${esriName(a)}`).join(" or ")} here; got an ${esriName(type)}`,
      { parameter },
    );
  }
  const num = (v: unknown, where: string): number => {
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new InvalidInputError(`${parameter}${where} must be a number; got ${JSON.stringify(v)}`, { parameter });
    return v;
  };
  const pointList = (v: unknown, where: string): MapPoint[] => {
    if (!Array.isArray(v) || v.length === 0)
      throw new InvalidInputError(`${parameter}${where} must be a non-empty array of [x, y]`, { parameter });
    return v.map((p, i) => {
      if (!Array.isArray(p) || p.length < 2) throw new InvalidInputError(`${parameter}${where}[${i}] must be [x, y]`, { parameter });
      return { x: num(p[0], `${where}[${i}][0]`), y: num(p[1], `${where}[${i}][1]`) };
    });
  };
  const parts = (key: string): MapPoint[][] => {
    const v = o[key];
    if (!Array.isArray(v) || v.length === 0) throw new InvalidInputError(`${parameter}.${key} must be a non-empty array`, { parameter });
    return v.map((part, i) => pointList(part, `.${key}[${i}]`));
  };
  let geometry: Geometry;
  switch (type) {
    case "point":
      geometry = { type, points: [{ x: num(o.x, ".x"), y: num(o.y, ".y") }] };
      break;
    case "multipoint":
      geometry = { type, points: pointList(o.points, ".points") };
      break;
    case "polyline":
      geometry = { type, paths: parts("paths") };
      break;
    case "polygon":
      geometry = { type, rings: parts("rings") };
      break;
    case "envelope":
      geometry = {
        type,
        envelope: parseEnvelope(JSON.stringify({ xmin: o.xmin, ymin: o.ymin, xmax: o.xmax, ymax: o.ymax }), parameter).envelope,
      };
      break;
  }
  const sr = o.spatialReference;
  return sr === undefined || sr === null
    ? { geometry }
    : { geometry, spatialReference: resolveCrs(sr, { parameter, what: `${parameter}.spatialReference` }) };
}

function esriName(type: string): string {
  return `esriGeometry${type[0].toUpperCase()}${type.slice(1)}`;
}

/**
 * Points of CRS `from` into fractional pixel coordinates of `grid` (column, row; cell
 * centres at n + 0.5); a geographic grid takes longitudes modulo 360 into its own range.
 * @example
 * const toPixel = pixelMapper(grid, gridCrs(grid)); toPixel({ x: 10, y: 20 }); // [col, row]
 */
export function pixelMapper(grid: Grid, from: ResolvedCrs): (p: MapPoint) => [number, number] {
  const to = gridCrs(grid);
  const tr = pointTransform(from.definition, to.definition);
  const [t0, t1, t2, t3, t4, t5] = grid.transform;
  const det = t1 * t5 - t2 * t4;
  const west = Math.min(t0, t0 + grid.width * t1);
  return (p) => {
    const [mx, y] = tr ? tr.forward(p.x, p.y) : [p.x, p.y];
    const x = to.geographic && Number.isFinite(mx) ? west + ((((mx - west) % 360) + 360) % 360) : mx;
    const ux = x - t0;
    const uy = y - t3;
    return [(t5 * ux - t2 * uy) / det, (-t4 * ux + t1 * uy) / det];
  };
}
