/**
 * An exportImage bbox moved from bboxSR into imageSR when it reaches beyond the world's edge
 * (issue 12 §5). A map panned round the world asks for x beyond ±180° (or ±20037508 m in Web
 * Mercator), which ArcGIS Server normalises; when bboxSR is imageSR the warp reads such
 * coordinates as they are (cylindrical targets repeat), but transforming one into another
 * spatial reference point by point folds longitudes back into ±180 and tears the envelope
 * apart. So a bbox in a spatial reference whose x goes round the globe (longitude/latitude,
 * Mercator and the other cylindrical projections) is first moved by whole turns so that it
 * starts in the principal world, and a bbox that then runs past the world's east edge is
 * transformed as two parts, the part beyond brought back a turn west: the two images join a
 * turn apart in a cylindrical imageSR, or overlap as the ground does in any other.
 */
import { epsgDefinition, isCylindricalDefinition, isGeographicDefinition, pointTransform } from "../analysis/crs.js";
import { type Envelope, transformEnvelope } from "../analysis/warp.js";

const WGS84 = epsgDefinition(4326)!;

/**
 * `envelope` (in `from`) in `to`, drawn across the world's edge as the ground runs.
 * @example
 * // Web Mercator x from 90° E to 270° E (90° W), in degrees: 90..270
 * envelopeInImageSR({ xmin: 10018754, ymin: -1e6, xmax: 30056262, ymax: 1e6 }, epsgDefinition(3857)!, epsgDefinition(4326)!);
 */
export function envelopeInImageSR(envelope: Envelope, from: string, to: string): Envelope | undefined {
  const world = from === to ? undefined : worldOf(from);
  if (!world) return transformEnvelope(envelope, from, to);
  const { west, width } = world;
  const east = west + width;
  const turns = Math.floor((envelope.xmin - west) / width);
  const e = { ...envelope, xmin: envelope.xmin - turns * width, xmax: envelope.xmax - turns * width };
  if (e.xmax <= east + 1e-9 * width) return transformEnvelope(e, from, to);
  const inside = transformEnvelope({ ...e, xmax: east }, from, to);
  // Beyond the edge, a turn west; more than one turn beyond is the whole world again.
  const beyond = transformEnvelope({ ...e, xmin: west, xmax: Math.min(east, e.xmax - width) }, from, to);
  if (!inside || !beyond) return inside ?? beyond;
  const period = isCylindricalDefinition(to) ? transformEnvelope({ ...e, xmin: west, xmax: east }, from, to) : undefined;
  const turn = period ? period.xmax - period.xmin : 0;
  const further = Math.max(0, e.xmax - width - east) / width;
  return {
    xmin: Math.min(inside.xmin, beyond.xmin + turn),
    ymin: Math.min(inside.ymin, beyond.ymin),
    xmax: Math.max(inside.xmax, beyond.xmax + turn) + further * turn,
    ymax: Math.max(inside.ymax, beyond.ymax),
  };
}

/** The principal world of a spatial reference whose x goes round the globe: its west edge and width. */
function worldOf(definition: string): { west: number; width: number } | undefined {
  if (isGeographicDefinition(definition)) return { west: -180, width: 360 };
  if (!isCylindricalDefinition(definition)) return undefined;
  // x runs linearly with longitude: where 90° W and 90° E fall gives the turn and its middle.
  const toX = pointTransform(definition, WGS84)!;
  const [a] = toX.inverse(-90, 0);
  const [b] = toX.inverse(90, 0);
  if (!(Number.isFinite(a) && Number.isFinite(b) && b > a)) return undefined;
  return { west: (a + b) / 2 - (b - a), width: 2 * (b - a) };
}
