/**
 * Dimension definitions (SPEC §6): which slices of each dimension a Subset keeps.
 * Each constrained dimension gets a set of kept indices; a slice is kept when every
 * constrained dimension's value is kept (dimensions are independent axes of the cube).
 */
import { InvalidInputError } from "../cube/errors.js";
import { type TimeStepUnit, anchoredStep, formatIso, parseIsoTime, parseMonthName } from "../cube/time.js";
import { type Dimension, STD_TIME } from "../cube/types.js";

export type DimensionDefinition = "ALL" | "BY_VALUE" | "BY_RANGES" | "BY_ITERATION";
export const DIMENSION_DEFINITIONS: readonly DimensionDefinition[] = ["ALL", "BY_VALUE", "BY_RANGES", "BY_ITERATION"];
export const ITERATION_UNITS: readonly TimeStepUnit[] = ["HOURS", "DAYS", "WEEKS", "MONTHS", "YEARS"];

export interface IterationSpec {
  readonly dimension: string;
  readonly start: unknown;
  readonly end: unknown;
  readonly step: number;
  readonly unit?: TimeStepUnit;
}

export type DefinitionInput =
  | { readonly kind: "ALL" }
  | { readonly kind: "BY_VALUE"; readonly values: unknown }
  | { readonly kind: "BY_RANGES"; readonly ranges: unknown }
  | { readonly kind: "BY_ITERATION"; readonly iteration: IterationSpec };

/** Kept indices per constrained dimension name; dimensions not named are kept whole. */
export type DimensionSelection = ReadonlyMap<string, readonly number[]>;

/**
 * @example
 * selectSlices(dims, { kind: "BY_RANGES", ranges: [{ dimension: "StdTime", minValue: "1990-01-01", maxValue: "1990-12-31" }] })
 */
export function selectSlices(dims: readonly Dimension[], def: DefinitionInput): DimensionSelection {
  const byName = new Map(dims.map((d) => [d.name.toLowerCase(), d]));
  const out = new Map<string, number[]>();
  if (def.kind === "ALL") return out;
  const dimensionOf = (name: unknown, parameter: string): Dimension => {
    const d = typeof name === "string" ? byName.get(name.toLowerCase()) : undefined;
    if (!d) {
      const known = dims.map((x) => x.name).join(", ") || "none";
      throw new InvalidInputError(
        `${parameter} names dimension "${String(name)}", which the selected variables do not have (they have: ${known})`,
        {
          parameter,
        },
      );
    }
    return d;
  };
  const keep = (d: Dimension, test: (value: number) => boolean) => {
    const kept = new Set(out.get(d.name) ?? []);
    d.values.forEach((v, i) => test(v) && kept.add(i));
    out.set(
      d.name,
      [...kept].sort((a, b) => a - b),
    );
  };

  if (def.kind === "BY_VALUE") {
    const parameter = "dimensionValues";
    for (const entry of listOf(def.values, parameter)) {
      const d = dimensionOf(entry.dimension, parameter);
      const value = entry.value ?? entry.values;
      for (const v of Array.isArray(value) ? value : [value]) {
        const month = d.name === STD_TIME && typeof v === "string" ? parseMonthName(v) : undefined;
        if (month !== undefined) keep(d, (x) => new Date(x).getUTCMonth() + 1 === month);
        else {
          const target = dimensionValue(d, v, parameter);
          // Times match to the millisecond (a relative tolerance would be a minute in year 0).
          keep(d, (x) => (d.name === STD_TIME ? x === target : sameValue(x, target)));
        }
      }
    }
  } else if (def.kind === "BY_RANGES") {
    const parameter = "dimensionRanges";
    for (const entry of listOf(def.ranges, parameter)) {
      const d = dimensionOf(entry.dimension, parameter);
      const min = dimensionValue(d, entry.minValue, parameter);
      const max = dimensionValue(d, entry.maxValue, parameter);
      if (min > max) throw new InvalidInputError(`${parameter}: minValue is after maxValue for ${d.name}`, { parameter });
      keep(d, (x) => x >= min && x <= max);
    }
  } else {
    const it = def.iteration;
    const d = dimensionOf(it.dimension, "dimension");
    const start = dimensionValue(d, it.start, "startOfFirstIteration");
    const end = dimensionValue(d, it.end, "endOfFirstIteration");
    if (start > end)
      throw new InvalidInputError("endOfFirstIteration is before startOfFirstIteration", { parameter: "endOfFirstIteration" });
    if (!(it.step > 0)) throw new InvalidInputError("iterationStep must be a positive number", { parameter: "iterationStep" });
    const isTime = d.name === STD_TIME;
    if (isTime && !it.unit)
      throw new InvalidInputError(`iterationUnit is required when iterating ${STD_TIME}`, { parameter: "iterationUnit" });
    if (isTime && (it.unit === "MONTHS" || it.unit === "YEARS") && !Number.isInteger(it.step)) {
      throw new InvalidInputError(`iterationStep must be a whole number of ${it.unit.toLowerCase()}`, { parameter: "iterationStep" });
    }
    const first = Math.min(...d.values);
    const last = Math.max(...d.values);
    const windows: [number, number][] = [];
    // Numeric steps can jump straight to the first window that reaches the data.
    const k0 = isTime ? 0 : Math.max(0, Math.floor((first - end) / it.step));
    for (let k = k0; ; k++) {
      // Anchored at the first window: calendar steps clamp to month ends without drifting.
      const w0 = isTime ? anchoredStep(start, k, it.step, it.unit!) : start + k * it.step;
      const w1 = isTime ? anchoredStep(end, k, it.step, it.unit!) : end + k * it.step;
      if (w0 > last) break;
      if (w1 >= first) windows.push([w0, w1]);
      if (windows.length > 1_000_000)
        throw new InvalidInputError("the iteration makes more than a million windows", { parameter: "iterationStep" });
    }
    keep(d, (x) => windows.some(([a, b]) => x >= a && x <= b));
  }
  for (const [name, kept] of out) {
    if (kept.length === 0) {
      const d = dims.find((x) => x.name === name)!;
      throw new InvalidInputError(
        `the selection keeps no slice of ${name} (its values run from ${show(d, Math.min(...d.values))} to ${show(d, Math.max(...d.values))})`,
        {
          parameter: def.kind === "BY_VALUE" ? "dimensionValues" : def.kind === "BY_RANGES" ? "dimensionRanges" : "dimension",
        },
      );
    }
  }
  return out;
}

function listOf(value: unknown, parameter: string): Record<string, unknown>[] {
  const list = Array.isArray(value) ? value : value && typeof value === "object" ? [value] : undefined;
  if (!list || list.length === 0 || !list.every((e) => e && typeof e === "object" && !Array.isArray(e))) {
    throw new InvalidInputError(`${parameter} must be a list of objects such as {"dimension": "StdTime", ...}`, { parameter });
  }
  return list as Record<string, unknown>[];
}

/** A value in the dimension's own terms: epoch ms for StdTime (ISO 8601 or epoch ms), else a number. */
function dimensionValue(d: Dimension, v: unknown, parameter: string): number {
  if (d.name === STD_TIME) {
    const ms = typeof v === "number" ? v : typeof v === "string" ? parseIsoTime(v) : undefined;
    if (ms === undefined || !Number.isFinite(ms)) {
      throw new InvalidInputError(`${parameter}: "${String(v)}" is not a time (use ISO 8601 such as 2000-01-31 or epoch milliseconds)`, {
        parameter,
      });
    }
    return ms;
  }
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  if (!Number.isFinite(n))
    throw new InvalidInputError(`${parameter}: "${String(v)}" is not a number for dimension ${d.name}`, { parameter });
  return n;
}

function sameValue(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

function show(d: Dimension, v: number): string {
  return d.name === STD_TIME ? formatIso(v) : String(v);
}
