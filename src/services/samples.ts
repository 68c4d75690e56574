/**
 * getSamples (SPEC §11): values of one slice at many locations, as the ArcGIS ImageServer
 * answers it. Points and multipoints are sampled where they are; a polyline at `sampleCount`
 * evenly spaced points along its length (both ends included) or every `sampleDistance`
 * (in the geometry's units) from its start, else at its vertices. Each value is the cell
 * containing the location (no interpolation); areas (envelope, polygon) are refused. A
 * multiband (trend) raster's value is every band's, separated by spaces (as identify's).
 */
import { InvalidInputError } from "../cube/errors.js";
import type { Cube } from "../cube/types.js";
import { bandsText, cellLocator, cellValues, crsJson, queryCrs } from "./identify.js";
import { booleanParam } from "./requestValues.js";
import { selectSlice } from "./slices.js";
import { type Geometry, type MapPoint, parseGeometry } from "./spatial.js";

/** Most locations one request may sample. */
export const MAX_SAMPLES = 10_000;

/** One sampled location. */
export interface Sample {
  readonly location: { readonly x: number; readonly y: number; readonly spatialReference: Record<string, unknown> };
  readonly locationId: number;
  readonly value: string;
  readonly rasterId: 0;
  readonly resolution: number;
}

/**
 * Sample the service along a geometry.
 * @example
 * await getSamples(cube, { geometry: '{"paths":[[[0,0],[10,0]]],"spatialReference":{"wkid":4326}}', sampleCount: "3" });
 * // { samples: [{ location: { x: 0, y: 0, ... }, locationId: 0, value: "1.5", rasterId: 0, resolution: 2.5 }, ...] }
 */
export async function getSamples(
  cube: Cube,
  params: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): Promise<{ samples: Sample[] }> {
  const { geometry, spatialReference: given } = parseGeometry(params.geometry, params.geometryType, ["point", "multipoint", "polyline"]);
  const crs = queryCrs(cube.grid, given, params.sr);
  // One raster per slice: the first value is the only one, so this flag changes nothing.
  booleanParam(params.returnFirstValueOnly, true, "returnFirstValueOnly");
  const locations = sampleLocations(geometry, params);
  const slice = selectSlice(cube, { sliceId: params.sliceId, mosaicRule: params.mosaicRule, time: params.time });
  const locate = cellLocator(cube.grid, crs);
  const cells = locations.map(locate);
  const values = slice ? await cellValues(slice, cells, signal) : cells.map(() => [null]);
  const spatialReference = crsJson(cube.grid, crs);
  const resolution = Math.abs(cube.grid.transform[1]);
  return {
    samples: locations.map((p, i) => ({
      location: { x: p.x, y: p.y, spatialReference },
      locationId: i,
      value: bandsText(values[i], slice?.variable),
      rasterId: 0,
      resolution,
    })),
  };
}

/**
 * The locations a geometry is sampled at (see the module comment); more than MAX_SAMPLES is
 * a 400 naming the parameter that asked for them.
 * @example
 * sampleLocations({ type: "polyline", paths: [[{ x: 0, y: 0 }, { x: 4, y: 0 }]] }, { sampleCount: "3" }); // x = 0, 2, 4
 */
export function sampleLocations(geometry: Geometry, params: Readonly<Record<string, string>>): MapPoint[] {
  // Checked for every geometry, so a bad value is a 400 even where it would not be used.
  const count = params.sampleCount?.trim() ? Number(params.sampleCount.trim()) : undefined;
  const distance = params.sampleDistance?.trim() ? Number(params.sampleDistance.trim()) : undefined;
  if (count !== undefined && !(Number.isInteger(count) && count >= 1 && count <= MAX_SAMPLES)) {
    throw new InvalidInputError(`sampleCount must be a whole number from 1 to ${MAX_SAMPLES}; got "${params.sampleCount}"`, {
      parameter: "sampleCount",
    });
  }
  if (distance !== undefined && !(Number.isFinite(distance) && distance > 0)) {
    throw new InvalidInputError(`sampleDistance must be a positive number; got "${params.sampleDistance}"`, {
      parameter: "sampleDistance",
    });
  }
  if (geometry.type === "point" || geometry.type === "multipoint") {
    if (geometry.points.length > MAX_SAMPLES) {
      throw new InvalidInputError(`geometry has ${geometry.points.length} points; at most ${MAX_SAMPLES} can be sampled at once`, {
        parameter: "geometry",
      });
    }
    return [...geometry.points];
  }
  if (geometry.type !== "polyline")
    throw new InvalidInputError("geometry must be a point, multipoint or polyline", { parameter: "geometry" });
  const line = measuredLine(geometry.paths);
  const length = line.length === 0 ? 0 : line[line.length - 1].at;
  // sampleCount wins when both are given: it is the one that bounds the answer.
  if (count !== undefined) return Array.from({ length: count }, (_, k) => pointAlong(line, count === 1 ? 0 : (k * length) / (count - 1)));
  if (distance !== undefined) {
    const steps = Math.floor(length / distance + 1e-9);
    const total = steps + 1 + (Math.abs(steps * distance - length) > 1e-9 * Math.max(1, length) ? 1 : 0);
    if (total > MAX_SAMPLES) {
      throw new InvalidInputError(
        `sampleDistance ${distance} gives ${total} locations along a line ${length} long; at most ${MAX_SAMPLES} can be sampled at once`,
        { parameter: "sampleDistance" },
      );
    }
    const at = Array.from({ length: steps + 1 }, (_, k) => Math.min(k * distance, length));
    if (total > steps + 1) at.push(length);
    return at.map((s) => pointAlong(line, s));
  }
  // Neither: no densification, as ArcGIS does for paths.
  const vertices = geometry.paths.flat();
  if (vertices.length > MAX_SAMPLES) {
    throw new InvalidInputError(`geometry has ${vertices.length} vertices; at most ${MAX_SAMPLES} can be sampled at once`, {
      parameter: "geometry",
    });
  }
  return vertices;
}

/** A polyline's segments with the distance from its start at each one's end (gaps between paths cost nothing). */
interface Segment {
  readonly from: MapPoint;
  readonly to: MapPoint;
  readonly start: number;
  readonly at: number;
}

function measuredLine(paths: readonly (readonly MapPoint[])[]): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const path of paths) {
    // A one-vertex path is a zero-length segment, so its point can still be sampled.
    for (let i = 0; i < Math.max(1, path.length - 1); i++) {
      const from = path[i];
      const to = path[Math.min(i + 1, path.length - 1)];
      const start = at;
      at += Math.hypot(to.x - from.x, to.y - from.y);
      out.push({ from, to, start, at });
    }
  }
  return out;
}

/** The point `s` along the line (clamped to its ends). */
function pointAlong(line: readonly Segment[], s: number): MapPoint {
  const segment = line.find((g) => g.at >= s) ?? line[line.length - 1];
  const span = segment.at - segment.start;
  const f = span > 0 ? Math.min(1, Math.max(0, (s - segment.start) / span)) : 0;
  return { x: segment.from.x + f * (segment.to.x - segment.from.x), y: segment.from.y + f * (segment.to.y - segment.from.y) };
}
