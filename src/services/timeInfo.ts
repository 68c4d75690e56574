/**
 * The root's `timeInfo` (SPEC §11), what the Maps SDK's TimeInfo reads for a TimeSlider: the
 * time field (StdTime), the full time extent, and the default step as ArcGIS writes it
 * (`defaultTimeInterval` with `defaultTimeIntervalUnits` such as esriTimeUnitsMonths), taken
 * from the time dimension's own regular step (cube/dimension.ts: calendar months and years
 * count as regular). An irregular time axis has no default step. Live data, a time zone and
 * a time window are not things a stored dataset has. `dimensionStep` is how
 * multidimensionalInfo writes a dimension's step.
 */
import type { Cube, Dimension } from "../cube/types.js";
import { STD_TIME } from "../cube/types.js";

/** cube/dimension.ts's interval units → ArcGIS's esriTimeUnits names. */
const ESRI_TIME_UNITS: Readonly<Record<string, string>> = {
  Milliseconds: "esriTimeUnitsMilliseconds",
  Seconds: "esriTimeUnitsSeconds",
  Minutes: "esriTimeUnitsMinutes",
  Hours: "esriTimeUnitsHours",
  Days: "esriTimeUnitsDays",
  Weeks: "esriTimeUnitsWeeks",
  Months: "esriTimeUnitsMonths",
  Years: "esriTimeUnitsYears",
};

/**
 * The timeInfo of a cube, or null when no variable has a time dimension. The extent covers
 * every variable's times; the step is the first time-varying variable's (the default one a
 * client draws).
 * @example
 * serviceTimeInfo(monthlyCube);
 * // { startTimeField: "StdTime", endTimeField: "StdTime", timeExtent: [t0, t1], timeReference: null,
 * //   defaultTimeInterval: 1, defaultTimeIntervalUnits: "esriTimeUnitsMonths", defaultTimeWindow: 0, hasLiveData: false, ... }
 */
export function serviceTimeInfo(cube: Cube): Record<string, unknown> | null {
  const axes = cube.variables.flatMap((v) => v.dimensions.filter((d) => d.name === STD_TIME));
  if (axes.length === 0) return null;
  let start = Infinity;
  let end = -Infinity;
  for (const d of axes) {
    for (const t of d.values) {
      if (t < start) start = t;
      if (t > end) end = t;
    }
  }
  return {
    startTimeField: STD_TIME,
    endTimeField: STD_TIME,
    timeExtent: [start, end],
    timeReference: null,
    ...defaultStep(axes[0]),
    // Each slice is an instant (start = end): a slider shows instants, not windows.
    defaultTimeWindow: 0,
    timeRelation: "esriTimeRelationOverlaps",
    hasLiveData: false,
  };
}

function defaultStep(d: Dimension): Record<string, unknown> {
  const units = d.intervalUnit ? ESRI_TIME_UNITS[d.intervalUnit] : undefined;
  if (d.interval === undefined || units === undefined) return {};
  return { defaultTimeInterval: d.interval, defaultTimeIntervalUnits: units };
}

/**
 * A dimension's regular step as multidimensionalInfo writes it (`interval`, `intervalUnit`),
 * or nothing when irregular. Time steps are in the units the Maps SDK counts slices by
 * (seconds, minutes, hours, days, months, years): weeks are written as days, milliseconds as
 * seconds. Other dimensions' steps are in their own unit.
 * @example
 * dimensionStep({ name: "StdTime", interval: 2, intervalUnit: "Weeks", ... }); // { interval: 14, intervalUnit: "Days" }
 */
export function dimensionStep(d: Dimension): { interval?: number; intervalUnit?: string } {
  if (d.interval === undefined) return {};
  if (d.name !== STD_TIME) return { interval: d.interval, intervalUnit: d.intervalUnit ?? d.unit };
  if (d.intervalUnit === "Weeks") return { interval: d.interval * 7, intervalUnit: "Days" };
  if (d.intervalUnit === "Milliseconds") return { interval: d.interval / 1000, intervalUnit: "Seconds" };
  return { interval: d.interval, intervalUnit: d.intervalUnit ?? d.unit };
}
