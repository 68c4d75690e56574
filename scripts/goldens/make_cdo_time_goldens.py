"""Golden decodings of `months since` / `years since` time axes, made with CDO.

Run from the repository root after `bash scripts/fixtures.sh` (which fetches hgt.nc), with
the system python3 (standard library only), ncgen (netcdf-bin) and cdo on the PATH:

    python3 scripts/goldens/make_cdo_time_goldens.py

It writes test/golden/time/cdo_calendar_months.json:

    {
      "generator": "...", "cdo": "Climate Data Operators version 2.1.1 ...",
      "cases": [{"calendar", "units", "values": [...], "timestamps": ["YYYY-MM-DDTHH:MM:SS", ...]}],
      "hgt": {"file": "test/fixtures/real/hgt.nc", "units", "calendar", "timestamps": [...]}
    }

Each case is a tiny NetCDF file written with ncgen (a double `time` coordinate with those
units, values and calendar, and a 2 x 2 variable on it) whose time axis `cdo -s
showtimestamp` prints; the timestamps are CDO's, dates in the case's calendar. `hgt` is CDO's
reading of hgt.nc, the NCEP reanalysis 500 hPa heights shipped with NCL's data (Debian
libncarg-data), whose time is `months since 1958-1-1 00:00:00` in the default calendar.

CDO reads a whole number n of months (or years, 12 n months) as the reference date moved n
calendar months, keeping its day and time of day; in 360_day a month is 30 days, fractions
included. Left out on purpose:
- reference days 29..31 outside 360_day: where the target month lacks the day CDO rolls over
  into the next month (2000-01-31 + 1 month = 2000-03-02), while Strata clamps to the month's
  end (2000-02-29), as its calendar steps do; these are tested by hand;
- the julian calendar, which this CDO does not know (it warns and reads it as standard);
- fractional months outside 360_day, which Strata refuses.
"""

import json
import os
import subprocess
import tempfile

CALENDARS = ["standard", "gregorian", "proleptic_gregorian", "noleap", "365_day", "all_leap", "366_day", "360_day"]

CASES = [
    ("months since 1958-1-1 00:00:00", [0, 1, 13, 25, 229, -1, -12, -25]),
    ("months since 2000-01-15 12:30:00", [-13, -1, 0, 1, 2, 13, 25, 1200]),
    ("months since 1900-03-28 23:59:59", [-14, -1, 0, 1, 11, 12]),
    ("years since 1999-02-28 06:00:00", [-4, -1, 0, 1, 5]),
    ("month since 1850-12-01", [-1, 0, 1, 2, 12]),
]
EXTRA = {
    "360_day": [
        ("months since 2000-01-30", [-1, 0, 1, 2, 13]),
        ("months since 2000-01-01", [0.5, 1.5, -0.5]),
    ],
}


def cdl(units, values, calendar):
    calendar_line = f'    time:calendar = "{calendar}" ;\n' if calendar else ""
    return (
        "netcdf case {\n"
        f"dimensions:\n  time = {len(values)} ;\n  lat = 2 ;\n  lon = 2 ;\n"
        "variables:\n"
        f'  double time(time) ;\n    time:units = "{units}" ;\n{calendar_line}'
        '  float lat(lat) ;\n    lat:units = "degrees_north" ;\n'
        '  float lon(lon) ;\n    lon:units = "degrees_east" ;\n'
        "  float v(time, lat, lon) ;\n"
        "data:\n"
        f"  time = {', '.join(repr(v) for v in values)} ;\n  lat = 0, 1 ;\n  lon = 0, 1 ;\n"
        "}\n"
    )


def timestamps(path):
    out = subprocess.run(["cdo", "-s", "showtimestamp", path], check=True, capture_output=True, text=True)
    if out.stderr.strip():
        raise SystemExit(f"cdo warned on {path}: {out.stderr.strip()}")
    return out.stdout.split()


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    version = subprocess.run(["cdo", "--version"], capture_output=True, text=True)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for calendar in CALENDARS:
            for units, values in CASES + EXTRA.get(calendar, []):
                src = os.path.join(tmp, "case.cdl")
                nc = os.path.join(tmp, "case.nc")
                with open(src, "w") as f:
                    f.write(cdl(units, values, calendar))
                subprocess.run(["ncgen", "-o", nc, src], check=True)
                got = timestamps(nc)
                if len(got) != len(values):
                    raise SystemExit(f"cdo printed {len(got)} timestamps for {len(values)} values ({calendar}, {units})")
                cases.append({"calendar": calendar, "units": units, "values": values, "timestamps": got})
    hgt_path = os.path.join(root, "test", "fixtures", "real", "hgt.nc")
    if not os.path.exists(hgt_path):
        raise SystemExit("test/fixtures/real/hgt.nc is missing: run bash scripts/fixtures.sh first")
    hgt = {
        "file": "test/fixtures/real/hgt.nc",
        "units": "months since 1958-1-1 00:00:00",
        "calendar": "standard",
        "timestamps": timestamps(hgt_path),
    }
    out = {
        "generator": "python3 scripts/goldens/make_cdo_time_goldens.py",
        "cdo": (version.stdout or version.stderr).splitlines()[0],
        "cases": cases,
        "hgt": hgt,
    }
    path = os.path.join(root, "test", "golden", "time", "cdo_calendar_months.json")
    # One case per line: small, and a regenerated file diffs by case.
    lines = [f'{{"generator": {json.dumps(out["generator"])}, "cdo": {json.dumps(out["cdo"])},', ' "cases": [']
    lines += [f"  {json.dumps(c)}," for c in cases]
    lines[-1] = lines[-1].rstrip(",")
    lines += [" ],", f' "hgt": {json.dumps(hgt)}', "}"]
    text = "\n".join(lines) + "\n"
    if json.loads(text) != out:
        raise SystemExit("the golden does not read back as written")
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}: {len(cases)} cases and hgt.nc's {len(hgt['timestamps'])} timestamps")


if __name__ == "__main__":
    main()
