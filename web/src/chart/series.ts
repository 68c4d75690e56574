/**
 * The values at a point through the slices (identify with processAsMultidimensional): one
 * point per slice along the x dimension (time when there is time), the other dimensions held
 * at the slice the map shows.
 */
import type { IdentifyAnswer, Variable } from "../api/types.js";

export interface Series {
  dimension: string;
  x: number[];
  y: (number | null)[];
}

/** The series of band `band` (0 unless a multiband trend raster's band is charted). */
export function seriesOf(answer: IdentifyAnswer, variable: Variable, shown: Readonly<Record<string, number>>, band = 0): Series {
  const dims = variable.dimensions;
  const along = dims.find((d) => d.name === "StdTime") ?? dims.find((d) => d.values.length > 1) ?? dims[0];
  const dimension = along?.name ?? "slice";
  const points: [number, number | null][] = [];
  (answer.dataSeries ?? []).forEach((entry, i) => {
    const at = new Map(entry.multidimensionalDefinition.map((d) => [d.dimensionName, d.values[0]]));
    // Keep the slices at the shown value of every other dimension.
    const elsewhere = dims.some((d) => d !== along && at.has(d.name) && at.get(d.name) !== d.values[shown[d.name] ?? 0]);
    if (elsewhere) return;
    const value = entry.value[band];
    points.push([at.get(dimension) ?? i, typeof value === "number" && Number.isFinite(value) ? value : null]);
  });
  points.sort((a, b) => a[0] - b[0]);
  return { dimension, x: points.map((p) => p[0]), y: points.map((p) => p[1]) };
}
