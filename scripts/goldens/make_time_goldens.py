"""Golden CF time decodings for test/cube/time.test.ts, made with cftime.

Run from the repository root (cftime 1.6.6, numpy 2.x):

    /tmp/v/bin/python scripts/goldens/make_time_goldens.py

It writes test/golden/time/cf_decode.json:

    {
      "generator": "...", "cftime": "1.6.6",
      "cases":  [{"calendar", "units", "values": [...], "expected": [[y, m, d, H, M, S, us], ...]}],
      "errors": [{"calendar", "units", "cftime_error": "..."}]
    }

`expected` holds cftime.num2date's components in the calendar of the case, years numbered
as cftime numbers them (historical numbering, no year 0, for julian/standard/gregorian;
astronomical for proleptic_gregorian and the idealized calendars). `errors` lists units
that cftime refuses and that Strata must refuse too.

Cases Strata decides differently from cftime are left out on purpose and tested by hand:
"since 0000-01-01" in the standard calendar (cftime refuses; Strata reads it as proleptic
Gregorian, the Ferret climatology convention), udunits-style " -6" offsets (cftime silently
ignores a one-digit offset), "years since" in 360_day (cftime refuses) and whole "months
since" / "years since" in the other calendars (cftime refuses; Strata reads them as calendar
months, as CDO does: see make_cdo_time_goldens.py).
"""

import json
import os
import warnings

import cftime

warnings.simplefilter("ignore")

REAL = ["standard", "gregorian", "proleptic_gregorian", "julian"]
IDEAL = ["noleap", "365_day", "all_leap", "366_day", "360_day"]

REAL_CASES = [
    ("hours since 1900-01-01 00:00:00",
     [0, 1, 24, 1096.485, -1, -8784.5, 876576, 1000000.25, 0.001]),
    ("days since 1850-01-01",
     [0, 0.5, 31, 59, 365.25, 54786.75, -1, -36524, 1e-5]),
    ("seconds since 1970-01-01T00:00:00Z",
     [0, 1.5, -1.5, 951782400, 1e9, -1e10, 4102444800, 0.0015]),
    ("minutes since 2000-01-01 12:30:00 +05:00", [0, 1, -1, 1440.5, 525600]),
    ("hours since 2000-01-01T00:00:00-03:30", [0, 3.5, -24]),
    # Pre-Gregorian epochs: Julian for standard/julian, crossing the 1582 reform.
    ("days since 1000-01-01", [0, 59, 60, 212000, 212500, -365, 213000.75]),
    ("days since 1582-10-04", [0, 1, 2, -1, 0.5, 1.5]),
    ("days since 1582-10-15 00:00", [0, -1, -0.25, 1, -11]),
    ("hours since 1-1-1 00:00:0.0", [0, 17522904, 17531688, -24, 36.5]),
    ("days since 0001-01-01", [-1, -366, -400.5, 730000]),
    ("milliseconds since 2000-02-28 23:59:59.5", [0, 500, 86400500, -1500, 1.25]),
    ("days since 1500-02-28", [0, 1, 2, 365]),
    ("microseconds since 2000-01-01", [1500, -2500000]),
]

IDEAL_CASES = [
    ("days since 2000-01-01", [0, 58, 59, 59.5, 60, 365, 366, -1, 1000.25, 0.001]),
    ("hours since 1999-02-28 00:00", [0, 6, 24, 36, 48, 60, 72, 96, -0.5]),
    ("hours since 2000-02-28 00:00", [0, 12, 24, 36, 48, 60, 72, 1096.485]),
    ("days since 0000-01-01", [0, 730000.5, -1]),
    ("seconds since 1970-01-01 00:00:00 +05:00", [0, 1.5, 5097600, -86400]),
    ("minutes since 1850-03-01", [-1, -1440, -2880, -4320.5, 60]),
]
IDEAL_EXTRA = {
    "360_day": [("months since 2000-01-01", [0, 1, 1.5, 12, -1, 0.1])],
    "noleap": [("common_years since 2000-01-01", [0, 1, 2.5, -1])],
}

ERRORS = [
    ("standard", "days since 1582-10-10"),  # in the gap of the reform
    ("standard", "days since 2001-02-29"),
    ("proleptic_gregorian", "days since 2001-02-29"),
    ("julian", "days since 1900-02-30"),
    ("noleap", "days since 2000-02-29"),
    ("360_day", "days since 2000-01-31"),
    ("julian", "days since 0000-01-01"),
    ("standard", "fortnights since 2000-01-01"),
    ("standard", "days after 2000-01-01"),
]


def components(d):
    return [d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond]


def main():
    cases = []
    for cal in REAL + IDEAL:
        todo = list(REAL_CASES if cal in REAL else IDEAL_CASES) + IDEAL_EXTRA.get(cal, [])
        for units, values in todo:
            dates = cftime.num2date(values, units, calendar=cal, only_use_cftime_datetimes=True)
            cases.append({
                "calendar": cal,
                "units": units,
                "values": values,
                "expected": [components(d) for d in dates],
            })
    errors = []
    for cal, units in ERRORS:
        try:
            cftime.num2date([0], units, calendar=cal)
        except Exception as e:  # noqa: BLE001 - we record what cftime says
            errors.append({"calendar": cal, "units": units, "cftime_error": str(e)})
        else:
            raise SystemExit(f"cftime accepted {units!r} in {cal}: not an error case")
    out = {
        "generator": "/tmp/v/bin/python scripts/goldens/make_time_goldens.py",
        "cftime": cftime.__version__,
        "cases": cases,
        "errors": errors,
    }
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "test", "golden", "time", "cf_decode.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path}: {len(cases)} cases, {len(errors)} error cases, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
