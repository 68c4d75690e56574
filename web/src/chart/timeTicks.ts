/**
 * Date ticks a reader can use: on round calendar steps (1, 2, 5, 10… years; 1, 2, 3, 6
 * months; 1, 2, 7, 14 days), labelled only as precisely as the step needs ("2003",
 * "2003-04", "2003-04-05"). UTC throughout, and built with setUTCFullYear so that years
 * 0-99 (climatologies are often dated year 0 or 1) stay themselves.
 */

const DAY = 86_400_000;

type Step = { unit: "day" | "month" | "year"; count: number };

/** Rough lengths, only to choose a step. */
const STEPS: readonly Step[] = [
  ...[1, 2, 7, 14].map((count) => ({ unit: "day" as const, count })),
  ...[1, 2, 3, 6].map((count) => ({ unit: "month" as const, count })),
  ...[1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].map((count) => ({ unit: "year" as const, count })),
];
const approxMs = (s: Step) => s.count * (s.unit === "day" ? DAY : s.unit === "month" ? 30.44 * DAY : 365.25 * DAY);

function utc(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  return d.getTime();
}

/** The smallest step that gives at most `maxTicks` ticks over [min, max]. */
export function timeStep(min: number, max: number, maxTicks: number): Step {
  const span = Math.max(max - min, 1);
  return STEPS.find((s) => span / approxMs(s) <= Math.max(1, maxTicks)) ?? STEPS[STEPS.length - 1];
}

/** Tick positions (epoch ms) on round dates within [min, max]. */
export function timeTicks(min: number, max: number, maxTicks: number): number[] {
  const step = timeStep(min, max, maxTicks);
  const start = new Date(min);
  const [y, m] = [start.getUTCFullYear(), start.getUTCMonth()];
  const ticks: number[] = [];
  const add = (at: number) => at >= min && at <= max && ticks.push(at);
  if (step.unit === "year") {
    // From the first multiple of the step at or before min.
    const first = Math.floor(y / step.count) * step.count;
    for (let year = first; utc(year, 0, 1) <= max; year += step.count) add(utc(year, 0, 1));
  } else if (step.unit === "month") {
    const first = Math.floor(m / step.count) * step.count;
    for (let k = first; utc(y, k, 1) <= max; k += step.count) add(utc(y, k, 1));
  } else {
    // Days 1, 1 + step, … of each month (up to the 28th for steps over a day), so ticks
    // fall on the same days every month.
    for (let k = m; utc(y, k, 1) <= max; k++) {
      const last = step.count === 1 ? new Date(utc(y, k + 1, 0)).getUTCDate() : 28;
      for (let day = 1; day <= last; day += step.count) add(utc(y, k, day));
    }
  }
  return ticks;
}

/** A tick's label, as precise as the step between ticks. */
export function timeTickLabel(ms: number, step: Step): string {
  const d = new Date(ms);
  const year = String(d.getUTCFullYear()).padStart(4, "0");
  const month = String(d.getUTCMonth() + 1).padStart(2, "0");
  const day = String(d.getUTCDate()).padStart(2, "0");
  if (step.unit === "year") return year;
  if (step.unit === "month") return `${year}-${month}`;
  return `${year}-${month}-${day}`;
}
