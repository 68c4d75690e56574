/**
 * Dimension helpers: detect regular intervals (ArcGIS `hasRegularIntervals`, `interval`,
 * `intervalUnit`). Time intervals are calendar-aware: monthly data is regular in Months
 * even though months differ in length.
 */
import { type Dimension, STD_TIME } from "./types.js";

export interface Interval {
  readonly interval?: number;
  readonly intervalUnit?: string;
}

const TIME_UNITS: readonly [string, number][] = [
  ["Weeks", 7 * 86_400_000],
  ["Days", 86_400_000],
  ["Hours", 3_600_000],
  ["Minutes", 60_000],
  ["Seconds", 1_000],
  ["Milliseconds", 1],
];

/**
 * The regular interval of a dimension's values, if there is one.
 * @example
 * dimensionInterval([0, 10, 20], false) // { interval: 10 }
 */
export function dimensionInterval(values: readonly number[], isTime: boolean): Interval {
  if (values.length < 2) return {};
  return isTime ? timeInterval(values) : numericInterval(values);
}

function numericInterval(values: readonly number[]): Interval {
  const step = values[1] - values[0];
  const tol = 1e-9 * Math.max(Math.abs(step), ...values.map(Math.abs));
  for (let i = 2; i < values.length; i++) if (Math.abs(values[i] - values[i - 1] - step) > tol) return {};
  return step === 0 ? {} : { interval: Math.abs(step) };
}

function timeInterval(values: readonly number[]): Interval {
  const step = values[1] - values[0];
  if (step > 0 && values.every((v, i) => i === 0 || v - values[i - 1] === step)) {
    const [unit, ms] = TIME_UNITS.find(([, ms]) => step % ms === 0)!;
    return { interval: step / ms, intervalUnit: unit };
  }
  // Calendar months (or years): the same number of months between consecutive values,
  // as in mid-month monthly means whose day and hour drift with month length.
  const months = values.map((v) => {
    const d = new Date(v);
    return d.getUTCFullYear() * 12 + d.getUTCMonth();
  });
  const k = months[1] - months[0];
  if (k <= 0 || !months.every((m, i) => i === 0 || m - months[i - 1] === k)) return {};
  return k % 12 === 0 ? { interval: k / 12, intervalUnit: "Years" } : { interval: k, intervalUnit: "Months" };
}

/** The dimension restricted to the given indices (in order), its interval recomputed. */
export function subsetDimension(d: Dimension, indices: readonly number[]): Dimension {
  const values = indices.map((i) => d.values[i]);
  const { interval: _interval, intervalUnit: _unit, ...rest } = d;
  return { ...rest, values, ...dimensionInterval(values, d.name === STD_TIME) };
}
