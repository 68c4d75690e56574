/**
 * The values at a point through the slices (identify with processAsMultidimensional): one
 * point per slice along the x dimension (time when there is time), the other dimensions held
 * at the slice the map shows; or, for a multiband (trend) raster, every band's value at the
 * slice shown.
 */
import type { IdentifyAnswer, Variable } from "../api/types.js";

export interface Series {
  dimension: string;
  x: number[];
  y: (number | null)[];
}

/** Dimension values chosen by name (StdTime in epoch ms); dimensions not named are at their first value. */
export type SliceValues = Readonly<Record<string, number>>;

const finite = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The slice index of `variable` at the dimension values `values` (the nearest value in each dimension). */
export function indexAt(variable: Variable, values: SliceValues): Record<string, number> {
  const index: Record<string, number> = {};
  for (const d of variable.dimensions) {
    const want = values[d.name];
    if (want === undefined) continue;
    let best = 0;
    d.values.forEach((v, i) => Math.abs(v - want) < Math.abs(d.values[best] - want) && (best = i));
    index[d.name] = best;
  }
  return index;
}

/** The dimension a series runs along: time when there is time, else the first that varies. */
function seriesDimension(variable: Variable): string {
  const dims = variable.dimensions;
  return (dims.find((d) => d.name === "StdTime") ?? dims.find((d) => d.values.length > 1) ?? dims[0])?.name ?? "slice";
}

/** Each entry's dimension values, and whether it is at the shown slice of every dimension but `along`. */
function entries(answer: IdentifyAnswer, variable: Variable, shown: Readonly<Record<string, number>>, along?: string) {
  return (answer.dataSeries ?? []).map((entry) => {
    const at = new Map(entry.multidimensionalDefinition.map((d) => [d.dimensionName, d.values[0]]));
    const held = variable.dimensions.every((d) => d.name === along || !at.has(d.name) || at.get(d.name) === d.values[shown[d.name] ?? 0]);
    return { at, held, value: entry.value };
  });
}

/** The series of band `band` (0 unless a multiband trend raster's band is charted). */
export function seriesOf(answer: IdentifyAnswer, variable: Variable, shown: Readonly<Record<string, number>>, band = 0): Series {
  const dimension = seriesDimension(variable);
  const points = entries(answer, variable, shown, dimension)
    .filter((e) => e.held)
    .map((e, i): [number, number | null] => [e.at.get(dimension) ?? i, finite(e.value[band])]);
  points.sort((a, b) => a[0] - b[0]);
  return { dimension, x: points.map((p) => p[0]), y: points.map((p) => p[1]) };
}

/** Every band's value at the shown slice (a trend raster's Slope, Intercept, …), or undefined off the grid. */
export function bandValuesOf(
  answer: IdentifyAnswer,
  variable: Variable,
  shown: Readonly<Record<string, number>>,
): (number | null)[] | undefined {
  const entry = entries(answer, variable, shown).find((e) => e.held);
  return entry?.value.map(finite);
}
