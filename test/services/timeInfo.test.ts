/**
 * The root's timeInfo on hand-made files whose time axes have a known step: mid-month
 * monthly means (days 15, 45, 74, 105 after 2000-01-01: 31, 29, 31 days apart, yet one
 * month each), daily, 6-hourly, yearly (2000 is a leap year), and an irregular axis (no
 * default step); a cube without time has no timeInfo. The step is what the Maps SDK's
 * TimeInfo reads as its interval (defaultTimeInterval + defaultTimeIntervalUnits), and
 * multidimensionalInfo's interval in the units the SDK counts slices by (no weeks).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openCube } from "../../src/io/open.js";
import type { Cube } from "../../src/cube/types.js";
import { multidimensionalInfo } from "../../src/services/info.js";
import { serviceTimeInfo } from "../../src/services/timeInfo.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-time-info-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `look` at a one-cell cube at `times` in `units`, or without a time axis. */
async function withCube<T>(times: number[] | undefined, units: string, look: (cube: Cube) => T): Promise<T> {
  const path = join(dir, `t${Math.random().toString(36).slice(2)}.nc`);
  const dims = [...(times ? [{ name: "time", size: times.length, record: true }] : []), { name: "lat", size: 1 }, { name: "lon", size: 1 }];
  await writeNetcdf3(path, {
    dims,
    vars: [
      { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [0] },
      { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [0] },
      ...(times ? [{ name: "time", dims: ["time"], type: "double" as const, attrs: { units }, data: (r: number) => [times[r]] }] : []),
      { name: "v", dims: dims.map((d) => d.name), type: "float", data: times ? () => [1] : [1] },
    ],
  });
  const cube = await openCube(path);
  try {
    return look(cube);
  } finally {
    await cube.close();
  }
}

const timeInfoOf = (times: number[] | undefined, units = "days since 2000-01-01") => withCube(times, units, serviceTimeInfo);

/** multidimensionalInfo's interval and intervalUnit of the time dimension. */
const mdStep = (times: number[], units = "days since 2000-01-01") =>
  withCube(times, units, (cube) => {
    const info = multidimensionalInfo(cube, {}) as { multidimensionalInfo: { variables: { dimensions: Record<string, unknown>[] }[] } };
    const [d] = info.multidimensionalInfo.variables[0].dimensions;
    return [d.hasRegularIntervals, d.interval, d.intervalUnit];
  });

const ms = (iso: string) => Date.parse(iso);

describe("timeInfo", () => {
  it("monthly means a month apart: 1 esriTimeUnitsMonths, the extent their first and last", async () => {
    const info = await timeInfoOf([15, 45, 74, 105]);
    assert.deepEqual(info, {
      startTimeField: "StdTime",
      endTimeField: "StdTime",
      timeExtent: [ms("2000-01-16T00:00:00Z"), ms("2000-04-15T00:00:00Z")],
      timeReference: null,
      defaultTimeInterval: 1,
      defaultTimeIntervalUnits: "esriTimeUnitsMonths",
      defaultTimeWindow: 0,
      timeRelation: "esriTimeRelationOverlaps",
      hasLiveData: false,
    });
  });

  it("daily, 6-hourly and yearly steps in ArcGIS's units", async () => {
    const step = async (times: number[], units?: string) => {
      const info = await timeInfoOf(times, units);
      return [info?.defaultTimeInterval, info?.defaultTimeIntervalUnits];
    };
    assert.deepEqual(await step([0, 1, 2, 3]), [1, "esriTimeUnitsDays"]);
    assert.deepEqual(await step([0, 6, 12], "hours since 2000-01-01"), [6, "esriTimeUnitsHours"]);
    // 2000 has 366 days, 2001 has 365: the same calendar step of one year.
    assert.deepEqual(await step([0, 366, 731]), [1, "esriTimeUnitsYears"]);
    assert.deepEqual(await step([0, 14, 28]), [2, "esriTimeUnitsWeeks"]);
  });

  it("an irregular axis has its extent but no default step; no time axis, no timeInfo", async () => {
    const info = await timeInfoOf([0, 1, 5]);
    assert.deepEqual(info?.timeExtent, [ms("2000-01-01T00:00:00Z"), ms("2000-01-06T00:00:00Z")]);
    assert.equal(info?.defaultTimeInterval, undefined);
    assert.equal(info?.defaultTimeIntervalUnits, undefined);
    assert.equal(await timeInfoOf(undefined), null);
  });

  it("multidimensionalInfo writes the step in units the Maps SDK counts slices by: weeks as days", async () => {
    assert.deepEqual(await mdStep([15, 45, 74, 105]), [true, 1, "Months"]);
    assert.deepEqual(await mdStep([0, 14, 28]), [true, 14, "Days"]);
    assert.deepEqual(await mdStep([0, 6, 12], "hours since 2000-01-01"), [true, 6, "Hours"]);
    assert.deepEqual(await mdStep([0, 1, 5]), [false, undefined, undefined]);
  });
});
