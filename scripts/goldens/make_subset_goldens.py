#!/usr/bin/env python3
"""Write the golden cases that Strata's SubsetMultidimensionalRaster tests compare against.

Regenerate (from the repository root):

    bash scripts/fixtures.sh && /tmp/v/bin/python scripts/goldens/make_subset_goldens.py

(/tmp/v is any Python venv with numpy, xarray, netCDF4 and cftime.)

Output: test/golden/subset/cases.json, a list of cases

    {name, file, params, expected}

  file      a file in test/fixtures/real/
  params    exactly the strings a client sends to the GP task (structured parameters are
            JSON text); the tests add inputMultidimensionalRaster and outputName
  expected  variables  names of the variables kept, in output order
            dims       {<Strata dim name>: [kept values]}: StdTime in epoch milliseconds
                       UTC, StdZ as heights (positive="down" depths negated)
            grid       (extent cases) {width, height, ymax_center, xmin_center} of the
                       output, north-up
            samples    [{variable, index: {<dim>: i_out}, row, col, value}]: values of the
                       OUTPUT (indices into the kept slices, rows north-up), null = nodata
            statistics {<variable>: {min, max, mean, count}} over the valid values of the
                       selection (numpy nanmin / nanmax / nanmean in float64 / count)

Everything is computed here with xarray / numpy / cftime, never with Strata: selections
are xarray label selections (.sel with exact labels, inclusive slices, boolean masks on
the decoded coordinates), windows of BY_ITERATION are stepped with Python's calendar,
extents are intersected with cell edges computed from the centres, and Web Mercator
envelopes are made with the spherical Mercator formulas.

Conventions followed (docs/formats.md, SPEC section 6):
  * CF time -> StdTime. The Ferret year-0 axes ("hour since 0000-01-01") are decoded with
    cftime.num2date(..., "proleptic_gregorian", has_year_zero=True).
  * positive="down" depth -> StdZ with negated values, so "StdZ -50" is depth 50.
  * Time bounds are instants (date-only = 00:00 UTC), bounds inclusive.
  * BY_ITERATION windows are anchored at the first window: the k-th window is
    [start + k*step, end + k*step], month/year steps clamped to the end of the month.
  * context.extent keeps the cells whose area intersects the envelope (touching an edge
    is not intersecting).

If node_modules/.bin/prettier exists the JSON is run through it so that
`prettier --check .` stays clean; the values are unaffected.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import math
import os
import shutil
import subprocess
import warnings
import zlib

import cftime
import numpy as np
import xarray as xr

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REAL = os.path.join(ROOT, "test", "fixtures", "real")
OUT = os.path.join(ROOT, "test", "golden", "subset")

R = 6378137.0  # spherical Mercator radius (EPSG:3857)

# File -> (time dim, z dim or None, y dim, x dim)
FILES = {
    "monthly_navy_winds.cdf": ("TIME", None, "FNOCY", "FNOCX"),
    "ocean_atlas_subset.nc": ("TIME", "ZAXLEVIT19", "YAX_SUBSET", "XAX_SUBSET"),
    "coads_climatology.cdf": ("TIME", None, "COADSY", "COADSX"),
}

NAVY = "monthly_navy_winds.cdf"
OCEAN = "ocean_atlas_subset.nc"
COADS = "coads_climatology.cdf"


def j(obj) -> str:
    """A structured parameter as a client sends it: compact JSON text."""
    return json.dumps(obj, separators=(",", ":"))


def merc(lon: float, lat: float) -> tuple[float, float]:
    return (R * math.radians(lon), R * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)))


def merc_envelope(xmin, ymin, xmax, ymax):
    (a, b), (c, d) = merc(xmin, ymin), merc(xmax, ymax)
    return {"xmin": a, "ymin": b, "xmax": c, "ymax": d}


# --------------------------------------------------------------------------------------
# The cases. `params` are the client's strings; `sel` says how xarray selects (below).
# --------------------------------------------------------------------------------------
CASES = [
    dict(name="all_navy", file=NAVY, params={"dimensionDefinition": "ALL"}, sel={}),
    dict(name="variables_json_vwnd_navy", file=NAVY, params={"variables": j(["VWND"])}, sel={"variables": ["VWND"]}),
    dict(
        name="variables_comma_coads",
        file=COADS,
        params={"variables": "sst,AIRT", "dimensionDefinition": "all"},
        sel={"variables": ["SST", "AIRT"]},
    ),
    dict(
        name="value_instant_navy",
        file=NAVY,
        params={"dimensionDefinition": "BY_VALUE", "dimensionValues": j([{"dimension": "StdTime", "value": "1985-07-18T05:00:00"}])},
        sel={"time_values": ["1985-07-18T05:00:00"]},
    ),
    dict(
        name="value_instant_offset_epoch_navy",
        file=NAVY,
        # the same instant as 07:00 at +02:00, and 1990-01-16T20:00Z as epoch milliseconds
        params={
            "dimensionDefinition": "by_value",
            "dimensionValues": j(
                [{"dimension": "stdtime", "values": ["1985-07-18T07:00:00+02:00", 632520000000]}]
            ),
        },
        sel={"time_values": ["1985-07-18T05:00:00", "1990-01-16T20:00:00"]},
    ),
    dict(
        name="value_month_january_navy",
        file=NAVY,
        params={"dimensionDefinition": "BY_VALUE", "dimensionValues": j([{"dimension": "StdTime", "value": "January"}])},
        sel={"months": [1]},
    ),
    dict(
        name="value_month_jul_vwnd_navy",
        file=NAVY,
        params={
            "variables": "vwnd",
            "dimensionDefinition": "BY_VALUE",
            "dimensionValues": j([{"dimension": "StdTime", "values": ["Jul"]}]),
        },
        sel={"variables": ["VWND"], "months": [7]},
    ),
    dict(
        name="value_z50_ocean",
        file=OCEAN,
        params={"dimensionDefinition": "BY_VALUE", "dimensionValues": j([{"dimension": "StdZ", "value": -50}])},
        sel={"z_values": [-50]},
    ),
    dict(
        name="value_zlist_ocean",
        file=OCEAN,
        # -0 as a client may write it: it is the surface, 0
        params={"dimensionDefinition": "BY_VALUE", "dimensionValues": '[{"dimension":"StdZ","values":[-0,-100]}]'},
        sel={"z_values": [0, -100]},
    ),
    dict(
        name="ranges_1990_navy",
        file=NAVY,
        params={
            "dimensionDefinition": "BY_RANGES",
            "dimensionRanges": j([{"dimension": "StdTime", "minValue": "1990-01-01", "maxValue": "1990-12-31"}]),
        },
        sel={"time_ranges": [["1990-01-01", "1990-12-31"]]},
    ),
    dict(
        name="ranges_time_and_z_ocean",
        file=OCEAN,
        params={
            "dimensionDefinition": "BY_RANGES",
            "dimensionRanges": j(
                [
                    {"dimension": "StdTime", "minValue": "0000-03-01", "maxValue": "0000-05-31"},
                    {"dimension": "StdZ", "minValue": -100, "maxValue": 0},
                ]
            ),
        },
        sel={"time_ranges": [["0000-03-01", "0000-05-31"]], "z_ranges": [[-100, 0]]},
    ),
    dict(
        name="ranges_disjoint_navy",
        file=NAVY,
        params={
            "dimensionDefinition": "by_ranges",
            "dimensionRanges": j(
                [
                    {"dimension": "StdTime", "minValue": "1983-06-01", "maxValue": "1983-08-31"},
                    {"dimension": "StdTime", "minValue": "1991-11-01T00:00:00Z", "maxValue": "1999-12-31"},
                ]
            ),
        },
        sel={"time_ranges": [["1983-06-01", "1983-08-31"], ["1991-11-01", "1999-12-31"]]},
    ),
    dict(
        name="iteration_yearly_navy",
        file=NAVY,
        params={
            "dimensionDefinition": "BY_ITERATION",
            "dimension": "StdTime",
            "startOfFirstIteration": "1982-01-01",
            "endOfFirstIteration": "1982-03-31",
            "iterationStep": "1",
            "iterationUnit": "Years",
        },
        sel={"iteration": ("time", "1982-01-01", "1982-03-31", 1, "YEARS")},
    ),
    dict(
        name="iteration_6months_navy",
        file=NAVY,
        # windows [Jan 31, Feb 17 23:59:59], [Jul 31, Aug 17 23:59:59], ...: keeps every
        # February (16th) and the Augusts whose slice falls on the 17th, not the 18th.
        # (The window ending on Feb 15 keeps nothing in this file: slices are mid-month.)
        params={
            "dimensionDefinition": "BY_ITERATION",
            "dimension": "StdTime",
            "startOfFirstIteration": "1982-01-31",
            "endOfFirstIteration": "1982-02-17T23:59:59",
            "iterationStep": "6",
            "iterationUnit": "MONTHS",
        },
        sel={"iteration": ("time", "1982-01-31T00:00:00", "1982-02-17T23:59:59", 6, "MONTHS")},
    ),
    dict(
        name="iteration_z_ocean",
        file=OCEAN,
        # windows [-1000,-900], [-700,-600], [-400,-300], [-100,0]
        params={
            "dimensionDefinition": "BY_ITERATION",
            "dimension": "StdZ",
            "startOfFirstIteration": "-1000",
            "endOfFirstIteration": "-900",
            "iterationStep": "300",
        },
        sel={"iteration": ("z", -1000, -900, 300, None)},
    ),
    dict(
        name="extent_4326_navy",
        file=NAVY,
        params={
            "context": j({"extent": {"xmin": 100, "ymin": -30, "xmax": 180, "ymax": 30, "spatialReference": {"wkid": 4326}}}),
        },
        sel={"extent": (100, -30, 180, 30)},
    ),
    dict(
        name="extent_3857_january_navy",
        file=NAVY,
        params={
            "dimensionDefinition": "BY_VALUE",
            "dimensionValues": j([{"dimension": "StdTime", "value": "jan"}]),
            "context": j(
                {"extent": {**merc_envelope(100, -30, 180, 30), "spatialReference": {"wkid": 102100, "latestWkid": 3857}}}
            ),
        },
        sel={"months": [1], "extent": (100, -30, 180, 30)},
    ),
    dict(
        name="extent_edges_iteration_z_ocean",
        file=OCEAN,
        # xmin and ymax lie on cell edges (cells only touching them are not kept)
        params={
            "dimensionDefinition": "BY_ITERATION",
            "dimension": "StdZ",
            "startOfFirstIteration": "-1000",
            "endOfFirstIteration": "-900",
            "iterationStep": "300",
            "context": j({"extent": {"xmin": 99.5, "ymin": -30, "xmax": 180, "ymax": 31.5, "spatialReference": {"wkid": 4326}}}),
        },
        sel={"iteration": ("z", -1000, -900, 300, None), "extent": (99.5, -30, 180, 31.5)},
    ),
]


# --------------------------------------------------------------------------------------
# Opening: decoded times (epoch ms) and heights, the way docs/formats.md names them.
# --------------------------------------------------------------------------------------
def open_file(name):
    path = os.path.join(REAL, name)
    tdim, zdim, ydim, xdim = FILES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = xr.open_dataset(path, decode_times=False, mask_and_scale=True)
    units = raw[tdim].attrs["units"]
    if " since 0000-" in units:
        times = cftime.num2date(raw[tdim].values, units, "proleptic_gregorian", has_year_zero=True)
        ds = raw.assign_coords({tdim: times})
        ms = cftime.date2num(times, "milliseconds since 1970-01-01", "proleptic_gregorian", has_year_zero=True)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = xr.open_dataset(path, mask_and_scale=True)
        ms = ds[tdim].values.astype("datetime64[ms]").astype(np.int64)
    ms = np.asarray(ms, dtype=np.int64)
    ds = ds.assign_coords(epoch_ms=(tdim, ms))
    if zdim is not None:
        assert ds[zdim].attrs.get("positive") == "down"
        ds = ds.assign_coords(height=(zdim, 0.0 - ds[zdim].values))
    return ds


def iso_ms(text: str) -> int:
    """ISO 8601 (UTC unless an offset is given; year 0 allowed) to epoch ms, via numpy."""
    return int(np.datetime64(text.replace("Z", ""), "ms").astype(np.int64))


def add_months(when: dt.datetime, n: int) -> dt.datetime:
    """Calendar step: clamp the day to the end of the target month, keep the time of day."""
    index = when.year * 12 + (when.month - 1) + n
    y, m = divmod(index, 12)
    d = min(when.day, calendar.monthrange(y, m + 1)[1])
    return when.replace(year=y, month=m + 1, day=d)


def to_ms(when: dt.datetime) -> int:
    return int((when - dt.datetime(1970, 1, 1)) // dt.timedelta(milliseconds=1))


def iteration_windows(kind, start, end, step, unit, last):
    windows = []
    k = 0
    while True:
        if kind == "z":
            a, b = start + k * step, end + k * step
        else:
            s0, e0 = dt.datetime.fromisoformat(start), dt.datetime.fromisoformat(end)
            months = k * step * (12 if unit == "YEARS" else 1)
            a, b = to_ms(add_months(s0, months)), to_ms(add_months(e0, months))
        if a > last:
            return windows
        windows.append((a, b))
        k += 1


def select(case):
    """(data variables north-up as {name: DataArray}, kept dims, grid) for a case."""
    ds = open_file(case["file"])
    tdim, zdim, ydim, xdim = FILES[case["file"]]
    sel = case["sel"]
    names = sel.get("variables", list(ds.data_vars))

    t_ms = ds["epoch_ms"].values
    if "time_values" in sel:
        want = [iso_ms(v) for v in sel["time_values"]]
        ds = ds.isel({tdim: np.isin(t_ms, want)})
    if "months" in sel:
        ds = ds.sel({tdim: ds[tdim].dt.month.isin(sel["months"])})
    if "time_ranges" in sel:
        mask = np.zeros(ds.sizes[tdim], bool)
        for lo, hi in sel["time_ranges"]:
            part = ds[tdim].sel({tdim: slice(time_label(ds, tdim, lo), time_label(ds, tdim, hi))})
            mask |= np.isin(ds[tdim].values, part.values)
        ds = ds.isel({tdim: mask})
    if "z_values" in sel:
        ds = ds.sel({zdim: [0.0 - v for v in sel["z_values"]]})
    if "z_ranges" in sel:
        mask = np.zeros(ds.sizes[zdim], bool)
        for lo, hi in sel["z_ranges"]:  # heights lo..hi are depths -hi..-lo
            part = ds[zdim].sel({zdim: slice(0.0 - hi, 0.0 - lo)})
            mask |= np.isin(ds[zdim].values, part.values)
        ds = ds.isel({zdim: mask})
    if "iteration" in sel:
        kind, start, end, step, unit = sel["iteration"]
        values = ds["epoch_ms"].values if kind == "time" else ds["height"].values
        dim = tdim if kind == "time" else zdim
        windows = iteration_windows(kind, start, end, step, unit, values.max())
        mask = np.array([any(a <= v <= b for a, b in windows) for v in values])
        ds = ds.isel({dim: mask})

    grid = None
    if "extent" in sel:
        xmin, ymin, xmax, ymax = sel["extent"]
        x = ds[xdim].values
        y = ds[ydim].values
        hx = abs(x[1] - x[0]) / 2
        hy = abs(y[1] - y[0]) / 2
        cols = np.nonzero((x - hx < xmax) & (x + hx > xmin))[0]
        rows = np.nonzero((y - hy < ymax) & (y + hy > ymin))[0]
        ds = ds.isel({xdim: cols, ydim: rows})
    # north-up
    if ds[ydim].values[0] < ds[ydim].values[-1]:
        ds = ds.isel({ydim: slice(None, None, -1)})
    if "extent" in sel:
        grid = {
            "width": int(ds.sizes[xdim]),
            "height": int(ds.sizes[ydim]),
            "ymax_center": float(ds[ydim].values[0]),
            "xmin_center": float(ds[xdim].values[0]),
        }

    dims = {"StdTime": [int(v) for v in ds["epoch_ms"].values]}
    if zdim is not None:
        dims["StdZ"] = [float(v) + 0.0 for v in ds["height"].values]
    for name, cnt in dims.items():
        if not cnt:
            raise SystemExit(f"{case['name']}: the selection keeps no {name}")
    data = {n: ds[n].transpose(*[d for d in (tdim, zdim, ydim, xdim) if d is not None]) for n in names}
    return data, dims, grid, (tdim, zdim)


def time_label(ds, tdim, text):
    """A label for .sel on the time coordinate: datetime64 or a year-0 cftime datetime."""
    first = ds[tdim].values[0]
    if isinstance(first, cftime.datetime):
        d = dt.datetime.fromisoformat("2000" + text[4:]) if text.startswith("0000") else dt.datetime.fromisoformat(text)
        year = 0 if text.startswith("0000") else d.year
        return cftime.datetime(year, d.month, d.day, d.hour, d.minute, d.second, calendar="proleptic_gregorian", has_year_zero=True)
    return np.datetime64(text.replace("Z", ""), "ns")


def value(x):
    v = float(x)
    return None if math.isnan(v) else v


def samples(case, data, dimnames):
    tdim, zdim = dimnames
    rng = np.random.default_rng(zlib.crc32(case["name"].encode()))
    names = list(data)
    out = []

    def add(name, idx, row, col):
        a = data[name]
        key = {"StdTime": int(idx[0])}
        if zdim is not None:
            key["StdZ"] = int(idx[1])
        v = a.values[tuple(int(i) for i in idx) + (int(row), int(col))]
        out.append({"variable": name, "index": key, "row": int(row), "col": int(col), "value": value(v)})

    for k in range(8):
        name = names[k % len(names)]
        shape = data[name].shape
        if k == 0:  # north-west corner of the first slice
            idx, row, col = [0] * (len(shape) - 2), 0, 0
        elif k == 1:  # south-east corner of the last slice
            idx, row, col = [s - 1 for s in shape[:-2]], shape[-2] - 1, shape[-1] - 1
        else:  # a valid cell, drawn at random
            valid = np.argwhere(~np.isnan(data[name].values))
            p = valid[int(rng.integers(len(valid)))]
            idx, row, col = p[:-2], p[-2], p[-1]
        add(name, idx, row, col)
    # one nodata cell, when the selection has any
    for name in names:
        nan = np.argwhere(np.isnan(data[name].values))
        if len(nan):
            p = nan[int(rng.integers(len(nan)))]
            add(name, p[:-2], p[-2], p[-1])
            break
    return out


def statistics(data):
    out = {}
    for name, a in data.items():
        v = np.asarray(a.values, dtype=np.float64)
        ok = ~np.isnan(v)
        out[name] = {
            "min": float(np.nanmin(v)),
            "max": float(np.nanmax(v)),
            "mean": float(np.nanmean(v)),
            "count": int(ok.sum()),
        }
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    for case in CASES:
        data, dims, grid, dimnames = select(case)
        expected = {"variables": list(data), "dims": dims}
        if grid is not None:
            expected["grid"] = grid
        expected["samples"] = samples(case, data, dimnames)
        expected["statistics"] = statistics(data)
        cases.append({"name": case["name"], "file": case["file"], "params": case["params"], "expected": expected})
        kept = ", ".join(f"{k} {len(v)}" for k, v in dims.items())
        print(f"{case['name']:34s} {','.join(data):10s} {kept}" + (f"  grid {grid}" if grid else ""))
    path = os.path.join(OUT, "cases.json")
    with open(path, "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    prettier = os.path.join(ROOT, "node_modules", ".bin", "prettier")
    if os.path.exists(prettier) and shutil.which("node"):
        subprocess.run([prettier, "--write", path], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    print(f"wrote {path} ({os.path.getsize(path)} bytes, {len(cases)} cases)")


if __name__ == "__main__":
    main()
