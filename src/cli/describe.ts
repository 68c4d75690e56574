/**
 * What `strata info` reports about a cube (the facts gdalmdiminfo gives): grid, CRS,
 * variables with their dimensions, and each dimension's values, extent and interval.
 */
import { formatIso } from "../cube/time.js";
import { type Cube, type Dimension, STD_TIME, type Variable, variableShape } from "../cube/types.js";

export interface DimensionInfo {
  name: string;
  sourceName: string;
  description: string;
  unit: string;
  size: number;
  values: number[];
  /** ISO 8601 strings of StdTime values. */
  isoValues?: string[];
  extent: [number, number];
  hasRegularIntervals: boolean;
  interval?: number;
  intervalUnit?: string;
  calendar?: string;
}

export interface VariableInfo {
  name: string;
  description: string;
  unit: string;
  pixelType: string;
  /** The nodata value; "NaN" when NaN marks nodata; null when there is none. */
  nodata: number | "NaN" | null;
  dimensions: string[];
  shape: number[];
  chunkShape: number[];
  attributes: Record<string, unknown>;
}

export interface CubeInfo {
  source: string;
  format: string;
  grid: {
    width: number;
    height: number;
    transform: number[];
    extent: { xmin: number; ymin: number; xmax: number; ymax: number };
    pixelSizeX: number;
    pixelSizeY: number;
    crs: { epsg?: number; wkt?: string };
  };
  variables: VariableInfo[];
  dimensions: DimensionInfo[];
  skipped: { name: string; reason: string }[];
}

/**
 * @example
 * const info = describeCube(await openCube(path), path, "netcdf3");
 */
export function describeCube(cube: Cube, source: string, format: string): CubeInfo {
  const [t0, t1, , t3, , t5] = cube.grid.transform;
  const xs = [t0, t0 + t1 * cube.grid.width];
  const ys = [t3, t3 + t5 * cube.grid.height];
  const dims = new Map<string, Dimension>();
  for (const v of cube.variables) for (const d of v.dimensions) if (!dims.has(d.name)) dims.set(d.name, d);
  return {
    source,
    format,
    grid: {
      width: cube.grid.width,
      height: cube.grid.height,
      transform: [...cube.grid.transform],
      extent: { xmin: Math.min(...xs), ymin: Math.min(...ys), xmax: Math.max(...xs), ymax: Math.max(...ys) },
      pixelSizeX: Math.abs(t1),
      pixelSizeY: Math.abs(t5),
      crs: { ...cube.grid.crs },
    },
    variables: cube.variables.map((v) => describeVariable(v, cube)),
    dimensions: [...dims.values()].map(describeDimension),
    skipped: [...cube.skipped],
  };
}

function describeVariable(v: Variable, cube: Cube): VariableInfo {
  return {
    name: v.name,
    description: v.description,
    unit: v.unit,
    pixelType: v.pixelType,
    nodata: v.nodata === undefined ? null : Number.isNaN(v.nodata) ? "NaN" : v.nodata,
    dimensions: v.dimensions.map((d) => d.name),
    shape: variableShape(v, cube.grid),
    chunkShape: [...v.chunkShape],
    attributes: { ...v.attributes },
  };
}

function describeDimension(d: Dimension): DimensionInfo {
  const values = [...d.values];
  return {
    name: d.name,
    sourceName: d.sourceName,
    description: d.description,
    unit: d.unit,
    size: values.length,
    values,
    ...(d.name === STD_TIME ? { isoValues: values.map(formatIso) } : {}),
    extent: [Math.min(...values), Math.max(...values)],
    hasRegularIntervals: d.interval !== undefined,
    ...(d.interval !== undefined ? { interval: d.interval, intervalUnit: d.intervalUnit } : {}),
    ...(d.calendar ? { calendar: d.calendar } : {}),
  };
}

/** A readable summary for the terminal. */
export function formatCubeInfo(info: CubeInfo): string {
  const g = info.grid;
  const lines = [
    `${info.source} (${info.format})`,
    `Grid: ${g.width} x ${g.height} cells of ${g.pixelSizeX} x ${g.pixelSizeY}, CRS ${g.crs.epsg !== undefined ? `EPSG:${g.crs.epsg}` : g.crs.wkt ? "from WKT" : "unknown"}`,
    `Extent: x ${g.extent.xmin} .. ${g.extent.xmax}, y ${g.extent.ymin} .. ${g.extent.ymax} (north-up)`,
    "",
    "Variables:",
  ];
  for (const v of info.variables) {
    const dims = [...v.dimensions, "rows", "cols"].map((d, i) => `${d}=${v.shape[i]}`).join(", ");
    lines.push(`  ${v.name} (${dims}) ${v.pixelType}${v.unit ? ` [${v.unit}]` : ""}, nodata ${v.nodata ?? "none"}: ${v.description}`);
  }
  lines.push("", "Dimensions:");
  for (const d of info.dimensions) {
    const shown = d.isoValues ?? d.values.map(String);
    const list = shown.length <= 8 ? shown.join(", ") : `${shown.slice(0, 3).join(", ")}, ... ${shown.slice(-2).join(", ")}`;
    const step = d.hasRegularIntervals ? `every ${d.interval} ${d.intervalUnit ?? d.unit}` : "irregular";
    const source = d.sourceName !== d.name ? ` (from ${d.sourceName})` : "";
    lines.push(
      `  ${d.name}${source}: ${d.size} values, ${step}${d.calendar ? `, calendar ${d.calendar}` : ""}${d.unit && !d.isoValues ? ` [${d.unit}]` : ""}`,
    );
    lines.push(`    ${list}`);
  }
  if (info.skipped.length) {
    lines.push("", "Not read:");
    for (const s of info.skipped) lines.push(`  ${s.name}: ${s.reason}`);
  }
  return lines.join("\n");
}
