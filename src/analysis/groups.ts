/**
 * Groups of time slices for the anomaly calculation intervals (docs/tasks.md): which slices
 * share a mean, median and standard deviation. Keys use the UTC proleptic Gregorian calendar
 * of StdTime values (epoch milliseconds).
 */

/** The calculation intervals that group slices (EXTERNAL_RASTER takes its reference instead). */
export const GROUP_INTERVALS = ["ALL", "YEARLY", "RECURRING_MONTHLY", "RECURRING_WEEKLY", "RECURRING_DAILY", "HOURLY"] as const;
export type GroupInterval = (typeof GROUP_INTERVALS)[number];

const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

/**
 * The group of each slice, as dense indices 0..G-1 numbered in increasing order of the
 * interval's key (year, month, week of year, calendar day, or clock hour).
 * @example
 * groupKeys([Date.UTC(1990, 0, 15), Date.UTC(1990, 1, 15), Date.UTC(1991, 0, 15)], "RECURRING_MONTHLY"); // Int32Array [0, 1, 0]
 */
export function groupKeys(times: readonly number[], interval: GroupInterval): Int32Array {
  const raw = new Float64Array(times.length);
  for (let i = 0; i < times.length; i++) raw[i] = rawKey(times[i], interval);
  const distinct = [...new Set(raw)].sort((a, b) => a - b);
  const index = new Map(distinct.map((k, i) => [k, i]));
  const out = new Int32Array(times.length);
  for (let i = 0; i < raw.length; i++) out[i] = index.get(raw[i])!;
  return out;
}

/** The interval's key of one instant: year, month 1..12, week 1..52, month·100 + day, or hour since the epoch. */
function rawKey(epochMs: number, interval: GroupInterval): number {
  if (!Number.isFinite(epochMs)) throw new RangeError(`time value ${epochMs} is not a finite number of milliseconds`);
  // Date truncates toward zero; flooring keeps instants just before 1970 in 1969.
  const t = Math.floor(epochMs);
  switch (interval) {
    case "ALL":
      return 0;
    case "YEARLY":
      return new Date(t).getUTCFullYear();
    case "RECURRING_MONTHLY":
      return new Date(t).getUTCMonth() + 1;
    case "RECURRING_WEEKLY":
      return Math.min(52, Math.floor((dayOfYear(t) - 1) / 7) + 1);
    case "RECURRING_DAILY": {
      // The calendar day: Feb 29 is its own group, March 1 one group in leap and common years.
      const d = new Date(t);
      return (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
    }
    case "HOURLY":
      // UTC has no leap seconds in epoch time: the clock hour of the day is the hour count.
      return Math.floor(t / MS_PER_HOUR);
  }
}

/** Day of the year (1..366) of an instant, UTC. */
export function dayOfYear(t: number): number {
  const d = new Date(t);
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 to 1900..1999.
  const start = new Date(0);
  start.setUTCFullYear(d.getUTCFullYear(), 0, 1);
  return Math.floor((t - start.getTime()) / MS_PER_DAY) + 1;
}
