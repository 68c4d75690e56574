#!/usr/bin/env python3
"""Write the golden cases for Strata's analysis tasks: GenerateMultidimensionalAnomaly,
GenerateTrendRaster and PredictUsingTrendRaster.

Regenerate (from the repository root):

    bash scripts/fixtures.sh && /tmp/v/bin/python scripts/goldens/make_analysis_goldens.py

(/tmp/v is any Python venv with numpy, scipy, xarray, netCDF4 and cftime.)

Everything here follows docs/tasks.md (and /work/shared/SPEC.md sections 7-9) literally and is
computed with numpy / scipy / plain Python; xarray (with cftime) is only used to read the files.
Strata is never used to compute an expected value.

Inputs written into test/golden/analysis/ (NetCDF-3 64-bit offset, float32 `tas` with
_FillValue -9999, time "hours since 2019-01-01 00:00:00" standard calendar, CF lat/lon):

  daily.nc           1096 daily slices 2019-01-01 .. 2021-12-31 (incl. 2020-02-29), 4 lat x 5 lon,
                     NORTH-up (latitudes descending). Values: seasonal cycle + trend + seeded noise,
                     quantized to 1/16 (exact in float32, exact sums, real ties for Mann-Kendall).
                     Special pixels (row, col; rows are north-up):
                       (0,0) constant 2.5            -> s = 0 (Z_SCORE nodata), R2 nodata (SST = 0)
                       (0,4) every slice nodata
                       (1,2) nodata on 2019-01-05..12, 2020-02-29, 2020-07-10..20 (ignoreNoData=false)
                       (2,3) only 3 valid slices (2019-03-01, 2020-06-15, 2021-09-30): n <= p cases
                       (3,0) ~8 % of the slices nodata at random
                       (3,4) +1, -1, +1, ... (+1 on 2019-01-01): mean over ALL is exactly 0 (R = 0),
                             and RECURRING_DAILY medians of -1 against x = +1 (x + R = 0)
  hourly.nc          15-minute slices 2019-12-31T00:00 .. 2020-01-02T23:45 (3 days, over a year
                     boundary) minus 2019-12-31T23:30, 23:45 (that clock hour has 2 slices) and
                     2020-01-01T05:15, 05:30, 05:45 (a clock hour with 1 slice); 3 lat x 4 lon,
                     SOUTH-up (latitudes ascending). Sub-hourly on purpose: with one slice per
                     clock hour every HOURLY group would be a single slice. North-up (2,1) has ~15 %
                     nodata, north-up (0,3) is nodata for the whole hour 2020-01-02T12.
  daily_ref_one.nc   daily.nc's grid, ONE time slice (2019-01-01): the per-pixel mean of daily.nc
                     quantized to 1/16; (3,4) is exactly 0; (1,1) is nodata.
  daily_ref_multi.nc daily.nc's grid and times, one reference field per slice (the noiseless
                     seasonal cycle, quantized); (2,1) nodata in March 2020; (3,4) is 0 on the 1st
                     of every month and 0.5 otherwise.

Goldens (JSON, floats written with repr so they round-trip; null = nodata):

  anomaly.json  [{name, file, params, samples: [{variable, index: {StdTime: i[, StdZ: j]}, at,
                 row, col, value}]}]
  trend.json    [{name, file, params, bands, xCenter, xScale, samples: [{variable, index:
                 {[StdZ: j]}, at, row, col, values}]}]     values: one per band (null = nodata
                 band), or null when every band is nodata
  predict.json  [{name, trend, file, params, times, samples: [{variable, index: {StdTime: i[,
                 StdZ: j]}, at, row, col, value}]}]

  file    a repository-relative path; params are the strings a client sends (structured
          parameters are JSON text; the tests add inputMultidimensionalRaster / outputName and
          register the file share "golden" = test/golden/analysis for referenceMeanRaster)
  index   indices into the OUTPUT's slices (for anomaly and predict) or into the trend output's
          non-fit dimensions; `at` repeats them as values (StdTime epoch ms UTC, StdZ height)
  row/col north-up cell indices

Conventions where docs/tasks.md is silent (see also scripts/goldens/README.md):
  * A nodata value in the EXTERNAL_RASTER reference makes that output value nodata.
  * Trend with ignoreNoData=false: a pixel with any nodata slice is nodata in every band.
  * Mann-Kendall / Seasonal-Kendall cases pass rmse=false explicitly (RMSE/R2/SlopePValue are
    not defined for them; these goldens never ask for them).
  * Seasonal-Kendall: n (for n < 4) is the pixel's total number of valid slices.
  * P values are computed as erfc(|Z|/sqrt 2) (= 2(1 - Phi(|Z|)) without cancellation) and
    2 * scipy.stats.t.sf(|t|, n - p); compare them with an absolute tolerance.
  * Prediction: R2/RMSE/SlopePValue are not coefficients; a nodata R2 does not make the
    prediction nodata.
  * BY_VALUE lists are given in increasing order (the output order is the list order).
  * RECURRING_DAILY keys are the calendar day (month, day): Feb 29 is its own group and
    March 1 is one group across leap and common years (docs/tasks.md).
  * xCenter / xScale in trend.json are the centring of docs/tasks.md (mean and half range of
    ALL the dimension's x values); the goldens' coefficients do not depend on them.
  * The constant pixel is left out of the POLYNOMIAL / HARMONIC / SlopePValue trend cases
    (zero coefficients are only reproduced up to rounding noise; its SlopePValue is 0/0).
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import math
import os
import shutil
import statistics
import subprocess
import warnings
import zlib
from collections import Counter

import cftime
import netCDF4
import numpy as np
import xarray as xr
from scipy import stats

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_REL = "test/golden/analysis"
OUT = os.path.join(ROOT, OUT_REL)
SHARE = "/fileShares/golden"

NAVY = "test/fixtures/real/monthly_navy_winds.cdf"
OCEAN = "test/fixtures/real/ocean_atlas_subset.nc"
DAILY = f"{OUT_REL}/daily.nc"
HOURLY = f"{OUT_REL}/hourly.nc"
REF_ONE = f"{OUT_REL}/daily_ref_one.nc"
REF_MULTI = f"{OUT_REL}/daily_ref_multi.nc"

DAY_MS = 86_400_000
FILL = -9999.0
TIME_UNITS = "hours since 2019-01-01 00:00:00"
EPOCH_2019 = 1_546_300_800_000  # 2019-01-01T00:00:00Z in epoch ms


def j(obj) -> str:
    """A structured parameter as a client sends it: compact JSON text."""
    return json.dumps(obj, separators=(",", ":"))


def num(v):
    """A float for JSON: None for NaN (nodata), plain float otherwise."""
    v = float(v)
    if math.isnan(v):
        return None
    assert math.isfinite(v), v
    return v


def iso_ms(text: str) -> int:
    """ISO 8601 (UTC; date-only = 00:00; year 0 allowed) to epoch ms (proleptic Gregorian)."""
    return int(np.datetime64(text.replace("Z", ""), "ms").astype(np.int64))


def ms_iso(ms: int) -> str:
    return str(np.datetime64(int(ms), "ms"))


# ======================================================================================
# 1. Synthetic inputs
# ======================================================================================
DAILY_LAT = np.array([45.5, 44.5, 43.5, 42.5])  # north-up (descending)
DAILY_LON = np.array([5.5, 6.5, 7.5, 8.5, 9.5])
HOURLY_LAT = np.array([10.0, 10.5, 11.0])  # south-up (ascending)
HOURLY_LON = np.array([100.0, 100.5, 101.0, 101.5])

CONST, ALLFILL, CTRLFILL, SPARSE, RANDFILL, ALTERN = (0, 0), (0, 4), (1, 2), (2, 3), (3, 0), (3, 4)


def write_nc(rel, hours, lat, lon, values, nodata, long_name):
    path = os.path.join(ROOT, rel)
    if os.path.exists(path):
        os.remove(path)
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_OFFSET") as nc:
        nc.title = f"Strata analysis golden input ({os.path.basename(rel)}), see scripts/goldens/make_analysis_goldens.py"
        nc.Conventions = "CF-1.8"
        nc.createDimension("time", len(hours))
        nc.createDimension("lat", len(lat))
        nc.createDimension("lon", len(lon))
        t = nc.createVariable("time", "f8", ("time",))
        t.units = TIME_UNITS
        t.calendar = "standard"
        t.standard_name = "time"
        t.axis = "T"
        t[:] = np.asarray(hours, dtype=np.float64)
        y = nc.createVariable("lat", "f8", ("lat",))
        y.units = "degrees_north"
        y.standard_name = "latitude"
        y.axis = "Y"
        y[:] = lat
        x = nc.createVariable("lon", "f8", ("lon",))
        x.units = "degrees_east"
        x.standard_name = "longitude"
        x.axis = "X"
        x[:] = lon
        v = nc.createVariable("tas", "f4", ("time", "lat", "lon"), fill_value=np.float32(FILL))
        v.units = "degC"
        v.long_name = long_name
        v.set_auto_maskandscale(False)
        stored = np.where(nodata, FILL, values).astype(np.float32)
        assert np.array_equal(stored[~nodata].astype(np.float64), values[~nodata]), "values must be exact in float32"
        v[:] = stored
    return path


def daily_dates():
    return [dt.date(2019, 1, 1) + dt.timedelta(days=k) for k in range(1096)]


def make_daily():
    rng = np.random.default_rng(20190101)
    dates = daily_dates()
    T = len(dates)
    assert T == 1096 and dates[-1] == dt.date(2021, 12, 31) and dt.date(2020, 2, 29) in dates
    d = np.arange(T, dtype=np.float64)
    values = np.zeros((T, 4, 5))
    seasonal = np.zeros((T, 4, 5))
    for r in range(4):
        for c in range(5):
            base = 14.0 + 0.8 * r - 0.3 * c
            amp = 5.0 + 1.5 * r
            slope = (c - 2) * 0.0025 + 0.0007 * r  # per day
            cyc = base + amp * np.sin(2 * np.pi * (d - 105.0) / 365.25)
            noise = rng.normal(0.0, 1.2, T)
            values[:, r, c] = np.round((cyc + slope * (d - 548.0) + noise) * 16) / 16
            seasonal[:, r, c] = np.round(cyc * 16) / 16
    nodata = np.zeros(values.shape, bool)
    values[:, CONST[0], CONST[1]] = 2.5
    nodata[:, ALLFILL[0], ALLFILL[1]] = True
    for k, day in enumerate(dates):
        if (day.year == 2019 and day.month == 1 and 5 <= day.day <= 12) or day == dt.date(2020, 2, 29) or (
            day.year == 2020 and day.month == 7 and 10 <= day.day <= 20
        ):
            nodata[k, CTRLFILL[0], CTRLFILL[1]] = True
    keep = {dt.date(2019, 3, 1), dt.date(2020, 6, 15), dt.date(2021, 9, 30)}
    for k, day in enumerate(dates):
        nodata[k, SPARSE[0], SPARSE[1]] = day not in keep
    nodata[:, RANDFILL[0], RANDFILL[1]] = rng.random(T) < 0.08
    values[:, ALTERN[0], ALTERN[1]] = np.where(np.arange(T) % 2 == 0, 1.0, -1.0)
    values[nodata] = np.nan
    hours = d * 24.0
    write_nc(DAILY, hours, DAILY_LAT, DAILY_LON, values, nodata, "synthetic daily temperature")

    # the reference rasters for EXTERNAL_RASTER
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the all-nodata pixel
        mean = np.round(np.nanmean(np.where(nodata, np.nan, values), axis=0) * 16) / 16
    mean[ALTERN] = 0.0  # exactly the ALL mean of the alternating pixel
    ref_one_nodata = np.isnan(mean)
    ref_one_nodata[1, 1] = True
    write_nc(REF_ONE, [0.0], DAILY_LAT, DAILY_LON, np.where(ref_one_nodata, 0.0, mean)[None], ref_one_nodata[None], "reference mean")

    ref = seasonal.copy()
    ref_nodata = np.zeros(ref.shape, bool)
    for k, day in enumerate(dates):
        if day.year == 2020 and day.month == 3:
            ref_nodata[k, 2, 1] = True
        ref[k, ALTERN[0], ALTERN[1]] = 0.0 if day.day == 1 else 0.5
    write_nc(REF_MULTI, hours, DAILY_LAT, DAILY_LON, np.where(ref_nodata, 0.0, ref), ref_nodata, "reference mean per day")


def make_hourly():
    rng = np.random.default_rng(20191231)
    start = dt.datetime(2019, 12, 31)
    drop = {dt.datetime(2019, 12, 31, 23, 30), dt.datetime(2019, 12, 31, 23, 45)}
    drop |= {dt.datetime(2020, 1, 1, 5, m) for m in (15, 30, 45)}
    times = [start + dt.timedelta(minutes=15 * k) for k in range(3 * 96)]
    times = [t for t in times if t not in drop]
    hours = np.array([(t - dt.datetime(2019, 1, 1)) / dt.timedelta(hours=1) for t in times])
    T = len(times)
    tod = np.array([t.hour + t.minute / 60 for t in times])
    values = np.zeros((T, 3, 4))  # file order: south-up
    for r in range(3):
        for c in range(4):
            cyc = 22.0 + 0.5 * r + 0.25 * c + 5.0 * np.sin(2 * np.pi * (tod - 9.0) / 24.0)
            values[:, r, c] = np.round((cyc + rng.normal(0.0, 0.8, T)) * 32) / 32
    nodata = np.zeros(values.shape, bool)
    nodata[:, 0, 1] = rng.random(T) < 0.15  # file row 0 = north-up row 2
    for k, t in enumerate(times):
        if t.date() == dt.date(2020, 1, 2) and t.hour == 12:
            nodata[k, 2, 3] = True  # file row 2 = north-up row 0
    values[nodata] = np.nan
    write_nc(HOURLY, hours, HOURLY_LAT, HOURLY_LON, values, nodata, "synthetic quarter-hourly temperature")


# ======================================================================================
# 2. Reading (xarray only) into (T, Z, Y, X) float64 north-up cubes, nodata = NaN
# ======================================================================================
_CACHE: dict = {}


def load(rel, var):
    key = (rel, var)
    if key in _CACHE:
        return _CACHE[key]
    path = os.path.join(ROOT, rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = xr.open_dataset(path, decode_times=False, mask_and_scale=True)
    da = raw[var]
    tdim = da.dims[0]
    zdim = da.dims[1] if da.ndim == 4 else None
    ydim, xdim = da.dims[-2], da.dims[-1]
    units = raw[tdim].attrs["units"]
    cal = raw[tdim].attrs.get("calendar", "standard")
    if " since 0000-" in units:
        # docs/formats.md: a year-0 reference is read as proleptic Gregorian, astronomical years
        times = cftime.num2date(raw[tdim].values, units, "proleptic_gregorian", has_year_zero=True)
        ms = cftime.date2num(times, "milliseconds since 1970-01-01", "proleptic_gregorian", has_year_zero=True)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dec = xr.open_dataset(path, mask_and_scale=True)
        assert cal in ("standard", "gregorian")
        ms = dec[tdim].values.astype("datetime64[ms]").astype(np.int64)
    t_ms = np.asarray(np.round(np.asarray(ms, dtype=np.float64)), dtype=np.int64)
    order = [d for d in (tdim, zdim, ydim, xdim) if d is not None]
    data = np.asarray(da.transpose(*order).values, dtype=np.float64)
    if zdim is None:
        data = data[:, None]
        z = None
    else:
        assert raw[zdim].attrs.get("positive") == "down"
        z = 0.0 - np.asarray(raw[zdim].values, dtype=np.float64)  # StdZ = -depth
    lat = np.asarray(raw[ydim].values)
    if lat[0] < lat[-1]:  # south-up on disk -> north-up
        data = data[:, :, ::-1, :]
    data = np.ascontiguousarray(data)
    out = {"t_ms": t_ms, "z": z, "data": data, "var": var}
    _CACHE[key] = out
    return out


def fields(t_ms):
    """UTC calendar fields (proleptic Gregorian, astronomical years) of epoch-ms times."""
    t = np.asarray(t_ms, dtype=np.int64).astype("datetime64[ms]")
    Y, M, D, H = (t.astype(f"datetime64[{u}]") for u in ("Y", "M", "D", "h"))
    year = Y.astype(np.int64) + 1970
    month = (M - Y.astype("datetime64[M]")).astype(np.int64) + 1
    day = (D - M.astype("datetime64[D]")).astype(np.int64) + 1
    doy = (D - Y.astype("datetime64[D]")).astype(np.int64) + 1
    hour = (H - D.astype("datetime64[h]")).astype(np.int64)
    return year, month, day, doy, hour


def check_fields():
    """The numpy calendar fields against Python's datetime and cftime (year 0)."""
    probe = [iso_ms(s) for s in ("2019-12-24", "2020-02-29T23:59:59", "2020-12-31T12:00", "1969-12-31T23:00", "1982-03-18T17:00")]
    for ms, y, m, d, doy, h in zip(probe, *fields(probe)):
        p = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=int(ms))
        assert (y, m, d, doy, h) == (p.year, p.month, p.day, p.timetuple().tm_yday, p.hour), (ms, y, m, d, doy, h)
    ms0 = iso_ms("0000-03-01T05:00")
    c = cftime.num2date(ms0, "milliseconds since 1970-01-01", "proleptic_gregorian", has_year_zero=True)
    y, m, d, doy, h = (int(a[0]) for a in fields([ms0]))
    assert (y, m, d, h) == (c.year, c.month, c.day, c.hour) and doy == c.dayofyr == 61, (y, m, d, doy, h, c)


# ======================================================================================
# 3. GenerateMultidimensionalAnomaly
# ======================================================================================
METHODS = [
    "DIFFERENCE_FROM_MEAN",
    "PERCENT_DIFFERENCE_FROM_MEAN",
    "PERCENT_OF_MEAN",
    "Z_SCORE",
    "DIFFERENCE_FROM_MEDIAN",
    "PERCENT_DIFFERENCE_FROM_MEDIAN",
    "PERCENT_OF_MEDIAN",
]
INTERVALS = ["ALL", "YEARLY", "RECURRING_MONTHLY", "RECURRING_WEEKLY", "RECURRING_DAILY", "HOURLY"]


def group_keys(t_ms, interval):
    year, month, day, doy, hour = fields(t_ms)
    if interval == "ALL":
        return [0] * len(t_ms)
    if interval == "YEARLY":
        return [int(v) for v in year]
    if interval == "RECURRING_MONTHLY":
        return [int(v) for v in month]
    if interval == "RECURRING_WEEKLY":
        return [min(52, (int(v) - 1) // 7 + 1) for v in doy]
    if interval == "RECURRING_DAILY":
        return [int(m) * 100 + int(d) for m, d in zip(month, day)]
    if interval == "HOURLY":
        return list(zip(year.tolist(), month.tolist(), day.tolist(), hour.tolist()))
    raise ValueError(interval)


def apply_method(method, x, mu, med, s):
    """x, mu, med, s arrays (NaN = nodata); division by zero -> NaN."""
    R = med if method.endswith("_MEDIAN") else mu
    with np.errstate(divide="ignore", invalid="ignore"):
        if method.startswith("DIFFERENCE_FROM"):
            v = x - R
        elif method.startswith("PERCENT_DIFFERENCE_FROM"):
            den = (x + R) / 2
            v = np.where(den == 0, np.nan, np.abs(x - R) / den)
        elif method.startswith("PERCENT_OF"):
            v = np.where(R == 0, np.nan, x / R)
        elif method == "Z_SCORE":
            v = np.where(s == 0, np.nan, (x - mu) / s)
        else:
            raise ValueError(method)
    v = np.where(np.isnan(x), np.nan, v)
    assert not np.isinf(v).any()
    return v


def anomaly_cube(cube, method, interval, ignore, ref=None):
    """Vectorised over pixels: the whole output cube (T, Z, Y, X)."""
    data = cube["data"]
    out = np.full(data.shape, np.nan)
    if interval == "EXTERNAL_RASTER":
        assert method != "Z_SCORE"
        R = ref  # (T or 1, Z, Y, X), broadcast
        R = np.broadcast_to(R, data.shape)
        return apply_method(method, data, R, R, None)
    keys = group_keys(cube["t_ms"], interval)
    for key in sorted(set(keys), key=repr):
        idx = [i for i, k in enumerate(keys) if k == key]
        g = data[idx]
        if not ignore:
            g = np.where(np.isnan(g).any(axis=0, keepdims=True), np.nan, g)
        n = (~np.isnan(g)).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mu = np.where(n > 0, np.nansum(g, axis=0) / np.maximum(n, 1), np.nan)
            s = np.sqrt(np.where(n > 0, np.nansum((g - mu) ** 2, axis=0) / np.maximum(n, 1), np.nan))
            med = np.nanmedian(g, axis=0)
        out[idx] = apply_method(method, g, mu, med, s)
    return out


def anomaly_scalar(cube, method, interval, ignore, ref, ti, zi, r, c):
    """Plain-Python re-computation of one output value, to cross-check the vectorised one."""
    data = cube["data"]
    x = data[ti, zi, r, c]
    if math.isnan(x):
        return math.nan
    if interval == "EXTERNAL_RASTER":
        R = ref[ti if ref.shape[0] > 1 else 0, zi, r, c]
        mu = med = R
        s = None
    else:
        keys = group_keys(cube["t_ms"], interval)
        vals = [data[i, zi, r, c] for i in range(len(keys)) if keys[i] == keys[ti]]
        if not ignore and any(math.isnan(v) for v in vals):
            return math.nan
        vals = [float(v) for v in vals if not math.isnan(v)]
        mu = math.fsum(vals) / len(vals)
        s = math.sqrt(math.fsum((v - mu) ** 2 for v in vals) / len(vals))
        med = statistics.median(vals)
    if math.isnan(mu):
        return math.nan
    R = med if method.endswith("_MEDIAN") else mu
    if method.startswith("DIFFERENCE_FROM"):
        return x - R
    if method.startswith("PERCENT_DIFFERENCE_FROM"):
        return math.nan if x + R == 0 else abs(x - R) / ((x + R) / 2)
    if method.startswith("PERCENT_OF"):
        return math.nan if R == 0 else x / R
    return math.nan if s == 0 else (x - mu) / s


def close(a, b, rel=1e-9, abs_=1e-12):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= abs_ + rel * max(abs(a), abs(b))


# -------- sample plans: (t, z, row, col) per file ------------------------------------
def daily_index(text):
    return (dt.date.fromisoformat(text) - dt.date(2019, 1, 1)).days


DAILY_KEY_DATES = [
    "2019-01-01",
    "2019-01-07",
    "2019-01-08",
    "2019-03-01",
    "2019-12-23",
    "2019-12-24",
    "2019-12-31",
    "2020-01-01",
    "2020-02-28",
    "2020-02-29",
    "2020-03-01",
    "2020-12-22",
    "2020-12-23",
    "2020-12-30",
    "2020-12-31",
    "2021-03-01",
    "2021-12-31",
]
DAILY_GENERAL = [(1, 0), (1, 1), (2, 0), (2, 2), (0, 1), (0, 2), (0, 3), (1, 3), (1, 4), (2, 1), (2, 4), (3, 1), (3, 2), (3, 3)]
DAILY_SPECIAL = [
    ("2020-02-29", CONST),
    ("2019-07-04", CONST),
    ("2019-07-04", ALLFILL),
    ("2019-01-06", CTRLFILL),
    ("2019-01-20", CTRLFILL),
    ("2020-02-28", CTRLFILL),
    ("2020-07-25", CTRLFILL),
    ("2019-03-01", SPARSE),
    ("2020-06-15", SPARSE),
    ("2019-01-01", ALTERN),
    ("2019-12-31", ALTERN),
    ("2020-03-01", ALTERN),
]


def daily_plan(cube, seed):
    rng = np.random.default_rng(seed)
    plan = []
    for k, date in enumerate(DAILY_KEY_DATES):
        r, c = DAILY_GENERAL[(k + seed) % len(DAILY_GENERAL)]
        plan.append((daily_index(date), 0, r, c))
    for date, (r, c) in DAILY_SPECIAL:
        plan.append((daily_index(date), 0, r, c))
    # the random-nodata pixel: one nodata and one valid slice
    col = cube["data"][:, 0, RANDFILL[0], RANDFILL[1]]
    bad, good = np.nonzero(np.isnan(col))[0], np.nonzero(~np.isnan(col))[0]
    plan.append((int(bad[rng.integers(len(bad))]), 0, *RANDFILL))
    plan.append((int(good[rng.integers(len(good))]), 0, *RANDFILL))
    plan.append((int(rng.integers(1096)), 0, *DAILY_GENERAL[int(rng.integers(len(DAILY_GENERAL)))]))
    return plan


def hourly_plan(cube, seed):
    rng = np.random.default_rng(seed)
    t = cube["t_ms"]
    want = [
        "2019-12-31T00:00",
        "2019-12-31T00:45",
        "2019-12-31T23:00",
        "2019-12-31T23:15",
        "2020-01-01T00:00",
        "2020-01-01T05:00",
        "2020-01-01T06:30",
        "2020-01-02T12:15",
        "2020-01-02T13:00",
        "2020-01-02T23:45",
    ]
    plan = []
    for k, w in enumerate(want):
        i = int(np.nonzero(t == iso_ms(w))[0][0])
        plan.append((i, 0, k % 3, (k * 3 + seed) % 4))
    plan.append((int(np.nonzero(t == iso_ms("2020-01-02T12:30"))[0][0]), 0, 0, 3))  # whole hour nodata
    plan.append((int(np.nonzero(t == iso_ms("2020-01-02T12:30"))[0][0]), 0, 0, 2))
    col = cube["data"][:, 0, 2, 1]
    bad, good = np.nonzero(np.isnan(col))[0], np.nonzero(~np.isnan(col))[0]
    plan.append((int(bad[rng.integers(len(bad))]), 0, 2, 1))
    plan.append((int(good[rng.integers(len(good))]), 0, 2, 1))
    for _ in range(4):
        plan.append((int(rng.integers(len(t))), 0, int(rng.integers(3)), int(rng.integers(4))))
    return plan


def navy_plan(cube, seed):
    rng = np.random.default_rng(seed)
    data = cube["data"]
    T, _, Y, X = data.shape
    plan = [(int(t), 0, int(r), int(c)) for t, _, r, c in np.argwhere(data == 0)]  # x = 0 exactly
    plan += [(0, 0, 0, 0), (T - 1, 0, Y - 1, X - 1), (5, 0, 0, 77), (130, 0, Y - 1, 3), (12, 0, 36, 71)]
    while len(plan) < 25:
        plan.append((int(rng.integers(T)), 0, int(rng.integers(Y)), int(rng.integers(X))))
    return plan


def ocean_plan(cube, seed):
    rng = np.random.default_rng(seed)
    data = cube["data"]
    T, Z, Y, X = data.shape
    deep = np.argwhere(~np.isnan(data[0, Z - 1]))
    land = np.argwhere(np.isnan(data[0, 0]))
    plan = []
    for zi in (0, 4, 10, Z - 1):
        for _ in range(4):
            r, c = deep[int(rng.integers(len(deep)))]
            plan.append((int(rng.integers(T)), zi, int(r), int(c)))
        r, c = land[int(rng.integers(len(land)))]
        plan.append((int(rng.integers(T)), zi, int(r), int(c)))
    # one pixel with water at the surface but land at 1000 m
    shallow = np.argwhere(~np.isnan(data[0, 0]) & np.isnan(data[0, Z - 1]))
    r, c = shallow[int(rng.integers(len(shallow)))]
    plan += [(3, 0, int(r), int(c)), (3, Z - 1, int(r), int(c))]
    return plan


PLANS = {NAVY: navy_plan, DAILY: daily_plan, HOURLY: hourly_plan, OCEAN: ocean_plan}
VARS = {NAVY: "UWND", DAILY: "tas", HOURLY: "tas", OCEAN: "TEMP"}


def anomaly_cases():
    cases = []

    def add(name, file, method, interval, ignore=True, ref=None, extra=(), variables=None):
        params = {}
        if variables:
            params["variables"] = j(variables)
        params.update({"method": method, "calculationInterval": interval, "ignoreNoData": "true" if ignore else "false"})
        if ref:
            params["referenceMeanRaster"] = j({"uri": f"{SHARE}/{os.path.basename(ref)}"})
        cases.append(dict(name=name, file=file, params=params, method=method, interval=interval, ignore=ignore, ref=ref, extra=list(extra)))

    short = {
        "DIFFERENCE_FROM_MEAN": "diff_mean",
        "PERCENT_DIFFERENCE_FROM_MEAN": "pctdiff_mean",
        "PERCENT_OF_MEAN": "pctof_mean",
        "Z_SCORE": "zscore",
        "DIFFERENCE_FROM_MEDIAN": "diff_median",
        "PERCENT_DIFFERENCE_FROM_MEDIAN": "pctdiff_median",
        "PERCENT_OF_MEDIAN": "pctof_median",
    }
    ishort = {
        "ALL": "all",
        "YEARLY": "yearly",
        "RECURRING_MONTHLY": "monthly",
        "RECURRING_WEEKLY": "weekly",
        "RECURRING_DAILY": "daily",
        "HOURLY": "hourly",
    }
    # every method with ALL and RECURRING_MONTHLY on the navy winds (UWND)
    for interval in ("ALL", "RECURRING_MONTHLY"):
        for m in METHODS:
            add(f"{short[m]}_{ishort[interval]}_navy", NAVY, m, interval, variables=["UWND"])
    # every (method, interval) pair not covered above on daily.nc (hourly.nc for HOURLY)
    for interval in ("ALL", "YEARLY", "RECURRING_MONTHLY", "RECURRING_WEEKLY", "RECURRING_DAILY", "HOURLY"):
        for m in METHODS:
            if interval in ("ALL", "RECURRING_MONTHLY") and m not in ("DIFFERENCE_FROM_MEAN", "Z_SCORE", "DIFFERENCE_FROM_MEDIAN", "PERCENT_OF_MEAN"):
                continue  # (these pairs are on the navy winds already)
            file = HOURLY if interval == "HOURLY" else DAILY
            add(f"{short[m]}_{ishort[interval]}_{'hourly' if file == HOURLY else 'daily'}", file, m, interval)
    # HOURLY on daily data: every group is one slice, s = 0 -> Z_SCORE nodata everywhere
    add("zscore_hourly_daily_all_single", DAILY, "Z_SCORE", "HOURLY")
    add("diff_mean_hourly_daily_all_single", DAILY, "DIFFERENCE_FROM_MEAN", "HOURLY")
    # ignoreNoData=false
    ctrl = [(daily_index(d), 0, *CTRLFILL) for d in ("2019-01-20", "2021-01-05", "2019-02-10", "2021-03-03", "2020-07-01", "2019-08-08", "2019-11-30")]
    add("diff_mean_monthly_daily_keepnodata", DAILY, "DIFFERENCE_FROM_MEAN", "RECURRING_MONTHLY", ignore=False, extra=ctrl)
    add("zscore_yearly_daily_keepnodata", DAILY, "Z_SCORE", "YEARLY", ignore=False, extra=ctrl)
    # ocean atlas TEMP: depth kept, year-0 times
    add("diff_mean_monthly_ocean", OCEAN, "DIFFERENCE_FROM_MEAN", "RECURRING_MONTHLY")
    add("zscore_monthly_ocean_single", OCEAN, "Z_SCORE", "RECURRING_MONTHLY")
    add("zscore_all_ocean", OCEAN, "Z_SCORE", "ALL")
    add("diff_median_yearly_ocean", OCEAN, "DIFFERENCE_FROM_MEDIAN", "YEARLY")
    # EXTERNAL_RASTER
    ext_extra = [(daily_index(d), 0, r, c) for d, (r, c) in [("2019-05-05", (1, 1)), ("2020-03-10", (2, 1)), ("2020-04-01", (2, 1)), ("2020-05-01", ALTERN), ("2020-05-02", ALTERN)]]
    for ref in (REF_ONE, REF_MULTI):
        tag = "one" if ref == REF_ONE else "multi"
        add(f"diff_mean_external_{tag}_daily", DAILY, "DIFFERENCE_FROM_MEAN", "EXTERNAL_RASTER", ref=ref, extra=ext_extra)
        add(f"pctof_mean_external_{tag}_daily", DAILY, "PERCENT_OF_MEAN", "EXTERNAL_RASTER", ref=ref, extra=ext_extra)
    add("pctdiff_median_external_multi_daily", DAILY, "PERCENT_DIFFERENCE_FROM_MEDIAN", "EXTERNAL_RASTER", ref=REF_MULTI, extra=ext_extra)
    return cases


def sample_entry(cube, ti, zi, r, c, key, v):
    index = {"StdTime": int(ti)}
    at = {"StdTime": int(cube["t_ms"][ti])}
    if cube["z"] is not None:
        index["StdZ"] = int(zi)
        at["StdZ"] = float(cube["z"][zi]) + 0.0
    return {"variable": cube["var"], "index": index, "at": at, "row": int(r), "col": int(c), key: v}


def build_anomaly():
    out = []
    stats_nodata = 0
    for case in anomaly_cases():
        cube = load(case["file"], VARS[case["file"]])
        ref = load(case["ref"], "tas")["data"] if case["ref"] else None
        if ref is not None:
            assert ref.shape[0] in (1, cube["data"].shape[0]) and ref.shape[1:] == cube["data"].shape[1:]
            if ref.shape[0] > 1:
                assert np.array_equal(load(case["ref"], "tas")["t_ms"], cube["t_ms"])
        res = anomaly_cube(cube, case["method"], case["interval"], case["ignore"], ref)
        seed = zlib.crc32(case["name"].encode()) % 1000
        plan = list(dict.fromkeys(PLANS[case["file"]](cube, seed) + case["extra"]))
        samples = []
        for ti, zi, r, c in plan:
            v = res[ti, zi, r, c]
            w = anomaly_scalar(cube, case["method"], case["interval"], case["ignore"], ref, ti, zi, r, c)
            assert close(v, w), (case["name"], ti, zi, r, c, v, w)
            samples.append(sample_entry(cube, ti, zi, r, c, "value", num(v)))
        nulls = sum(s["value"] is None for s in samples)
        stats_nodata += nulls
        out.append({"name": case["name"], "file": case["file"], "params": case["params"], "samples": samples})
        print(f"  anomaly {case['name']:42s} {len(samples):3d} samples, {nulls:2d} null")
        sanity_anomaly(case, cube, res)
    return out


def sanity_anomaly(case, cube, res):
    data = cube["data"]
    if case["method"] == "DIFFERENCE_FROM_MEAN" and case["interval"] in ("ALL", "RECURRING_MONTHLY", "YEARLY"):
        keys = group_keys(cube["t_ms"], case["interval"])
        for key in set(keys):
            idx = [i for i, k in enumerate(keys) if k == key]
            tot = np.nansum(res[idx], axis=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scale = np.nan_to_num(np.nanmax(np.abs(data), axis=0), nan=0.0) + 1
            assert np.all(np.abs(tot) <= 1e-9 * scale * len(idx)), case["name"]
    if case["method"] == "Z_SCORE" and case["ignore"] and case["interval"] != "HOURLY":
        keys = group_keys(cube["t_ms"], case["interval"])
        for key in set(keys):
            idx = [i for i, k in enumerate(keys) if k == key]
            g = res[idx]
            n = (~np.isnan(g)).sum(axis=0)
            ok = n > 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                var = np.nanmean(g**2, axis=0)
            assert np.allclose(var[ok], 1.0, atol=1e-9), case["name"]  # population z-scores
    if case["interval"] == "ALL" and case["file"] == DAILY and case["method"] == "PERCENT_OF_MEAN":
        assert np.isnan(res[:, 0, ALTERN[0], ALTERN[1]]).all()  # R = 0
    if case["interval"] == "ALL" and case["file"] == DAILY and case["method"] == "Z_SCORE":
        assert np.isnan(res[:, 0, CONST[0], CONST[1]]).all()  # s = 0


# ======================================================================================
# 4. GenerateTrendRaster
# ======================================================================================
def x_days(t_ms):
    return np.asarray(t_ms, dtype=np.float64) / DAY_MS


def model_spec(params):
    kind = params.get("trendLineType", "LINEAR")
    if kind == "LINEAR":
        return {"kind": kind, "p": 2}
    if kind == "POLYNOMIAL":
        order = int(params.get("frequency", "2"))
        return {"kind": kind, "order": order, "p": order + 1}
    if kind == "HARMONIC":
        nh = int(params.get("frequency", "1"))
        unit = params.get("cycleUnit", "YEARS")
        L = float(params.get("cycleLength", "1")) * (365.25 if unit == "YEARS" else 1.0)
        return {"kind": kind, "harmonics": nh, "L": L, "p": 2 + 2 * nh}
    return {"kind": kind, "season": params.get("seasonalPeriod", "DAYS")}


def band_names(params):
    spec = model_spec(params)
    k = spec["kind"]
    if k == "LINEAR":
        names = ["Slope", "Intercept"]
    elif k == "POLYNOMIAL":
        names = [f"Polynomial_{i}" for i in range(spec["order"], -1, -1)]
    elif k == "HARMONIC":
        names = ["Slope", "Intercept"]
        for i in range(1, spec["harmonics"] + 1):
            names += [f"Harmonic_sin{i}", f"Harmonic_cos{i}"]
    else:
        return ["Sens_Slope", "P_Value", "MK_Score", "S_Variance", "Z_Score"]
    if params.get("rmse", "true") == "true":
        names.append("RMSE")
    if params.get("r2", "false") == "true":
        names.append("R2")
    if params.get("slopePValue", "false") == "true":
        assert k != "POLYNOMIAL"
        names.append("SlopePValue")
    return names


def centring(x_all):
    c = float(np.mean(x_all))
    h = float((np.max(x_all) - np.min(x_all)) / 2) or 1.0
    return c, h


def fit_least_squares(x_all, y_all, params):
    """One pixel: {coef: {...documented basis...}, bands: [...]} or None (nodata)."""
    spec = model_spec(params)
    ignore = params.get("ignoreNoData", "true") == "true"
    valid = ~np.isnan(y_all)
    if not ignore and not valid.all():
        return None
    xs, ys = x_all[valid], y_all[valid]
    n, p = len(xs), spec["p"]
    if n <= p:
        return None
    c, h = centring(x_all)  # centre and scale from the dimension's values (all slices)
    xc = (xs - c) / h
    if spec["kind"] == "POLYNOMIAL":
        cols = [xc**k for k in range(spec["order"] + 1)]
    else:
        cols = [np.ones_like(xc), xc]
        if spec["kind"] == "HARMONIC":
            for i in range(1, spec["harmonics"] + 1):
                w = 2 * np.pi * i * xs / spec["L"]
                cols += [np.sin(w), np.cos(w)]
    A = np.column_stack(cols)
    a, *_ = np.linalg.lstsq(A, ys, rcond=None)
    resid = ys - A @ a
    sse = float(np.sum(resid**2))
    sst = float(np.sum((ys - np.mean(ys)) ** 2))
    # back to the documented basis
    if spec["kind"] == "POLYNOMIAL":
        P = spec["order"]
        b = [0.0] * (P + 1)
        for k in range(P + 1):
            for jj in range(k + 1):  # ((x - c)/h)^k = sum_j C(k,j) x^j (-c)^(k-j) / h^k
                b[jj] += a[k] * math.comb(k, jj) * (-c) ** (k - jj) / h**k
        coef = {"poly": b}
        bands = [b[k] for k in range(P, -1, -1)]
    else:
        b1 = a[1] / h
        b0 = a[0] - a[1] * c / h
        coef = {"b0": b0, "b1": b1, "harm": list(a[2:])}
        bands = [b1, b0] + list(a[2:])
    if params.get("rmse", "true") == "true":
        bands.append(math.sqrt(sse / n))
    if params.get("r2", "false") == "true":
        bands.append(math.nan if sst == 0 else 1 - sse / sst)
    if params.get("slopePValue", "false") == "true":
        df = n - p
        if sse == 0 and a[1] != 0:
            pv = 0.0
        else:
            cov = (sse / df) * np.linalg.inv(A.T @ A)
            t = a[1] / math.sqrt(cov[1, 1])
            pv = float(2 * stats.t.sf(abs(t), df))
        bands.append(pv)
    return {"coef": coef, "spec": spec, "bands": bands, "centred": (a, c, h)}


def mk_pairs(ts, vs):
    """Plain O(n^2) Mann-Kendall pieces over values in order of x: S, Var(S), pair slopes."""
    n = len(vs)
    S = 0
    slopes = []
    for i in range(n):
        vi, ti = vs[i], ts[i]
        for k in range(i + 1, n):
            d = vs[k] - vi
            S += (d > 0) - (d < 0)
            slopes.append(d / (ts[k] - ti))
    var18 = n * (n - 1) * (2 * n + 5)  # 18 Var(S), an exact integer
    for t in Counter(vs).values():
        var18 -= t * (t - 1) * (2 * t + 5)
    return S, var18, slopes


def mk_finish(S, var18, slopes):
    var = var18 / 18.0
    if S > 0:
        z = (S - 1) / math.sqrt(var)
    elif S < 0:
        z = (S + 1) / math.sqrt(var)
    else:
        z = 0.0
    p = math.erfc(abs(z) / math.sqrt(2.0))  # = 2 (1 - Phi(|z|))
    sen = statistics.median(slopes)  # mean of the two middle ones when even
    return [float(sen), float(p), float(S), float(var), float(z)]


def fit_kendall(x_all, y_all, t_ms, params):
    spec = model_spec(params)
    ignore = params.get("ignoreNoData", "true") == "true"
    valid = ~np.isnan(y_all)
    if not ignore and not valid.all():
        return None
    order = np.argsort(x_all, kind="stable")
    ts = [float(x_all[i]) for i in order if valid[i]]
    vs = [float(y_all[i]) for i in order if valid[i]]
    if len(vs) < 4:
        return None
    if spec["kind"] == "MANN-KENDALL":
        return {"bands": mk_finish(*mk_pairs(ts, vs))}
    _, month, _, doy, _ = fields(t_ms)
    season = month if spec["season"] == "MONTHS" else doy
    seasons = [int(season[i]) for i in order if valid[i]]
    S, var18, slopes = 0, 0, []
    for key in sorted(set(seasons)):
        sel = [k for k in range(len(vs)) if seasons[k] == key]
        s_, v_, sl_ = mk_pairs([ts[k] for k in sel], [vs[k] for k in sel])
        S += s_
        var18 += v_  # Var(S) summed over seasons (exactly, as integers x 18)
        slopes += sl_
    return {"bands": mk_finish(S, var18, slopes)}


def fit_pixel(file, var, params, zi, r, c, _cache={}):
    key = (file, var, j(params), zi, r, c)
    if key not in _cache:
        cube = load(file, var)
        x_all = x_days(cube["t_ms"])
        y_all = cube["data"][:, zi, r, c]
        if params.get("trendLineType", "LINEAR") in ("MANN-KENDALL", "SEASONAL-KENDALL"):
            _cache[key] = fit_kendall(x_all, y_all, cube["t_ms"], params)
        else:
            _cache[key] = fit_least_squares(x_all, y_all, params)
    return _cache[key]


NAVY_TREND_PIXELS = [(0, 0), (72, 143), (36, 0), (10, 20), (20, 100), (30, 57), (45, 130), (50, 33), (60, 88), (66, 12), (15, 140), (40, 71)]
DAILY_TREND_PIXELS = [(r, c) for r in range(4) for c in range(5)]


def trend_cases():
    cases = []

    def add(name, file, params, pixels, zs=(0,)):
        p = {"dimension": "StdTime"}
        if file == NAVY:
            p["variables"] = j(["UWND"])
        p.update(params)
        cases.append({"name": name, "file": file, "params": p, "pixels": pixels, "zs": zs})

    stat3 = {"rmse": "true", "r2": "true", "slopePValue": "true"}
    stat2 = {"rmse": "true", "r2": "true"}
    no_const = [px for px in DAILY_TREND_PIXELS if px != CONST]
    for file, tag, px in ((NAVY, "navy", NAVY_TREND_PIXELS), (DAILY, "daily", DAILY_TREND_PIXELS)):
        # The constant pixel is only in the LINEAR-without-SlopePValue and Kendall cases: its
        # exact answer has zero coefficients that a fit only reproduces up to rounding noise
        # (amplified by the back-conversion for higher orders), and its SlopePValue is 0/0.
        px_p = no_const if file == DAILY else px
        add(f"linear_{tag}", file, {"trendLineType": "LINEAR", **stat3}, px_p)
        add(f"poly2_{tag}", file, {"trendLineType": "POLYNOMIAL", "frequency": "2", **stat2}, px_p)
        add(f"poly3_{tag}", file, {"trendLineType": "POLYNOMIAL", "frequency": "3", **stat2}, px_p)
        add(f"harmonic1_years_{tag}", file, {"trendLineType": "HARMONIC", "frequency": "1", "cycleLength": "1", "cycleUnit": "YEARS", **stat3}, px_p)
        add(f"harmonic2_years_{tag}", file, {"trendLineType": "HARMONIC", "frequency": "2", "cycleLength": "1", "cycleUnit": "YEARS", **stat2}, px_p)
        add(f"mk_{tag}", file, {"trendLineType": "MANN-KENDALL", "rmse": "false"}, px)
        add(f"sk_months_{tag}", file, {"trendLineType": "SEASONAL-KENDALL", "seasonalPeriod": "MONTHS", "rmse": "false"}, px)
        add(f"sk_days_{tag}", file, {"trendLineType": "SEASONAL-KENDALL", "seasonalPeriod": "DAYS", "rmse": "false"}, px)
    add("harmonic2_days365_daily", DAILY, {"trendLineType": "HARMONIC", "frequency": "2", "cycleLength": "365", "cycleUnit": "DAYS", **stat2}, no_const)
    add("linear_defaults_daily", DAILY, {}, DAILY_TREND_PIXELS)  # LINEAR, rmse only (the defaults)
    add("linear_keepnodata_daily", DAILY, {"trendLineType": "LINEAR", "ignoreNoData": "false", **stat2}, DAILY_TREND_PIXELS)
    ocean = load(OCEAN, "TEMP")["data"]
    rng = np.random.default_rng(7)
    deep = np.argwhere(~np.isnan(ocean[0, 10]))
    land = np.argwhere(np.isnan(ocean[0, 0]))
    opx = [tuple(int(v) for v in deep[int(rng.integers(len(deep)))]) for _ in range(6)] + [tuple(int(v) for v in land[0])]
    add("linear_ocean", OCEAN, {"variables": j(["TEMP"]), "trendLineType": "LINEAR", **stat3}, opx, zs=(0, 10))
    add("mk_ocean", OCEAN, {"variables": j(["TEMP"]), "trendLineType": "MANN-KENDALL", "rmse": "false"}, opx, zs=(0, 10))
    return cases


def build_trend():
    out = []
    by_name = {}
    for case in trend_cases():
        var = VARS[case["file"]]
        cube = load(case["file"], var)
        bands = band_names(case["params"])
        c, h = centring(x_days(cube["t_ms"]))
        samples = []
        for zi in case["zs"]:
            for r, cc in case["pixels"]:
                f = fit_pixel(case["file"], var, case["params"], zi, r, cc)
                vals = None if f is None else [num(v) for v in f["bands"]]
                if vals is not None:
                    assert len(vals) == len(bands), (case["name"], bands, vals)
                    if all(v is None for v in vals):
                        vals = None
                e = {"variable": var, "index": {}, "row": r, "col": cc, "values": vals}
                if cube["z"] is not None:
                    e["index"]["StdZ"] = zi
                    e = {**e, "at": {"StdZ": float(cube["z"][zi]) + 0.0}}
                samples.append(e)
        rec = {"name": case["name"], "file": case["file"], "params": case["params"], "bands": bands, "xCenter": c, "xScale": h, "samples": samples}
        out.append(rec)
        by_name[case["name"]] = case
        nulls = sum(s["values"] is None for s in samples)
        print(f"  trend   {case['name']:42s} {len(samples):3d} samples, {nulls:2d} null, bands {','.join(bands)}")
    return out, by_name


def sanity_trend():
    # LINEAR slope/intercept = scipy.stats.linregress on raw x
    for file, var, pixels in ((NAVY, "UWND", NAVY_TREND_PIXELS[:5]), (DAILY, "tas", [(1, 1), (2, 2), (3, 0)]), (OCEAN, "TEMP", None)):
        cube = load(file, var)
        x = x_days(cube["t_ms"])
        if pixels is None:
            good = np.argwhere(~np.isnan(cube["data"][0, 0]))
            pixels = [tuple(good[len(good) // 2])]
        for r, c in pixels:
            y = cube["data"][:, 0, r, c]
            ok = ~np.isnan(y)
            lr = stats.linregress(x[ok], y[ok])
            f = fit_least_squares(x, y, {"trendLineType": "LINEAR", "rmse": "true", "r2": "true", "slopePValue": "true"})
            slope, icpt, rmse, r2, pv = f["bands"]
            assert math.isclose(slope, lr.slope, rel_tol=1e-9), (slope, lr.slope)
            assert math.isclose(icpt, lr.intercept, rel_tol=1e-9, abs_tol=1e-9), (icpt, lr.intercept)
            assert math.isclose(r2, lr.rvalue**2, rel_tol=1e-8, abs_tol=1e-12), (r2, lr.rvalue**2)
            assert math.isclose(pv, lr.pvalue, rel_tol=1e-6, abs_tol=1e-14), (pv, lr.pvalue)
    # POLYNOMIAL against numpy.polynomial (its own scaling, converted)
    cube = load(NAVY, "UWND")
    x = x_days(cube["t_ms"])
    for order in (2, 3):
        y = cube["data"][:, 0, 30, 57]
        f = fit_least_squares(x, y, {"trendLineType": "POLYNOMIAL", "frequency": str(order), "rmse": "false"})
        ref = np.polynomial.Polynomial.fit(x, y, order).convert().coef
        xs = np.linspace(x.min(), x.max() + 1000, 7)
        mine = sum(b * xs**k for k, b in enumerate(f["coef"]["poly"]))
        theirs = sum(b * xs**k for k, b in enumerate(ref))
        assert np.allclose(mine, theirs, rtol=1e-7, atol=1e-7), (mine, theirs)
        assert np.allclose(f["coef"]["poly"], ref, rtol=1e-5), (f["coef"]["poly"], ref)
    # HARMONIC: predictions from documented-basis coefficients = the centred fit's values
    y = cube["data"][:, 0, 30, 57]
    params = {"trendLineType": "HARMONIC", "frequency": "2", "cycleLength": "1", "cycleUnit": "YEARS"}
    f = fit_least_squares(x, y, params)
    a, c, h = f["centred"]
    xc = (x - c) / h
    cols = [np.ones_like(x), xc] + [g(2 * np.pi * i * x / 365.25) for i in (1, 2) for g in (np.sin, np.cos)]
    assert np.allclose(np.column_stack(cols) @ a, [evaluate(f, v) for v in x], rtol=1e-10, atol=1e-10)
    # Sen's slope / Mann-Kendall on a perfectly linear series; Var(S) with ties
    ts = [float(v) for v in range(10)]
    sen, p, S, var, z = mk_finish(*mk_pairs(ts, [3.0 + 0.25 * t for t in ts]))
    assert sen == 0.25 and S == 45 and var == 10 * 9 * 25 / 18 and p == math.erfc(z / math.sqrt(2)) and math.isclose(z, 44 / math.sqrt(125)), (sen, S, var, z)
    S2, var2, _ = mk_pairs([0.0, 1, 2, 3, 4], [1.0, 1.0, 2.0, 2.0, 2.0])
    assert S2 == 6 and var2 == 5 * 4 * 15 - 2 * 1 * 9 - 3 * 2 * 11
    # Mann-Kendall S against a vectorised numpy count, on a real series
    y = [float(v) for v in cube["data"][:, 0, 50, 33]]
    S3, _, sl = mk_pairs(list(x), y)
    yy = np.array(y)
    iu = np.triu_indices(len(yy), 1)
    assert S3 == int(np.sign(yy[iu[1]] - yy[iu[0]]).sum())
    assert statistics.median(sl) == float(np.median((yy[iu[1]] - yy[iu[0]]) / (x[iu[1]] - x[iu[0]])))
    # anomaly: the worked example of docs/tasks.md
    ex = {"t_ms": np.array([iso_ms("1990-01-15"), iso_ms("1991-01-15")]), "z": None, "data": np.array([1.0, 3.0]).reshape(2, 1, 1, 1)}
    assert anomaly_cube(ex, "DIFFERENCE_FROM_MEAN", "RECURRING_MONTHLY", True).ravel().tolist() == [-1.0, 1.0]
    print("  sanity checks passed (linregress, polynomial, harmonic, Sen/MK, worked example, sums of anomalies, z-score variances)")


# ======================================================================================
# 5. PredictUsingTrendRaster
# ======================================================================================
def evaluate(fit, x):
    spec = fit["spec"]
    co = fit["coef"]
    if spec["kind"] == "POLYNOMIAL":
        y = 0.0
        for b in reversed(co["poly"]):
            y = y * x + b
        return y
    y = co["b0"] + co["b1"] * x
    if spec["kind"] == "HARMONIC":
        for i in range(1, spec["harmonics"] + 1):
            w = 2 * math.pi * i * x / spec["L"]
            y += co["harm"][2 * i - 2] * math.sin(w) + co["harm"][2 * i - 1] * math.cos(w)
    return y


def add_months(when: dt.datetime, n: int) -> dt.datetime:
    """Calendar step: clamp the day to the end of the target month, keep the time of day."""
    index = when.year * 12 + (when.month - 1) + n
    y, m = divmod(index, 12)
    d = min(when.day, calendar.monthrange(y, m + 1)[1])
    return when.replace(year=y, month=m + 1, day=d)


def interval_times(start, end, step, unit):
    s0, e0 = dt.datetime.fromisoformat(start), dt.datetime.fromisoformat(end)
    fixed = {"HOURS": dt.timedelta(hours=1), "DAYS": dt.timedelta(days=1), "WEEKS": dt.timedelta(weeks=1)}
    out = []
    k = 0
    while True:
        if unit in fixed:
            t = s0 + k * step * fixed[unit]
        else:
            t = add_months(s0, k * step * (12 if unit == "YEARS" else 1))  # anchored at start
        if t > e0:
            return out
        out.append(iso_ms(t.isoformat()))
        k += 1


def predict_cases():
    P = []

    def add(name, trend, params, pixels, zs=(0,)):
        P.append({"name": name, "trend": trend, "params": params, "pixels": pixels, "zs": zs})

    navy_px = [(0, 0), (20, 100), (30, 57), (45, 130), (60, 88), (72, 143)]
    daily_px = [(1, 1), (2, 2), (3, 3), CONST, ALLFILL, SPARSE, RANDFILL, ALTERN]
    by_interval = lambda s, e, v, u: {"dimensionDefinition": "BY_INTERVAL", "start": s, "end": e, "intervalValue": str(v), "intervalUnit": u}
    add("linear_navy_monthly_1993_1995", "linear_navy", by_interval("1993-01-01", "1995-12-01", 1, "MONTHS"), navy_px)
    add("harmonic1_navy_monthly_1993_1995", "harmonic1_years_navy", by_interval("1993-01-01", "1995-12-01", 1, "MONTHS"), navy_px)
    add("harmonic2_navy_monthly_1993_1995", "harmonic2_years_navy", by_interval("1993-01-01", "1995-12-01", 1, "MONTHS"), navy_px)
    add("linear_navy_month_end_1993", "linear_navy", by_interval("1993-01-31", "1993-12-31", 1, "MONTHS"), navy_px)
    add("harmonic1_navy_month_end_2months", "harmonic1_years_navy", by_interval("1993-01-31T06:00:00", "1994-01-01", 2, "MONTHS"), navy_px)
    add(
        "linear_navy_by_value",
        "linear_navy",
        {"dimensionDefinition": "BY_VALUE", "dimensionValues": j(["1981-06-30T12:00:00", "1993-07-01", "2000-02-29", "2010-12-31T23:59:59"])},
        navy_px,
    )
    add("poly2_navy_by_value", "poly2_navy", {"dimensionDefinition": "BY_VALUE", "dimensionValues": j(["1982-01-01", "1987-06-15", "1993-01-01"])}, navy_px)
    add("poly3_daily_weekly_2022", "poly3_daily", by_interval("2022-01-01", "2022-03-01", 1, "WEEKS"), daily_px)
    add("poly2_daily_7days_2022", "poly2_daily", by_interval("2022-01-01", "2022-03-01", 7, "DAYS"), daily_px)
    add("linear_daily_6hours", "linear_defaults_daily", by_interval("2022-01-01T00:00:00", "2022-01-01T18:00:00", 6, "HOURS"), daily_px)
    add("linear_keepnodata_daily_by_value", "linear_keepnodata_daily", {"dimensionDefinition": "BY_VALUE", "dimensionValues": j(["2019-01-01", "2022-06-30"])}, daily_px)
    add("harmonic1_daily_yearly_from_feb29", "harmonic1_years_daily", by_interval("2020-02-29", "2024-03-01", 1, "YEARS"), daily_px)
    add(
        "harmonic2_days365_daily_by_value",
        "harmonic2_days365_daily",
        {"dimensionDefinition": "BY_VALUE", "dimensionValues": j(["2020-02-29", "2022-02-28T12:00:00", "2023-12-31"])},
        daily_px,
    )
    add("linear_ocean_by_value_year0", "linear_ocean", {"dimensionDefinition": "BY_VALUE", "dimensionValues": j(["0000-07-01", "0001-01-01"])}, None, zs=(0, 10))
    return P


def build_predict(trend_by_name):
    out = []
    for case in predict_cases():
        tcase = trend_by_name[case["trend"]]
        file = tcase["file"]
        var = VARS[file]
        cube = load(file, var)
        prm = case["params"]
        if prm["dimensionDefinition"] == "BY_VALUE":
            times = [iso_ms(s) for s in json.loads(prm["dimensionValues"])]
            assert times == sorted(times)
        else:
            times = interval_times(prm["start"], prm["end"], int(prm["intervalValue"]), prm["intervalUnit"])
        pixels = case["pixels"] or tcase["pixels"]
        samples = []
        rng = np.random.default_rng(zlib.crc32(case["name"].encode()))
        for zi in case["zs"]:
            for k, (r, c) in enumerate(pixels):
                f = fit_pixel(file, var, tcase["params"], zi, r, c)
                # every pixel at the first and last time, plus two more
                tis = sorted({0, len(times) - 1, int(rng.integers(len(times))), (k * 5 + 1) % len(times)})
                for ti in tis:
                    v = math.nan if f is None else evaluate(f, times[ti] / DAY_MS)
                    e = {"variable": var, "index": {"StdTime": ti}, "at": {"StdTime": times[ti]}, "row": r, "col": c, "value": num(v)}
                    if cube["z"] is not None:
                        e["index"]["StdZ"] = zi
                        e["at"]["StdZ"] = float(cube["z"][zi]) + 0.0
                    samples.append(e)
        out.append({"name": case["name"], "trend": case["trend"], "file": file, "params": prm, "times": times, "samples": samples})
        nulls = sum(s["value"] is None for s in samples)
        print(f"  predict {case['name']:42s} {len(times):3d} times, {len(samples):3d} samples, {nulls:2d} null  [{ms_iso(times[0])} .. {ms_iso(times[-1])}]")
    # the calendar stepping the brief asks for
    me = next(p for p in out if p["name"] == "linear_navy_month_end_1993")["times"]
    assert [ms_iso(t)[:10] for t in me[:4]] == ["1993-01-31", "1993-02-28", "1993-03-31", "1993-04-30"]
    fb = next(p for p in out if p["name"] == "harmonic1_daily_yearly_from_feb29")["times"]
    assert [ms_iso(t)[:10] for t in fb] == ["2020-02-29", "2021-02-28", "2022-02-28", "2023-02-28", "2024-02-29"]
    assert len(next(p for p in out if p["name"] == "linear_navy_monthly_1993_1995")["times"]) == 36
    return out


# ======================================================================================
# 6. Output
# ======================================================================================
def dump(path, cases, list_key):
    """Readable and compact: one line per sample."""
    lines = ["["]
    for ci, case in enumerate(cases):
        lines.append("  {")
        items = [(k, v) for k, v in case.items() if k != list_key]
        for k, v in items:
            lines.append(f"    {json.dumps(k)}: {json.dumps(v, separators=(', ', ': '))},")
        lines.append(f"    {json.dumps(list_key)}: [")
        body = case[list_key]
        for si, s in enumerate(body):
            lines.append("      " + json.dumps(s, separators=(", ", ": "), allow_nan=False) + ("," if si < len(body) - 1 else ""))
        lines.append("    ]")
        lines.append("  }" + ("," if ci < len(cases) - 1 else ""))
    lines.append("]")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    json.load(open(path))  # valid JSON
    prettier = os.path.join(ROOT, "node_modules", ".bin", "prettier")
    if os.path.exists(prettier) and shutil.which("node"):
        # test/golden/ is in .prettierignore, so this is a no-op unless that changes
        subprocess.run([prettier, "--write", "--log-level", "warn", path], cwd=ROOT, check=False, stdout=subprocess.DEVNULL)


def main():
    os.makedirs(OUT, exist_ok=True)
    for rel in (NAVY, OCEAN):
        if not os.path.exists(os.path.join(ROOT, rel)):
            raise SystemExit(f"{rel} is missing: run bash scripts/fixtures.sh first")
    check_fields()
    make_daily()
    make_hourly()
    anomaly = build_anomaly()
    trend, trend_by_name = build_trend()
    predict = build_predict(trend_by_name)
    sanity_trend()
    dump(os.path.join(OUT, "anomaly.json"), anomaly, "samples")
    dump(os.path.join(OUT, "trend.json"), trend, "samples")
    dump(os.path.join(OUT, "predict.json"), predict, "samples")
    total = 0
    print("files:")
    for name in sorted(os.listdir(OUT)):
        size = os.path.getsize(os.path.join(OUT, name))
        total += size
        print(f"  {OUT_REL}/{name:22s} {size:8d} bytes")
    print(f"  total {total} bytes; {len(anomaly)} anomaly, {len(trend)} trend, {len(predict)} predict cases")


if __name__ == "__main__":
    main()
