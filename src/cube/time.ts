/**
 * CF time: decoding `"<unit> since <epoch>"` coordinates in every CF calendar to StdTime
 * (epoch milliseconds UTC on the proleptic Gregorian calendar), encoding back, calendar
 * stepping by hours .. years, and ISO 8601 text.
 *
 * ```ts
 * decodeCfTimes([0, 24], "hours since 2000-01-01", "noleap"); // [946684800000, 946771200000]
 * formatIso(addCalendar(Date.UTC(2024, 0, 31), 1, "MONTHS"));  // "2024-02-29T00:00:00Z"
 * ```
 *
 * Calendars (CF 1.11 §4.4.1, as cftime implements them):
 * - `standard` / `gregorian`: the mixed calendar: Julian up to 1582-10-04, Gregorian from
 *   the next day, 1582-10-15 (the ten days between do not exist and are refused as an
 *   epoch). Years are numbered historically, as cftime does (no year 0: year -1 is 1 BC).
 * - `proleptic_gregorian`: Gregorian throughout, astronomical years (year 0 = 1 BC,
 *   ISO 8601's 0000). StdTime itself is this calendar.
 * - `julian`: Julian throughout, historical year numbering (no year 0, as cftime).
 * - Year 0 as the reference year in `standard`/`gregorian` (Ferret climatologies write
 *   `"hour since 0000-01-01 00:00:00"` with the default calendar, which cftime refuses):
 *   Strata decodes such a time axis as proleptic Gregorian with astronomical year
 *   numbering, so 0000-01-01 is -62167219200000 ms. Year 0 in `julian` is refused.
 * - `noleap`/`365_day`, `all_leap`/`366_day`, `360_day`: model calendars with astronomical
 *   years. To place a model date on the real time line, a date that exists in the proleptic
 *   Gregorian calendar maps to the same date and time of day. The days a Gregorian year
 *   lacks (Feb 29 of a common year in all_leap, Feb 29 and 30 in 360_day) are squeezed evenly
 *   into the last Gregorian day of February: if February has L Gregorian days and the model
 *   month L + k, the model instants from Feb L 00:00 to Mar 1 00:00 (k + 1 model days) map
 *   linearly onto Feb L 00:00 .. Mar 1 00:00 (one real day). The mapping is strictly
 *   increasing and one-to-one; Gregorian dates the model lacks (Feb 29 in noleap, the 31st
 *   in 360_day) are simply never hit, and encoding such an instant is an error.
 *
 * Units: microseconds, milliseconds, seconds, minutes, hours, days and weeks with the udunits
 * spellings (hour, hours, hr, h, d, min, sec, s, msec, ms, us ...). `months since` and
 * `years since` are ambiguous in CF: udunits defines a year as 365.242198781 days and a month
 * as a twelfth of it (about 30.436850 days), which lands mid-day on no calendar date and is
 * almost never what a producer meant (NCEP's hgt.nc counts `months since 1958-1-1` in whole
 * months). Strata reads them as CDO does:
 * - a whole number n of months (years: 12·n months) is the reference date moved n calendar
 *   months in the file's calendar, keeping its day and time of day; a day the target month
 *   lacks is clamped to the month's last day (Jan 31 + 1 month = Feb 28, or Feb 29 in a leap
 *   year of the calendar), as SubsetMultidimensionalRaster's calendar steps do. CDO rolls
 *   such a day over into the next month instead (Jan 31 + 1 month = Mar 3 in 2001); only
 *   reference days 29..31 can tell the two apart. Negative n counts back the same way;
 * - in `360_day` a month is exactly 30 days and a year 360, so fractions are exact there too
 *   (cftime reads months there as well);
 * - a fractional value in any other calendar is refused with an UnsupportedDataError.
 * `common_years since` (exactly 365 days) is accepted in
 * `noleap`/`365_day`, as cftime does. Reference dates may carry a time, a fraction of a second
 * and a UTC offset (`Z`, `UTC`, `+05:30`, `-0600`, or the udunits ` -6`); the offset is
 * subtracted from the reference date, as cftime and udunits do (for calendar months, after
 * moving the date as written).
 *
 * Precision: values are split into an integer count of units (exact in ms) and a fraction,
 * so that e.g. 1096.485 hours decodes to the exact millisecond; results are rounded to the
 * nearest millisecond at the end.
 */

import { InvalidInputError, UnsupportedDataError } from "./errors.js";

/** Units of calendar stepping (SubsetMultidimensionalRaster iterationUnit). */
export type TimeStepUnit = "HOURS" | "DAYS" | "WEEKS" | "MONTHS" | "YEARS";

/** The CF calendar names Strata reads (case-insensitive; absent = `standard`). */
export const CALENDARS: readonly string[] = Object.freeze([
  "standard",
  "gregorian",
  "proleptic_gregorian",
  "julian",
  "noleap",
  "365_day",
  "all_leap",
  "366_day",
  "360_day",
]);

/** The unit of a CF time axis, canonical spelling. */
export type CfTimeUnit =
  "microseconds" | "milliseconds" | "seconds" | "minutes" | "hours" | "days" | "weeks" | "months" | "years" | "common_years";

/** A reference date as written in the units string (year as written: may be 0 or negative). */
export interface CfEpoch {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  /** Seconds, with the fraction. */
  readonly second: number;
}

/** Parsed `"<unit> since <epoch>"`. */
export interface TimeUnits {
  readonly unit: CfTimeUnit;
  readonly epoch: CfEpoch;
  /** UTC offset of the epoch in minutes east of Greenwich (`+05:30` = 330, ` -6` = -360). */
  readonly offsetMinutes: number;
}

/** A date and time of day in some calendar. */
export interface CalendarComponents {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
}

export const MONTH_NAMES: readonly string[] = Object.freeze([
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
]);

const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;

/* ------------------------------------------------------------------------------------ */
/* Integer day arithmetic (days-from-civil, after H. Hinnant), astronomical years.       */
/* Day 0 is 1970-01-01 (proleptic Gregorian) for the real calendars.                     */
/* ------------------------------------------------------------------------------------ */

const floorDiv = (a: number, b: number): number => Math.floor(a / b);

/** Day of the year counted from March 1 (0..365), for month m and day d. */
const dayOfMarchYear = (m: number, d: number): number => floorDiv(153 * (m > 2 ? m - 3 : m + 9) + 2, 5) + d - 1;

/** Month and day from a day of the March-based year. */
function monthDayFromMarchYear(doy: number): [number, number] {
  const mp = floorDiv(5 * doy + 2, 153);
  const d = doy - floorDiv(153 * mp + 2, 5) + 1;
  return [mp < 10 ? mp + 3 : mp - 9, d];
}

/** Days since 1970-01-01 of a proleptic Gregorian date (astronomical year). */
function daysFromGregorian(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = floorDiv(yy, 400);
  const yoe = yy - era * 400;
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + dayOfMarchYear(m, d);
  return era * 146097 + doe - 719468;
}

function gregorianFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = floorDiv(z, 146097);
  const doe = z - era * 146097;
  const yoe = floorDiv(doe - floorDiv(doe, 1460) + floorDiv(doe, 36524) - floorDiv(doe, 146096), 365);
  const doy = doe - (365 * yoe + floorDiv(yoe, 4) - floorDiv(yoe, 100));
  const [m, d] = monthDayFromMarchYear(doy);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Days since 1970-01-01 (Gregorian) of a Julian calendar date (astronomical year). */
function daysFromJulian(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = floorDiv(yy, 4);
  const yoe = yy - era * 4;
  return era * 1461 + yoe * 365 + dayOfMarchYear(m, d) - 719470;
}

function julianFromDays(days: number): [number, number, number] {
  const z = days + 719470;
  const era = floorDiv(z, 1461);
  const doe = z - era * 1461;
  const yoe = floorDiv(doe - floorDiv(doe, 1460), 365);
  const [m, d] = monthDayFromMarchYear(doe - 365 * yoe);
  return [yoe + era * 4 + (m <= 2 ? 1 : 0), m, d];
}

const isGregorianLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const isJulianLeap = (y: number): boolean => ((y % 4) + 4) % 4 === 0;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function gregorianMonthLength(y: number, m: number): number {
  return m === 2 && isGregorianLeap(y) ? 29 : MONTH_DAYS[m - 1];
}

/* ------------------------------------------------------------------------------------ */
/* Calendars                                                                            */
/* ------------------------------------------------------------------------------------ */

interface Calendar {
  readonly name: string;
  /** Years numbered without a zero (cftime's has_year_zero=False): -1 is 1 BC. */
  readonly historicalYears: boolean;
  /** Days in month m of (astronomical) year y. */
  monthLength(y: number, m: number): number;
  /** Is this (astronomical) date in the calendar? */
  isValid(y: number, m: number, d: number): boolean;
  /** Day count of the calendar (real calendars: days since 1970-01-01 on the real time line). */
  daysFromCivil(y: number, m: number, d: number): number;
  civilFromDays(days: number): [number, number, number];
  /** Model day + ms of day -> epoch ms (not rounded). */
  toInstant(day: number, msOfDay: number): number;
  /** Epoch ms -> model day and ms of day; undefined when the instant is not a model time. */
  fromInstant(ms: number): { day: number; msOfDay: number } | undefined;
}

function realCalendar(
  name: string,
  historicalYears: boolean,
  monthLength: (y: number, m: number) => number,
  daysFromCivil: (y: number, m: number, d: number) => number,
  civilFromDays: (days: number) => [number, number, number],
  extraValid?: (y: number, m: number, d: number) => boolean,
): Calendar {
  return {
    name,
    historicalYears,
    monthLength,
    isValid: (y, m, d) => m >= 1 && m <= 12 && d >= 1 && d <= monthLength(y, m) && (extraValid?.(y, m, d) ?? true),
    daysFromCivil,
    civilFromDays,
    toInstant: (day, msOfDay) => day * MS_PER_DAY + msOfDay,
    fromInstant: (ms) => {
      const day = Math.floor(ms / MS_PER_DAY);
      return { day, msOfDay: ms - day * MS_PER_DAY };
    },
  };
}

const PROLEPTIC = realCalendar("proleptic_gregorian", false, gregorianMonthLength, daysFromGregorian, gregorianFromDays);

const JULIAN = realCalendar(
  "julian",
  true,
  (y, m) => (m === 2 && isJulianLeap(y) ? 29 : MONTH_DAYS[m - 1]),
  daysFromJulian,
  julianFromDays,
);

/** First day of the Gregorian calendar in the mixed calendar: 1582-10-15. */
const REFORM_DAY = daysFromGregorian(1582, 10, 15);
const dateKey = (y: number, m: number, d: number): number => (y * 100 + m) * 100 + d;

const MIXED = realCalendar(
  "standard",
  true,
  (y, m) => (m === 2 && (y < 1582 ? isJulianLeap(y) : isGregorianLeap(y)) ? 29 : MONTH_DAYS[m - 1]),
  (y, m, d) => (dateKey(y, m, d) >= dateKey(1582, 10, 15) ? daysFromGregorian(y, m, d) : daysFromJulian(y, m, d)),
  (days) => (days >= REFORM_DAY ? gregorianFromDays(days) : julianFromDays(days)),
  (y, m, d) => {
    const k = dateKey(y, m, d);
    return k <= dateKey(1582, 10, 4) || k >= dateKey(1582, 10, 15);
  },
);

/**
 * A model calendar with fixed month lengths. Model days count from model 0000-01-01.
 * Placement on the real time line as described in the module comment.
 */
function modelCalendar(name: string, monthLengths: readonly number[]): Calendar {
  const cum = [0];
  for (const n of monthLengths) cum.push(cum[cum.length - 1] + n);
  const yearLength = cum[12];
  const civilFromDays = (days: number): [number, number, number] => {
    const y = floorDiv(days, yearLength);
    const doy = days - y * yearLength;
    let m = 1;
    while (doy >= cum[m]) m++;
    return [y, m, doy - cum[m - 1] + 1];
  };
  return {
    name,
    historicalYears: false,
    monthLength: (_y, m) => monthLengths[m - 1],
    isValid: (_y, m, d) => m >= 1 && m <= 12 && d >= 1 && d <= monthLengths[m - 1],
    daysFromCivil: (y, m, d) => y * yearLength + cum[m - 1] + d - 1,
    civilFromDays,
    toInstant(day, msOfDay) {
      const [y, m, d] = civilFromDays(day);
      const real = gregorianMonthLength(y, m);
      const model = monthLengths[m - 1];
      if (model > real && d >= real) {
        // Squeeze model days real..model (k + 1 of them) into the last real day of the month.
        const offset = (d - real) * MS_PER_DAY + msOfDay;
        return daysFromGregorian(y, m, real) * MS_PER_DAY + offset / (model - real + 1);
      }
      return daysFromGregorian(y, m, d) * MS_PER_DAY + msOfDay;
    },
    fromInstant(ms) {
      const realDay = Math.floor(ms / MS_PER_DAY);
      const msOfDay = ms - realDay * MS_PER_DAY;
      const [y, m, d] = gregorianFromDays(realDay);
      const real = gregorianMonthLength(y, m);
      const model = monthLengths[m - 1];
      if (model > real && d === real) {
        const offset = msOfDay * (model - real + 1);
        const extra = Math.floor(offset / MS_PER_DAY);
        return {
          day: y * yearLength + cum[m - 1] + real - 1 + extra,
          msOfDay: offset - extra * MS_PER_DAY,
        };
      }
      if (d > model) return undefined;
      return { day: y * yearLength + cum[m - 1] + d - 1, msOfDay };
    },
  };
}

const NOLEAP = modelCalendar("noleap", MONTH_DAYS);
const ALL_LEAP = modelCalendar("all_leap", [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);
const DAY360 = modelCalendar("360_day", new Array<number>(12).fill(30));

const CALENDAR_IMPLS: Readonly<Record<string, Calendar>> = {
  standard: MIXED,
  gregorian: MIXED,
  proleptic_gregorian: PROLEPTIC,
  julian: JULIAN,
  noleap: NOLEAP,
  "365_day": NOLEAP,
  all_leap: ALL_LEAP,
  "366_day": ALL_LEAP,
  "360_day": DAY360,
};

/**
 * The canonical (lower-case, trimmed) name of a CF calendar; absent or empty = `standard`.
 * Throws UnsupportedDataError for a calendar Strata does not read (including `none`).
 *
 * ```ts
 * normalizeCalendar("NoLeap"); // "noleap"
 * ```
 */
export function normalizeCalendar(calendar?: string): string {
  const name = (calendar ?? "").trim().toLowerCase();
  if (name === "") return "standard";
  if (!Object.hasOwn(CALENDAR_IMPLS, name)) {
    const why = name === "none" ? ' ("none" declares a time axis without a calendar, which cannot be placed on StdTime)' : "";
    throw new UnsupportedDataError(`Unknown CF calendar "${calendar}"${why}. Strata reads the calendars ${CALENDARS.join(", ")}.`, {
      parameter: "calendar",
    });
  }
  return name;
}

function calendarImpl(calendar?: string): Calendar {
  return CALENDAR_IMPLS[normalizeCalendar(calendar)];
}

/* ------------------------------------------------------------------------------------ */
/* Units strings                                                                        */
/* ------------------------------------------------------------------------------------ */

const UNIT_ALIASES: Readonly<Record<string, CfTimeUnit>> = (() => {
  const table: Record<string, CfTimeUnit> = {};
  const add = (unit: CfTimeUnit, names: string[]): void => {
    for (const n of names) table[n] = unit;
  };
  add("microseconds", ["microseconds", "microsecond", "microsec", "microsecs", "usec", "usecs", "us"]);
  add("milliseconds", ["milliseconds", "millisecond", "millisec", "millisecs", "msec", "msecs", "ms"]);
  add("seconds", ["seconds", "second", "sec", "secs", "s"]);
  add("minutes", ["minutes", "minute", "min", "mins"]);
  add("hours", ["hours", "hour", "hr", "hrs", "h"]);
  add("days", ["days", "day", "d"]);
  add("weeks", ["weeks", "week"]);
  add("months", ["months", "month"]);
  add("years", ["years", "year", "yr", "yrs"]);
  add("common_years", ["common_years", "common_year"]);
  return table;
})();

/** Milliseconds per unit, for the units whose length does not depend on the calendar. */
const UNIT_MS: Readonly<Record<CfTimeUnit, number>> = {
  microseconds: 0.001,
  milliseconds: 1,
  seconds: 1000,
  minutes: MS_PER_MINUTE,
  hours: MS_PER_HOUR,
  days: MS_PER_DAY,
  weeks: 7 * MS_PER_DAY,
  months: 30 * MS_PER_DAY, // 360_day; other calendars count calendar months (CalendarMonths)
  years: 360 * MS_PER_DAY, // 360_day; other calendars count calendar months (CalendarMonths)
  common_years: 365 * MS_PER_DAY, // noleap / 365_day only
};

const UNITS_RE = /^\s*([a-z_]+)\s+since\s+(.*?)\s*$/i;
const EPOCH_RE =
  /^([+-]?\d{1,6})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)(\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?\s*(Z|UTC|GMT|[+-]\d{1,2}(?::?\d{2})?)?$/i;

/**
 * Parse a CF time units string `"<unit> since <date>[ time][ offset]"`.
 * Returns undefined when the text is not of that form or names an impossible date/time
 * (month 13, minute 61, offset beyond ±24 h). Whether the date exists in a particular
 * calendar is checked by decodeCfTimes.
 *
 * ```ts
 * parseTimeUnits("hours since 1900-01-01 00:00:0.0 -6");
 * // { unit: "hours", epoch: { year: 1900, month: 1, day: 1, hour: 0, minute: 0, second: 0 }, offsetMinutes: -360 }
 * ```
 */
export function parseTimeUnits(units: string): TimeUnits | undefined {
  if (typeof units !== "string") return undefined;
  const um = UNITS_RE.exec(units);
  if (!um) return undefined;
  const unit = UNIT_ALIASES[um[1].toLowerCase()];
  if (unit === undefined) return undefined;
  const em = EPOCH_RE.exec(um[2]);
  if (!em) return undefined;
  const year = Number(em[1]);
  const month = Number(em[2]);
  const day = Number(em[3]);
  const hour = em[4] === undefined ? 0 : Number(em[4]);
  const minute = em[5] === undefined ? 0 : Number(em[5]);
  const second = em[6] === undefined ? 0 : Number(em[6]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  if (hour > 24 || minute > 59 || !(second < 60)) return undefined;
  if (hour === 24 && (minute !== 0 || second !== 0)) return undefined;
  let offsetMinutes = 0;
  const tz = em[7];
  if (tz !== undefined && /^[+-]/.test(tz)) {
    const tm = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(tz);
    if (!tm) return undefined;
    const h = Number(tm[2]);
    const mi = tm[3] === undefined ? 0 : Number(tm[3]);
    if (h > 23 || mi > 59) return undefined;
    offsetMinutes = (tm[1] === "-" ? -1 : 1) * (h * 60 + mi);
  }
  return {
    unit,
    epoch: { year, month, day, hour, minute, second },
    offsetMinutes,
  };
}

/**
 * True when `units` is a CF time units string Strata can parse (`"<unit> since <date>"`).
 *
 * ```ts
 * isCfTimeUnits("days since 1850-01-01"); // true
 * isCfTimeUnits("degrees_north");         // false
 * ```
 */
export function isCfTimeUnits(units: string | undefined): boolean {
  return units !== undefined && parseTimeUnits(units) !== undefined;
}

const fmt2 = (n: number): string => String(n).padStart(2, "0");

function describeEpoch(e: CfEpoch): string {
  return `${e.year}-${fmt2(e.month)}-${fmt2(e.day)}`;
}

/** Resolved units: calendar, ms per unit, and the epoch in model ms (integer part + fraction). */
interface Resolved {
  readonly cal: Calendar;
  readonly calName: string;
  readonly unitMs: number;
  /** Epoch in model milliseconds (day count × 86 400 000 + time of day − offset). */
  readonly epochMs: number;
  /** Set for `months since` / `years since` outside 360_day: values count calendar months. */
  readonly calendarMonths?: CalendarMonths;
}

/** The reference date as written (astronomical year), for stepping by calendar months. */
interface CalendarMonths {
  readonly unit: "months" | "years";
  readonly monthsPerUnit: number;
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** Time of day of the reference, ms. */
  readonly timeMs: number;
  /** UTC offset of the reference, ms east of Greenwich. */
  readonly offsetMs: number;
}

function resolve(units: string, calendar: string | undefined): Resolved {
  const calName = normalizeCalendar(calendar);
  const parsed = parseTimeUnits(units);
  if (parsed === undefined) {
    throw new UnsupportedDataError(
      `Time units "${units}" are not CF time units: expected "<unit> since <date>", ` +
        `e.g. "days since 1850-01-01 00:00:00", with unit one of microseconds, milliseconds, ` +
        `seconds, minutes, hours, days, weeks, months or years.`,
      { parameter: "units" },
    );
  }
  const { unit, epoch, offsetMinutes } = parsed;
  let cal = CALENDAR_IMPLS[calName];
  if (unit === "common_years" && cal !== NOLEAP) {
    throw new UnsupportedDataError(
      `Time units "${units}": common_years (365 days) are only defined for the noleap/365_day ` + `calendar, not ${calName}.`,
      { parameter: "units" },
    );
  }
  let year = epoch.year;
  if (cal.historicalYears) {
    if (year === 0) {
      if (cal === JULIAN) {
        throw new UnsupportedDataError(
          `Time units "${units}": year 0 does not exist in the julian calendar ` +
            `(CF numbers years historically there: 1 BC is year -1).`,
          { parameter: "units" },
        );
      }
      // Ferret climatology convention: year 0 in the default calendar = proleptic Gregorian.
      cal = PROLEPTIC;
    } else if (year < 0) {
      year += 1; // historical -> astronomical
    }
  }
  if (!cal.isValid(year, epoch.month, epoch.day)) {
    const gap =
      cal === MIXED && epoch.year === 1582 && epoch.month === 10 && epoch.day > 4 && epoch.day < 15
        ? " (the ten days 1582-10-05..14 were skipped by the Gregorian reform)"
        : "";
    throw new UnsupportedDataError(
      `Time units "${units}": the reference date ${describeEpoch(epoch)} does not exist in the ` + `${calName} calendar${gap}.`,
      { parameter: "units" },
    );
  }
  const secondMs = Math.round(epoch.second * 1e6) / 1000; // to the microsecond, as cftime
  const timeMs = epoch.hour * MS_PER_HOUR + epoch.minute * MS_PER_MINUTE + secondMs;
  const epochMs = cal.daysFromCivil(year, epoch.month, epoch.day) * MS_PER_DAY + timeMs - offsetMinutes * MS_PER_MINUTE;
  // In 360_day a month is exactly 30 days (UNIT_MS); elsewhere months are calendar months.
  const calendarMonths: CalendarMonths | undefined =
    (unit === "months" || unit === "years") && cal !== DAY360
      ? {
          unit,
          monthsPerUnit: unit === "years" ? 12 : 1,
          year,
          month: epoch.month,
          day: epoch.day,
          timeMs,
          offsetMs: offsetMinutes * MS_PER_MINUTE,
        }
      : undefined;
  return { cal, calName, unitMs: UNIT_MS[unit], epochMs, ...(calendarMonths ? { calendarMonths } : {}) };
}

/**
 * Model milliseconds of `n` whole months (or years) after the reference date: the date moved
 * n calendar months, its day clamped to the target month's length, its time of day kept.
 */
function calendarMonthsMs(r: Resolved, cm: CalendarMonths, units: string, n: number): number {
  if (!Number.isInteger(n)) {
    throw new UnsupportedDataError(
      `Time units "${units}" in the ${r.calName} calendar: the value ${n} is not a whole number of ${cm.unit}. ` +
        `CF (udunits) defines a year as 365.242198781 days and a month as a twelfth of that (about 30.44 days), ` +
        `which falls on no calendar date. Strata reads whole ${cm.unit} as calendar ${cm.unit} from the reference ` +
        `date (as CDO does) and fractional ones only in the 360_day calendar, where they are exactly ` +
        `${cm.unit === "months" ? 30 : 360} days; store times in days or hours.`,
      { parameter: "units" },
    );
  }
  const [y, m, d] = shiftMonths(cm.year, cm.month, cm.day, n * cm.monthsPerUnit, r.cal.monthLength);
  if (!r.cal.isValid(y, m, d)) {
    // Only the mixed calendar has such dates: October 1582 lost its 5th to 14th.
    throw new UnsupportedDataError(
      `Time units "${units}": the value ${n} falls on ${describeEpoch({ year: y, month: m, day: d, hour: 0, minute: 0, second: 0 })}, ` +
        `which does not exist in the ${r.calName} calendar (the ten days 1582-10-05..14 were skipped by the Gregorian reform).`,
      { parameter: "units" },
    );
  }
  return r.cal.daysFromCivil(y, m, d) * MS_PER_DAY + cm.timeMs - cm.offsetMs;
}

/**
 * The date `months` calendar months after (y, m, d) (astronomical years; negative counts
 * back), its day clamped to the target month's length in the calendar `monthLength` gives:
 * Jan 31 + 1 month = Feb 28, or Feb 29 in a leap year of that calendar. The one month
 * arithmetic of `months since` axes and of addCalendar's MONTHS / YEARS steps.
 */
function shiftMonths(
  y: number,
  m: number,
  d: number,
  months: number,
  monthLength: (y: number, m: number) => number,
): [number, number, number] {
  const index = y * 12 + (m - 1) + months;
  const ny = Math.floor(index / 12);
  const nm = index - ny * 12 + 1;
  return [ny, nm, Math.min(d, monthLength(ny, nm))];
}

/** Epoch ms of model milliseconds in the resolved calendar, rounded to the millisecond. */
function instantOf(r: Resolved, modelMs: number): number {
  if (r.cal === PROLEPTIC || r.cal === JULIAN || r.cal === MIXED) return Math.round(modelMs);
  const day = Math.floor(modelMs / MS_PER_DAY);
  return Math.round(r.cal.toInstant(day, modelMs - day * MS_PER_DAY));
}

/**
 * Decode CF time coordinate values to StdTime (epoch milliseconds UTC, proleptic
 * Gregorian), rounded to the millisecond. Non-finite values decode to NaN.
 * Throws UnsupportedDataError for units that are not CF time units, an unknown calendar,
 * a reference date that does not exist in the calendar, or a fractional number of months or
 * years outside 360_day.
 *
 * ```ts
 * decodeCfTimes([1096.485], "hours since 1900-01-01"); // [-2205041454000] = 1900-02-15T16:29:06Z
 * decodeCfTimes([366], "hour since 0000-01-01 00:00:00"); // [-62165901600000] = 0000-01-16T06:00:00Z
 * decodeCfTimes([1, 13], "months since 1958-1-1"); // 1958-02-01T00:00:00Z, 1959-02-01T00:00:00Z
 * ```
 */
export function decodeCfTimes(values: ArrayLike<number>, units: string, calendar?: string): number[] {
  const r = resolve(units, calendar);
  const { unitMs, epochMs, calendarMonths } = r;
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) {
      out[i] = NaN;
      continue;
    }
    let modelMs: number;
    if (calendarMonths) {
      modelMs = calendarMonthsMs(r, calendarMonths, units, v);
    } else if (unitMs >= 1) {
      // whole * unitMs is an exact integer; the fraction adds less than one unit.
      const whole = Math.trunc(v);
      modelMs = epochMs + whole * unitMs + (v - whole) * unitMs;
    } else {
      modelMs = epochMs + v / 1000; // microseconds
    }
    out[i] = instantOf(r, modelMs);
  }
  return out;
}

function notInCalendar(ms: number, calName: string): InvalidInputError {
  return new InvalidInputError(`${formatIso(ms)} is not a time of the ${calName} calendar (that day does not exist in it).`);
}

/**
 * Encode StdTime values (epoch ms) as CF time values in `units` and `calendar`: the inverse
 * of decodeCfTimes. Non-finite values encode to NaN. Throws InvalidInputError for an instant
 * the model calendar never reaches (e.g. 2024-02-29 in noleap) or, with calendar months, an
 * instant that is no whole number of months from the reference date; and the errors of
 * decodeCfTimes for bad units or calendars.
 *
 * ```ts
 * encodeCfTimes([Date.UTC(2000, 0, 2)], "days since 2000-01-01", "360_day"); // [1]
 * ```
 */
export function encodeCfTimes(epochMs: ArrayLike<number>, units: string, calendar?: string): number[] {
  const r = resolve(units, calendar);
  const { cal, unitMs, epochMs: origin, calendarMonths } = r;
  const out = new Array<number>(epochMs.length);
  for (let i = 0; i < epochMs.length; i++) {
    const ms = epochMs[i];
    if (!Number.isFinite(ms)) {
      out[i] = NaN;
      continue;
    }
    const at = cal.fromInstant(ms);
    if (at === undefined) throw notInCalendar(ms, r.calName);
    if (calendarMonths) {
      out[i] = wholeMonthsTo(r, calendarMonths, units, at, ms);
      continue;
    }
    const delta = at.day * MS_PER_DAY + at.msOfDay - origin;
    out[i] = unitMs >= 1 ? delta / unitMs : delta * 1000;
  }
  return out;
}

/** The whole number of months (years) from the reference date to an instant, or an error. */
function wholeMonthsTo(r: Resolved, cm: CalendarMonths, units: string, at: { day: number; msOfDay: number }, ms: number): number {
  // The month the instant falls in, in the reference's local time, gives the only candidate.
  const local = at.day * MS_PER_DAY + at.msOfDay + cm.offsetMs;
  const [y, m] = r.cal.civilFromDays(Math.floor(local / MS_PER_DAY));
  const n = (y * 12 + m - 1 - (cm.year * 12 + cm.month - 1)) / cm.monthsPerUnit;
  if (Number.isInteger(n) && instantOf(r, calendarMonthsMs(r, cm, units, n)) === Math.round(ms)) return n;
  throw new InvalidInputError(`${formatIso(ms)} is not a whole number of ${cm.unit} from the reference date of "${units}".`);
}

/**
 * The date and time of day of a StdTime instant in a CF calendar (years numbered as that
 * calendar numbers them: historically for julian/standard, astronomically otherwise).
 * The instant is rounded to the millisecond first. Throws InvalidInputError for an instant
 * the model calendar never reaches (e.g. 2024-02-29 in noleap).
 *
 * ```ts
 * toCalendarComponents(Date.UTC(2001, 1, 28, 12), "360_day");
 * // { year: 2001, month: 2, day: 29, hour: 12, ... } (Feb 28 12:00 real = model Feb 29 12:00)
 * ```
 */
export function toCalendarComponents(epochMs: number, calendar?: string): CalendarComponents {
  if (!Number.isFinite(epochMs)) {
    throw new InvalidInputError(`Time value ${epochMs} is not a finite number of milliseconds.`);
  }
  const cal = calendarImpl(calendar);
  const ms = Math.round(epochMs);
  const at = cal.fromInstant(ms);
  if (at === undefined) throw notInCalendar(ms, normalizeCalendar(calendar));
  const [y, m, d] = cal.civilFromDays(at.day);
  const t = Math.round(at.msOfDay);
  return {
    year: cal.historicalYears && y <= 0 ? y - 1 : y,
    month: m,
    day: d,
    hour: Math.floor(t / MS_PER_HOUR),
    minute: Math.floor((t % MS_PER_HOUR) / MS_PER_MINUTE),
    second: Math.floor((t % MS_PER_MINUTE) / 1000),
    millisecond: t % 1000,
  };
}

/**
 * The StdTime instant of a date and time in a CF calendar (inverse of toCalendarComponents;
 * years numbered as the calendar numbers them). Throws InvalidInputError when the date does
 * not exist in the calendar.
 *
 * ```ts
 * fromCalendarComponents({ year: 2001, month: 2, day: 30, hour: 0, minute: 0, second: 0, millisecond: 0 }, "360_day");
 * ```
 */
export function fromCalendarComponents(c: CalendarComponents, calendar?: string): number {
  const cal = calendarImpl(calendar);
  let y = c.year;
  if (cal.historicalYears) {
    if (y === 0) throw new InvalidInputError(`Year 0 does not exist in the ${cal.name} calendar.`);
    if (y < 0) y += 1;
  }
  if (!cal.isValid(y, c.month, c.day)) {
    throw new InvalidInputError(`${c.year}-${fmt2(c.month)}-${fmt2(c.day)} does not exist in the ${normalizeCalendar(calendar)} calendar.`);
  }
  const msOfDay = c.hour * MS_PER_HOUR + c.minute * MS_PER_MINUTE + c.second * 1000 + c.millisecond;
  return Math.round(cal.toInstant(cal.daysFromCivil(y, c.month, c.day), msOfDay));
}

/* ------------------------------------------------------------------------------------ */
/* Calendar stepping on StdTime                                                          */
/* ------------------------------------------------------------------------------------ */

const STEP_UNITS: readonly TimeStepUnit[] = ["HOURS", "DAYS", "WEEKS", "MONTHS", "YEARS"];

/**
 * Add n units to a StdTime instant (proleptic Gregorian UTC). Hours, days and weeks are
 * fixed lengths (UTC has no DST). Months and years are calendar steps clamped to the end of
 * the month: Jan 31 + 1 month = Feb 28 (Feb 29 in leap years), Jan 31 + 2 months = Mar 31,
 * Feb 29 + 1 year = Feb 28. The time of day is kept. n may be negative; it must be an integer
 * for MONTHS and YEARS.
 *
 * ```ts
 * addCalendar(Date.UTC(2023, 0, 31, 6), 1, "MONTHS"); // 2023-02-28T06:00:00Z
 * ```
 */
export function addCalendar(epochMs: number, n: number, unit: TimeStepUnit): number {
  if (!Number.isFinite(epochMs)) {
    throw new InvalidInputError(`Time value ${epochMs} is not a finite number of milliseconds.`);
  }
  if (!Number.isFinite(n)) throw new InvalidInputError(`Time step ${n} is not a finite number.`);
  switch (unit) {
    case "HOURS":
      return epochMs + n * MS_PER_HOUR;
    case "DAYS":
      return epochMs + n * MS_PER_DAY;
    case "WEEKS":
      return epochMs + n * 7 * MS_PER_DAY;
    case "MONTHS":
    case "YEARS": {
      if (!Number.isInteger(n)) {
        throw new InvalidInputError(
          `A step of ${n} ${unit.toLowerCase()} is not a whole number: month and year steps are calendar steps.`,
          { parameter: "iterationStep" },
        );
      }
      const months = unit === "YEARS" ? n * 12 : n;
      const day = Math.floor(epochMs / MS_PER_DAY);
      const msOfDay = epochMs - day * MS_PER_DAY;
      const [y, m, d] = gregorianFromDays(day);
      return daysFromGregorian(...shiftMonths(y, m, d, months, gregorianMonthLength)) * MS_PER_DAY + msOfDay;
    }
    default:
      throw new InvalidInputError(`Unknown time step unit "${String(unit)}": expected one of ${STEP_UNITS.join(", ")}.`, {
        parameter: "iterationUnit",
      });
  }
}

/**
 * The start of the k-th window of a series anchored at `startMs`: addCalendar(startMs,
 * k·step, unit). Anchoring (not repeated stepping) is what SPEC §6 asks: Jan 31 + 2 months is
 * Mar 31, while stepping twice by one month would clamp to Mar 28 (Mar 29 in a leap year).
 *
 * ```ts
 * anchoredStep(Date.UTC(2023, 0, 31), 2, 1, "MONTHS"); // 2023-03-31T00:00:00Z
 * ```
 */
export function anchoredStep(startMs: number, k: number, step: number, unit: TimeStepUnit): number {
  return addCalendar(startMs, k * step, unit);
}

/* ------------------------------------------------------------------------------------ */
/* ISO 8601 text                                                                        */
/* ------------------------------------------------------------------------------------ */

/**
 * Format a StdTime instant as ISO 8601 UTC: `2050-01-01T00:00:00Z`, with `.sss` only when
 * the milliseconds are not zero. Years 0..9999 have four digits; others are written in the
 * expanded form with sign and six digits (`-000001-12-31T00:00:00Z`, `+010000-01-01...`),
 * as Date.prototype.toISOString does. The value is rounded to the millisecond.
 *
 * ```ts
 * formatIso(0); // "1970-01-01T00:00:00Z"
 * ```
 */
export function formatIso(epochMs: number): string {
  if (!Number.isFinite(epochMs)) {
    throw new InvalidInputError(`Time value ${epochMs} is not a finite number of milliseconds.`);
  }
  const ms = Math.round(epochMs);
  const day = Math.floor(ms / MS_PER_DAY);
  const t = ms - day * MS_PER_DAY;
  const [y, m, d] = gregorianFromDays(day);
  const year = y >= 0 && y <= 9999 ? String(y).padStart(4, "0") : (y < 0 ? "-" : "+") + String(Math.abs(y)).padStart(6, "0");
  const hh = fmt2(Math.floor(t / MS_PER_HOUR));
  const mi = fmt2(Math.floor((t % MS_PER_HOUR) / MS_PER_MINUTE));
  const ss = fmt2(Math.floor((t % MS_PER_MINUTE) / 1000));
  const frac = t % 1000 === 0 ? "" : "." + String(t % 1000).padStart(3, "0");
  return `${year}-${fmt2(m)}-${fmt2(d)}T${hh}:${mi}:${ss}${frac}Z`;
}

const ISO_RE = /^([+-]\d{4,6}|\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?$/i;

/**
 * Parse a time value as the API accepts it (SPEC §3): ISO 8601 `YYYY-MM-DD`, `YYYY-MM`, or a
 * date-time `YYYY-MM-DDTHH:MM[:SS[.fff]]` (a space may replace the T) that is UTC unless it
 * ends in an offset (`Z`, `+05:30`, `-0600`, `+05`); or epoch milliseconds as an integer
 * string. Expanded years (`-000044-03-15`, `+012000-01-01`) are accepted. Fractions below
 * a millisecond are rounded. Returns undefined when the text is none of these or names an
 * impossible date or time.
 *
 * ```ts
 * parseIsoTime("2050-01-01");                // 2524608000000
 * parseIsoTime("2050-01-01T05:30:00+05:30"); // 2524608000000
 * parseIsoTime("2524608000000");             // 2524608000000
 * ```
 */
export function parseIsoTime(text: string): number | undefined {
  if (typeof text !== "string") return undefined;
  const s = text.trim();
  if (/^[+-]?\d+$/.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  const m = ISO_RE.exec(s);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = m[3] === undefined ? 1 : Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > gregorianMonthLength(y, mo)) return undefined;
  const h = m[4] === undefined ? 0 : Number(m[4]);
  const mi = m[5] === undefined ? 0 : Number(m[5]);
  const sec = m[6] === undefined ? 0 : Number(m[6]);
  const frac = m[7] === undefined ? 0 : Math.round(Number("0." + m[7]) * 1000);
  if (h > 24 || mi > 59 || sec > 59) return undefined;
  if (h === 24 && (mi !== 0 || sec !== 0 || frac !== 0)) return undefined;
  let offset = 0;
  const tz = m[8];
  if (tz !== undefined && tz.toUpperCase() !== "Z") {
    const tm = /^([+-])(\d{2}):?(\d{2})?$/.exec(tz);
    if (!tm) return undefined;
    const oh = Number(tm[2]);
    const om = tm[3] === undefined ? 0 : Number(tm[3]);
    if (oh > 23 || om > 59) return undefined;
    offset = (tm[1] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  return daysFromGregorian(y, mo, d) * MS_PER_DAY + h * MS_PER_HOUR + mi * MS_PER_MINUTE + sec * 1000 + frac - offset * MS_PER_MINUTE;
}

/**
 * The month number (1..12) of an English month name, full or three-letter abbreviation,
 * case-insensitive (`January`, `jan`, `JAN`); undefined otherwise.
 *
 * ```ts
 * parseMonthName("Sep"); // 9
 * ```
 */
export function parseMonthName(text: string): number | undefined {
  if (typeof text !== "string") return undefined;
  const t = text.trim().toLowerCase();
  if (t.length < 3) return undefined;
  const i = MONTH_NAMES.findIndex((n) => n.toLowerCase() === t || n.slice(0, 3).toLowerCase() === t);
  return i < 0 ? undefined : i + 1;
}
