/**
 * The environment settings (`context`, SPEC §10) as form fields: an extent in degrees
 * (drawn on a map or typed), a cell size, an output coordinate system, a resampling method
 * the threads to use and how the output is stored; checked here, then sent as the JSON the
 * server takes.
 */

export interface ContextValue {
  /** The extent's edges in degrees (WGS 84), as typed; all empty: the input's extent. */
  west: string;
  south: string;
  east: string;
  north: string;
  /** "" (the input's), MAXOF, MINOF, or a size in the output's units. */
  cellSize: string;
  /** An EPSG code; "" keeps the input's coordinate system. */
  outSR: string;
  /** NEAREST, BILINEAR or CUBIC; "" the server's default. */
  resampling: string;
  /** "50%" or a count of threads; "" all the server allows. */
  parallel: string;
  /** ZSTD or NONE; "" the server's default (ZSTD). */
  compression: string;
}

export const EMPTY_CONTEXT: ContextValue = {
  west: "",
  south: "",
  east: "",
  north: "",
  cellSize: "",
  outSR: "",
  resampling: "",
  parallel: "",
  compression: "",
};

const EDGES = ["west", "south", "east", "north"] as const;
const isNumber = (s: string) => s.trim() !== "" && Number.isFinite(Number(s));

/** What is wrong with the settings, in one sentence; undefined when nothing is. */
export function contextProblem(c: ContextValue): string | undefined {
  const given = EDGES.filter((e) => c[e].trim() !== "");
  if (given.length > 0) {
    if (given.length < 4 || !EDGES.every((e) => isNumber(c[e])))
      return "The extent needs four numbers: west, south, east and north (degrees).";
    const [w, s, e, n] = EDGES.map((k) => Number(c[k]));
    if (s < -90 || n > 90) return "Latitudes are between -90 and 90.";
    if (w < -180 || e > 360) return "Longitudes are between -180 and 360.";
    if (w >= e) return "The extent's east edge must be east of its west edge.";
    if (s >= n) return "The extent's north edge must be north of its south edge.";
  }
  const cell = c.cellSize.trim();
  if (cell !== "" && cell !== "MAXOF" && cell !== "MINOF" && !(isNumber(cell) && Number(cell) > 0))
    return "The cell size is a positive number.";
  if (c.outSR.trim() !== "" && !/^\d{4,6}$/.test(c.outSR.trim())) return "The coordinate system is an EPSG code, such as 3857.";
  if (c.parallel.trim() !== "" && !/^(\d+|\d{1,3}%)$/.test(c.parallel.trim()))
    return 'Parallel processing is a count of threads or a percentage such as "50%".';
  return undefined;
}

/** The `context` JSON, or undefined when nothing is set. */
export function contextJson(c: ContextValue): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (EDGES.every((e) => isNumber(c[e]))) {
    const [xmin, ymin, xmax, ymax] = EDGES.map((k) => Number(c[k]));
    out.extent = { xmin, ymin, xmax, ymax, spatialReference: { wkid: 4326 } };
  }
  const cell = c.cellSize.trim();
  if (cell) out.cellSize = isNumber(cell) ? Number(cell) : cell;
  if (c.outSR.trim()) out.outSR = { wkid: Number(c.outSR) };
  if (c.resampling) out.resamplingMethod = c.resampling;
  if (c.parallel.trim()) out.parallelProcessingFactor = c.parallel.trim();
  if (c.compression) out.compression = c.compression;
  return Object.keys(out).length ? out : undefined;
}
