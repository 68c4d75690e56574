/**
 * `months since` / `years since` time axes (docs/formats.md): whole values are calendar
 * months (years) from the reference date in every calendar, the day clamped to the target
 * month's end, the time of day kept; fractions are refused outside 360_day. Expected dates
 * are worked by hand below, or are CDO 2.1.1's `showtimestamp` output saved by
 * scripts/goldens/make_cdo_time_goldens.py (test/golden/time/cdo_calendar_months.json).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { InvalidInputError, UnsupportedDataError } from "../../src/cube/errors.js";
import { decodeCfTimes, encodeCfTimes, formatIso, toCalendarComponents } from "../../src/cube/time.js";

const iso = (ms: number) => formatIso(ms);
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** A decoded instant as the date and time of its calendar, the way CDO prints it. */
function calendarStamp(ms: number, calendar: string): string {
  const c = toCalendarComponents(ms, calendar);
  return `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}`;
}

const decodeIso = (values: number[], units: string, calendar?: string) => decodeCfTimes(values, units, calendar).map(iso);

describe("whole months and years, worked by hand", () => {
  test("hgt.nc's axis: months since 1958-1-1 in the default calendar", () => {
    assert.deepEqual(decodeIso([0, 1, 13, 229], "months since 1958-1-1 00:00:00"), [
      "1958-01-01T00:00:00Z",
      "1958-02-01T00:00:00Z",
      "1959-02-01T00:00:00Z",
      "1977-02-01T00:00:00Z", // 229 = 19 years and 1 month
    ]);
  });

  for (const calendar of ["standard", "gregorian", "proleptic_gregorian"]) {
    test(`${calendar}: day 31 clamps to the month's end, negatives count back, the time of day stays`, () => {
      assert.deepEqual(decodeIso([-13, -1, 0, 1, 2, 3, 13, 25], "months since 2000-01-31 12:30:00", calendar), [
        "1998-12-31T12:30:00Z",
        "1999-12-31T12:30:00Z",
        "2000-01-31T12:30:00Z",
        "2000-02-29T12:30:00Z", // 2000 is a leap year
        "2000-03-31T12:30:00Z", // each value from the reference, not from the previous one
        "2000-04-30T12:30:00Z",
        "2001-02-28T12:30:00Z",
        "2002-02-28T12:30:00Z",
      ]);
      assert.deepEqual(decodeIso([-4, -1, 1, 4], "years since 2000-02-29 06:00:00", calendar), [
        "1996-02-29T06:00:00Z",
        "1999-02-28T06:00:00Z",
        "2001-02-28T06:00:00Z",
        "2004-02-29T06:00:00Z",
      ]);
    });
  }

  test("julian: Julian months (Feb 29 every fourth year), 13 days behind the Gregorian date in 1900..2099", () => {
    // Julian 2000-01-31 = Gregorian 2000-02-13; Julian 2000-02-29 = Gregorian 2000-03-13.
    assert.deepEqual(decodeIso([0, 1, 2, 13, -13], "months since 2000-01-31 12:30:00", "julian"), [
      "2000-02-13T12:30:00Z",
      "2000-03-13T12:30:00Z",
      "2000-04-13T12:30:00Z", // Julian 2000-03-31
      "2001-03-13T12:30:00Z", // Julian 2001-02-28
      "1999-01-13T12:30:00Z", // Julian 1998-12-31
    ]);
    // 1900 is a Julian leap year but not a Gregorian one: Julian 1900-02-29 is Gregorian 1900-03-13.
    assert.deepEqual(decodeIso([1], "months since 1900-01-29", "julian"), ["1900-03-13T00:00:00Z"]);
  });

  test("noleap / 365_day: February always has 28 days", () => {
    for (const calendar of ["noleap", "365_day"]) {
      const got = decodeCfTimes([1, 13, -11], "months since 2000-01-31 12:30:00", calendar);
      assert.deepEqual(
        got.map((ms) => calendarStamp(ms, calendar)),
        ["2000-02-28T12:30:00", "2001-02-28T12:30:00", "1999-02-28T12:30:00"],
      );
      assert.equal(iso(got[0]), "2000-02-28T12:30:00Z"); // a noleap date that exists in Gregorian maps to itself
    }
  });

  test("all_leap / 366_day: February always has 29 days", () => {
    for (const calendar of ["all_leap", "366_day"]) {
      const got = decodeCfTimes([1, 13, 12], "months since 2000-01-31 12:30:00", calendar);
      assert.deepEqual(
        got.map((ms) => calendarStamp(ms, calendar)),
        ["2000-02-29T12:30:00", "2001-02-29T12:30:00", "2001-01-31T12:30:00"],
      );
      // Model 2001-02-29 12:30 lies 36.5 model hours after Feb 28 00:00; the two model days
      // Feb 28..29 are squeezed into real Feb 28, so it is 18.25 h into it.
      assert.equal(iso(got[1]), "2001-02-28T18:15:00Z");
    }
  });

  test("360_day: months are 30 days, fractions included (unchanged)", () => {
    const got = decodeCfTimes([1, 1.5, -1, 12], "months since 2000-01-30 06:00", "360_day");
    assert.deepEqual(
      got.map((ms) => calendarStamp(ms, "360_day")),
      ["2000-02-30T06:00:00", "2000-03-15T06:00:00", "1999-12-30T06:00:00", "2001-01-30T06:00:00"],
    );
    assert.deepEqual(
      decodeCfTimes([2], "years since 2000-01-01", "360_day").map((ms) => calendarStamp(ms, "360_day")),
      ["2002-01-01T00:00:00"],
    );
  });

  test("a UTC offset is applied after moving the date as written", () => {
    // Local 2000-02-29 23:00 at UTC-6 is 2000-03-01 05:00 UTC.
    assert.deepEqual(decodeIso([1], "months since 2000-01-31 23:00:00 -6"), ["2000-03-01T05:00:00Z"]);
    assert.deepEqual(decodeIso([1], "months since 2000-01-31T00:30:00+01:00"), ["2000-02-28T23:30:00Z"]);
  });

  test("a year-0 reference (Ferret) is proleptic Gregorian with astronomical years", () => {
    assert.deepEqual(decodeIso([13, -1], "months since 0000-01-01"), ["0001-02-01T00:00:00Z", "-000001-12-01T00:00:00Z"]);
  });

  test("NaN and infinite values stay NaN", () => {
    assert.deepEqual(decodeCfTimes([NaN, Infinity, 0], "months since 2000-01-01"), [NaN, NaN, Date.UTC(2000, 0, 1)]);
  });
});

describe("what is refused", () => {
  for (const calendar of ["standard", "proleptic_gregorian", "julian", "noleap", "all_leap"]) {
    test(`${calendar}: a fractional month or year, with the reason`, () => {
      for (const units of ["months since 2000-01-01", "years since 2000-01-01"]) {
        assert.throws(
          () => decodeCfTimes([0, 1, 2.5], units, calendar),
          (e: unknown) =>
            e instanceof UnsupportedDataError &&
            e.message.includes(units) &&
            e.message.includes("2.5 is not a whole number") &&
            /365\.242198781 days/.test(e.message) &&
            /360_day/.test(e.message),
        );
      }
    });
  }

  test("a month that lands in the days the Gregorian reform skipped", () => {
    assert.throws(
      () => decodeCfTimes([1], "months since 1582-09-10"),
      (e: unknown) => e instanceof UnsupportedDataError && /1582-10-10/.test(e.message) && /reform/.test(e.message),
    );
    // The same offset in the proleptic calendar is an ordinary date.
    assert.deepEqual(decodeIso([1], "months since 1582-09-10", "proleptic_gregorian"), ["1582-10-10T00:00:00Z"]);
  });
});

describe("encoding is the inverse", () => {
  test("whole months back from their instants; an instant between them is an error", () => {
    for (const [units, calendar] of [
      ["months since 2000-01-31 12:30:00", "standard"],
      ["years since 2000-02-29 06:00:00", "julian"],
      ["months since 2000-01-31 12:30:00", "noleap"],
      ["months since 2000-01-31 23:00:00 -6", "all_leap"],
    ] as const) {
      const values = [-25, -13, -1, 0, 1, 2, 13, 600];
      assert.deepEqual(encodeCfTimes(decodeCfTimes(values, units, calendar), units, calendar), values, `${calendar} ${units}`);
    }
    assert.throws(
      () => encodeCfTimes([Date.UTC(2000, 1, 15)], "months since 2000-01-31", "standard"),
      (e: unknown) => e instanceof InvalidInputError && /2000-02-15T00:00:00Z/.test(e.message) && /whole number of months/.test(e.message),
    );
    assert.throws(() => encodeCfTimes([Date.UTC(2000, 6, 1)], "years since 2000-01-01"), InvalidInputError);
  });
});

interface CdoGolden {
  cdo: string;
  cases: { calendar: string; units: string; values: number[]; timestamps: string[] }[];
}

// Made by: python3 scripts/goldens/make_cdo_time_goldens.py (CDO's showtimestamp)
const golden = JSON.parse(readFileSync(new URL("../golden/time/cdo_calendar_months.json", import.meta.url), "utf8")) as CdoGolden;

describe(`as ${golden.cdo.split(" (")[0]} reads them`, () => {
  for (const c of golden.cases) {
    test(`${c.calendar}: "${c.units}" ${JSON.stringify(c.values)}`, () => {
      const got = decodeCfTimes(c.values, c.units, c.calendar).map((ms) => calendarStamp(ms, c.calendar));
      assert.deepEqual(got, c.timestamps);
    });
  }
});
