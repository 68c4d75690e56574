#!/usr/bin/env python3
"""Write the golden JSON files that Strata's NetCDF reader tests compare against.

Regenerate everything (from the repository root):

    bash scripts/fixtures.sh && /tmp/v/bin/python scripts/goldens/make_io_goldens.py

(/tmp/v is any Python venv with numpy, xarray, netCDF4 and cftime; h5netcdf and
scipy are used, when installed, for an extra cross-check of every window.)

Every number in the goldens comes from xarray / netCDF4-python / cftime, never from
Strata. Inputs are the real files in test/fixtures/real/ (fetched by
scripts/fixtures.sh) plus two tiny synthetic files that this script writes itself,
test/golden/io/scaled.nc and test/golden/io/tiny_360day.nc. Outputs, per input
<stem>, in test/golden/io/:

  <stem>.info.json     data variables (dims, shape, decoded dtype, units, fill value),
                       coordinate variables as stored, decoded CF time axes
  <stem>.windows.json  windowed reads: half-open index ranges over the non-spatial
                       dims plus a north-up row/column window, with the values xarray
                       gives (mask_and_scale=True: fill/missing -> null, packed values
                       unpacked), flattened in C order with row 0 = northernmost.

Time decoding:
  * Standard-calendar axes are decoded by xarray (datetime64) and cross-checked with
    cftime.
  * The Ferret files (coads_climatology, ocean_atlas_subset) use
    "hour since 0000-01-01 00:00:00", which xarray cannot decode (year 0 does not
    exist in the default calendar). They are decoded here with
    cftime.num2date(values, units, "proleptic_gregorian", has_year_zero=True), which
    is what Strata does: a year-0 reference means proleptic Gregorian with
    astronomical year numbering (year 0 = 1 BC, a leap year), like ISO 8601 and
    JavaScript's Date.
  * nc4uvt's "time" has units "Month" (no "since"), so it is not a CF time axis and
    stays a plain numeric dimension.
  * Non-standard calendars (noleap, 360_day) are given as cftime components
    [y, m, d, H, M, S] plus the calendar instead of epoch milliseconds.

If node_modules/.bin/prettier exists the JSON files are run through it, so that
`prettier --check .` stays clean; the values are unaffected.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import shutil
import subprocess
import sys
import warnings

import cftime
import netCDF4
import numpy as np
import xarray as xr

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REAL = os.path.join(ROOT, "test", "fixtures", "real")
OUT = os.path.join(ROOT, "test", "golden", "io")

MAX_WINDOW_VALUES = 2000

# --------------------------------------------------------------------------------------
# Window choices (rows/cols are NORTH-UP indices, half-open).
#   index: one half-open range per non-spatial dim, in the variable's dim order.
#   expect_null: True -> assert >= 1 null and >= 1 number; False -> assert no null;
#                None -> whatever (all-null polar windows are fine too).
# --------------------------------------------------------------------------------------
WINDOWS = {
    "monthly_navy_winds.cdf": [
        # northern edge, north-west corner (row 0 = 90N)
        dict(variable="UWND", index={"TIME": [0, 2]}, rows=[0, 5], cols=[0, 6], expect_null=False),
        # southern edge, south-east corner, last time step
        dict(variable="VWND", index={"TIME": [131, 132]}, rows=[68, 73], cols=[138, 144], expect_null=False),
        # whole time axis, small spatial window
        dict(variable="UWND", index={"TIME": [0, 132]}, rows=[30, 34], cols=[70, 73], expect_null=False),
        # one full column: checks the south-up -> north-up flip end to end
        dict(variable="VWND", index={"TIME": [60, 61]}, rows=[0, 73], cols=[10, 11], expect_null=False),
    ],
    "coads_climatology.cdf": [
        # northern edge, north-west corner: Arctic, mostly missing, 9 values (October)
        dict(variable="AIRT", index={"TIME": [8, 11]}, rows=[0, 4], cols=[0, 12], expect_null=True),
        # southern edge, Antarctic coast: the last rows are missing
        dict(variable="SLP", index={"TIME": [0, 2]}, rows=[80, 90], cols=[70, 76], expect_null=True),
        # whole time axis, small spatial window, all ocean
        dict(variable="SST", index={"TIME": [0, 12]}, rows=[42, 46], cols=[100, 105], expect_null=False),
        # land/sea mix (fill values)
        dict(variable="WSPD", index={"TIME": [0, 2]}, rows=[30, 36], cols=[0, 10], expect_null=True),
    ],
    "ocean_atlas_subset.nc": [
        # northern edge, north-west corner, top three depths
        dict(variable="TEMP", index={"TIME": [0, 1], "ZAXLEVIT19": [0, 3]}, rows=[0, 4], cols=[0, 6], expect_null=False),
        # southern edge (Ross Sea / Antarctica), last month
        dict(variable="TEMP", index={"TIME": [11, 12], "ZAXLEVIT19": [0, 2]}, rows=[82, 90], cols=[80, 90], expect_null=True),
        # depth sub-range across a coast (Sumatra; fill values)
        dict(variable="TEMP", index={"TIME": [3, 5], "ZAXLEVIT19": [5, 12]}, rows=[44, 48], cols=[35, 40], expect_null=True),
        # whole TIME and depth axes, small spatial window in the open Pacific
        dict(variable="TEMP", index={"TIME": [0, 12], "ZAXLEVIT19": [0, 19]}, rows=[44, 46], cols=[80, 84], expect_null=False),
    ],
    "nc4uvt.nc": [
        # root variable, whole non-spatial axes, north-west corner
        dict(variable="T", index={"time": [0, 1], "lev": [0, 14]}, rows=[0, 4], cols=[0, 5], expect_null=False),
        # group variable, southern edge, south-east corner
        dict(variable="grp1/U", index={"time": [0, 1], "lev": [3, 6]}, rows=[60, 64], cols=[120, 128], expect_null=False),
        # group variable across chunk boundaries (chunks are 1x7x32x64)
        dict(variable="grp1/T", index={"time": [0, 1], "lev": [5, 9]}, rows=[30, 34], cols=[62, 68], expect_null=False),
        # root variable, one full column (flip check)
        dict(variable="V", index={"time": [0, 1], "lev": [0, 1]}, rows=[0, 64], cols=[0, 1], expect_null=False),
    ],
    "scaled.nc": [
        # northern edge (stored north-up), includes _FillValue cells
        dict(variable="t2m", index={"time": [1, 2]}, rows=[0, 2], cols=[0, 4], expect_null=True),
        # southern edge, south-east corner, includes a missing_value cell
        dict(variable="t2m", index={"time": [2, 3]}, rows=[4, 6], cols=[8, 12], expect_null=True),
        # whole time axis, small window crossing chunk boundaries
        dict(variable="t2m", index={"time": [0, 5]}, rows=[2, 4], cols=[3, 8], expect_null=True),
        # whole grid, first time (includes the edge values -32765 and 32767)
        dict(variable="t2m", index={"time": [0, 1]}, rows=[0, 6], cols=[0, 12], expect_null=False),
    ],
    "tiny_360day.nc": [
        # northern edge (stored south-up)
        dict(variable="pr", index={"time": [0, 2]}, rows=[0, 2], cols=[0, 3], expect_null=False),
        # southern edge, south-east corner, last time
        dict(variable="pr", index={"time": [3, 4]}, rows=[2, 4], cols=[2, 5], expect_null=False),
        # everything
        dict(variable="pr", index={"time": [0, 4]}, rows=[0, 4], cols=[0, 5], expect_null=False),
    ],
}

GROUPS = {"nc4uvt.nc": ["grp1"]}

CF_TIME_UNITS = re.compile(r"^\s*(\w+)\s+since\s+(.+?)\s*$", re.IGNORECASE)
YEAR0_REF = re.compile(r"^\s*\w+\s+since\s+0+-", re.IGNORECASE)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------
def num(x):
    """A JSON number for a stored scalar: ints stay ints, floats are the exact double
    of the stored value (float32 widened, so repr round-trips the float32)."""
    if x is None:
        return None
    a = np.asarray(x)
    if a.dtype.kind in "iu":
        return int(a)
    if a.dtype.kind == "f":
        v = float(a)
        if np.isnan(v):
            return None
        return v
    if a.dtype.kind in "SU":
        return str(a)
    raise TypeError(f"not a number: {x!r}")


def num_list(arr):
    a = np.asarray(arr)
    if a.dtype.kind in "iu":
        return [int(v) for v in a.ravel()]
    if a.dtype.kind != "f":
        raise TypeError(a.dtype)
    out = a.astype(np.float64).ravel().tolist()
    return [None if v != v else v for v in out]


def attr(var, name):
    return var.getncattr(name) if name in var.ncattrs() else None


def str_attr(var, name):
    v = attr(var, name)
    return None if v is None else str(v)


def format_name(nc):
    return "netcdf4" if nc.data_model.startswith("NETCDF4") else "netcdf3"


def iso_from_parts(y, mo, d, h, mi, s, ms=0):
    base = f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}"
    return base + (f".{ms:03d}" if ms else "")


def iso_from_epoch_ms(ms):
    # numpy datetime64 is proleptic Gregorian with astronomical years (year 0 exists)
    s = str(np.datetime64(int(ms), "ms"))  # 'YYYY-MM-DDTHH:MM:SS.mmm'
    return s[:-4] if s.endswith(".000") else s


def open_xr(path, group=None, engine="netcdf4", decode_times=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xr.open_dataset(
            path, group=group, engine=engine, mask_and_scale=True, decode_times=decode_times
        )


def open_xr_best(path, group=None, engine="netcdf4"):
    """xarray with time decoding if it can, else without (year-0 Ferret units)."""
    try:
        return open_xr(path, group, engine), True
    except ValueError as e:
        if "unable to decode time units" not in str(e):
            raise
        return open_xr(path, group, engine, decode_times=False), False


def spatial_dims(da):
    lat, lon = da.dims[-2], da.dims[-1]
    return lat, lon


# --------------------------------------------------------------------------------------
# time axes
# --------------------------------------------------------------------------------------
EPOCH_PG = cftime.datetime(1970, 1, 1, calendar="proleptic_gregorian", has_year_zero=True)


def cftime_epoch_ms(d):
    """Epoch ms of a cftime date interpreted on the proleptic Gregorian calendar with
    astronomical year numbering."""
    pg = cftime.datetime(
        d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond,
        calendar="proleptic_gregorian", has_year_zero=True,
    )
    return round((pg - EPOCH_PG) / _dt.timedelta(milliseconds=1))


def decode_time_axis(nc_var, xr_coord, decoded_by_xarray):
    units = str_attr(nc_var, "units")
    calendar = (str_attr(nc_var, "calendar") or "standard").lower()
    raw = np.asarray(nc_var[:])
    if YEAR0_REF.match(units) and calendar in ("standard", "gregorian", "proleptic_gregorian"):
        assert not decoded_by_xarray, "xarray decoded a year-0 reference; revisit"
        dates = cftime.num2date(raw, units, "proleptic_gregorian", has_year_zero=True)
        ms = [cftime_epoch_ms(d) for d in dates]
        iso = [
            iso_from_parts(d.year, d.month, d.day, d.hour, d.minute, d.second,
                           round(d.microsecond / 1000))
            for d in dates
        ]
        assert iso == [iso_from_epoch_ms(m) for m in ms], "cftime/numpy disagree"
        return {
            "calendar": "proleptic_gregorian",
            "decoded_by": "cftime.num2date(values, units, 'proleptic_gregorian', has_year_zero=True)",
            "epoch_ms": ms,
            "iso": iso,
        }
    assert decoded_by_xarray, f"xarray could not decode {units!r}"
    vals = xr_coord.values
    if np.issubdtype(vals.dtype, np.datetime64):
        ns = vals.astype("datetime64[ns]").astype(np.int64)
        ms = [int(v) for v in np.round(ns / 1e6).astype(np.int64)]
        # cross-check with cftime on the file's calendar
        check = cftime.num2date(raw, units, calendar, only_use_cftime_datetimes=True)
        for m, d in zip(ms, check):
            assert abs(m - cftime_epoch_ms(d)) <= 1, (m, d)
        return {
            "calendar": calendar,
            "decoded_by": "xarray (datetime64)",
            "epoch_ms": ms,
            "iso": [iso_from_epoch_ms(m) for m in ms],
        }
    # non-standard calendar: xarray gives cftime objects
    comps, iso = [], []
    for d in vals:
        assert isinstance(d, cftime.datetime), type(d)
        comps.append([d.year, d.month, d.day, d.hour, d.minute,
                      d.second + (d.microsecond / 1e6 if d.microsecond else 0)])
        iso.append(iso_from_parts(d.year, d.month, d.day, d.hour, d.minute, d.second,
                                  round(d.microsecond / 1000)))
    return {
        "calendar": vals[0].calendar,
        "decoded_by": "xarray (cftime objects)",
        "components": comps,
        "iso": iso,
    }


def is_cf_time(nc_var):
    u = str_attr(nc_var, "units")
    return u is not None and CF_TIME_UNITS.match(u) is not None


# --------------------------------------------------------------------------------------
# info + windows for one file
# --------------------------------------------------------------------------------------
def build(path):
    base = os.path.basename(path)
    stem = os.path.splitext(base)[0]
    nc = netCDF4.Dataset(path)
    nc.set_auto_maskandscale(False)

    groups = [None] + GROUPS.get(base, [])
    datasets = {}  # prefix -> (xarray dataset, nc group)
    for g in groups:
        ds, decoded = open_xr_best(path, g)
        datasets[g] = (ds, nc if g is None else nc.groups[g], decoded)

    info = {
        "file": base,
        "format": format_name(nc),
        "data_model": nc.data_model,
        "variables": [],
        "coords": {},
        "times": {},
    }
    grid_mappings = {}

    for g in groups:
        ds, ncg, decoded = datasets[g]
        prefix = "" if g is None else g + "/"
        gm_names = {str(attr(ncg.variables[v], "grid_mapping")) for v in ds.data_vars
                    if attr(ncg.variables[v], "grid_mapping") is not None}
        for name in ds.data_vars:
            if name in gm_names:
                ncv = ncg.variables[name]
                grid_mappings[prefix + name] = {
                    k: ncv.getncattr(k) if isinstance(ncv.getncattr(k), str) else num(ncv.getncattr(k))
                    for k in ncv.ncattrs()
                }
                continue
            da = ds[name]
            ncv = ncg.variables[name]
            fv = attr(ncv, "_FillValue")
            mv = attr(ncv, "missing_value")
            info["variables"].append({
                "name": prefix + name,
                "dims": list(ncv.dimensions),
                "shape": list(ncv.shape),
                "dtype": str(da.dtype),
                "stored_dtype": str(ncv.dtype),
                "units": str_attr(ncv, "units"),
                "long_name": str_attr(ncv, "long_name"),
                "fill_value": num(fv if fv is not None else mv),
                "missing_value": num(mv),
                "scale_factor": num(attr(ncv, "scale_factor")),
                "add_offset": num(attr(ncv, "add_offset")),
                "grid_mapping": str_attr(ncv, "grid_mapping"),
            })
        for dim in ncg.dimensions:
            if dim not in ncg.variables:
                continue
            ncv = ncg.variables[dim]
            entry = {"values": num_list(ncv[:]), "units": str_attr(ncv, "units"), "attrs": {}}
            for a in ("axis", "positive", "calendar", "standard_name"):
                if attr(ncv, a) is not None:
                    entry["attrs"][a] = str(attr(ncv, a))
            info["coords"][prefix + dim] = entry
            if is_cf_time(ncv):
                info["times"][prefix + dim] = decode_time_axis(ncv, ds[dim], decoded)
    if grid_mappings:
        info["grid_mappings"] = grid_mappings

    # ---- windows ----
    windows = []
    for w in WINDOWS[base]:
        vname = w["variable"]
        g, short = (vname.split("/", 1) if "/" in vname else (None, vname))
        ds, ncg, _ = datasets[g]
        da = ds[short]
        lat, lon = spatial_dims(da)
        assert str_attr(ncg.variables[lat], "units").startswith("degrees_n"), lat
        nondims = list(da.dims[:-2])
        assert list(w["index"].keys()) == nondims, (vname, nondims)
        north_up = ds.sortby(lat, ascending=False)[short]
        sel = {d: slice(*w["index"][d]) for d in nondims}
        sel[lat] = slice(*w["rows"])
        sel[lon] = slice(*w["cols"])
        sub = north_up.isel(sel)
        arr = sub.values
        shape = [r[1] - r[0] for r in w["index"].values()] + [
            w["rows"][1] - w["rows"][0], w["cols"][1] - w["cols"][0]]
        assert list(arr.shape) == shape, (arr.shape, shape)
        assert arr.size <= MAX_WINDOW_VALUES, (vname, arr.size)
        lats = sub[lat].values
        assert np.all(np.diff(lats) < 0), "window rows not north-up"
        values = num_list(arr)
        n_null = sum(v is None for v in values)
        if w["expect_null"] is True:
            assert 0 < n_null < len(values), (base, vname, n_null, len(values))
        elif w["expect_null"] is False:
            assert n_null == 0, (base, vname, n_null)
        cross_check(path, g, short, lat, sel, arr)
        out = {
            "variable": vname,
            "index": w["index"],
            "rows": w["rows"],
            "cols": w["cols"],
            "shape": shape,
            "lat": num_list(lats),
            "lon": num_list(sub[lon].values),
        }
        ncv = ncg.variables[short]
        if attr(ncv, "scale_factor") is not None or attr(ncv, "add_offset") is not None:
            out["packed"] = packed_window(ncg, short, lat, w)
        out["values"] = values
        windows.append(out)
        print(f"  {stem}: {vname} index={w['index']} rows={w['rows']} cols={w['cols']} "
              f"-> {len(values)} values, {n_null} null; first row lat {float(lats[0])}")
    nc.close()
    for ds, _, _ in datasets.values():
        ds.close()
    return stem, info, windows


def packed_window(ncg, name, lat, w):
    """The stored (packed) integers of a window, north-up, straight from netCDF4."""
    v = ncg.variables[name]
    v.set_auto_maskandscale(False)
    lats = np.asarray(ncg.variables[lat][:])
    nlat = len(lats)
    r0, r1 = w["rows"]
    if lats[0] < lats[-1]:  # stored south-up
        rows = slice(nlat - r0 - 1, (nlat - r1 - 1) if nlat - r1 - 1 >= 0 else None, -1)
    else:
        rows = slice(r0, r1)
    idx = tuple(slice(*r) for r in w["index"].values())
    a = np.asarray(v[idx + (slice(None), slice(*w["cols"]))])[..., rows, :]
    return num_list(a)


CROSS_CHECK_SKIPPED: set[str] = set()


def cross_check(path, group, name, lat, sel, arr):
    """The same window through a second xarray backend must agree bit for bit."""
    with netCDF4.Dataset(path) as nc:
        model = nc.data_model
    engine = "h5netcdf" if model.startswith("NETCDF4") else "scipy"
    try:
        for mod in (("h5netcdf", "h5py") if engine == "h5netcdf" else ("scipy",)):
            __import__(mod)
    except ImportError:
        CROSS_CHECK_SKIPPED.add(engine)
        return
    ds = open_xr(path, group, engine=engine, decode_times=False)
    other = ds.sortby(lat, ascending=False)[name].isel(sel).values
    ds.close()
    assert other.dtype == arr.dtype, (engine, other.dtype, arr.dtype)
    assert np.array_equal(other, arr, equal_nan=True), f"{engine} disagrees on {name}"


# --------------------------------------------------------------------------------------
# synthetic files
# --------------------------------------------------------------------------------------
WGS84_WKT = (
    'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,'
    'AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,'
    'AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,'
    'AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],'
    'AUTHORITY["EPSG","4326"]]'
)


def write_scaled(path):
    """NetCDF-4: int16 t2m with scale/offset, _FillValue and missing_value, lat north-up,
    noleap time (int32 days), chunked (1, 3, 6) + zlib."""
    if os.path.exists(path):
        os.remove(path)
    nc = netCDF4.Dataset(path, "w", format="NETCDF4")
    nc.Conventions = "CF-1.8"
    nc.title = "Strata golden: packed int16 with scale_factor/add_offset, _FillValue, missing_value"
    nc.createDimension("time", 5)
    nc.createDimension("lat", 6)
    nc.createDimension("lon", 12)
    t = nc.createVariable("time", "i4", ("time",))
    t.units = "days since 2000-01-01"
    t.calendar = "noleap"
    t.standard_name = "time"
    t.axis = "T"
    t[:] = np.array([0, 31, 58, 59, 365], dtype=np.int32)
    la = nc.createVariable("lat", "f8", ("lat",))
    la.units = "degrees_north"
    la.standard_name = "latitude"
    la.axis = "Y"
    lats = np.array([75.0, 45.0, 15.0, -15.0, -45.0, -75.0])
    la[:] = lats
    lo = nc.createVariable("lon", "f8", ("lon",))
    lo.units = "degrees_east"
    lo.standard_name = "longitude"
    lo.axis = "X"
    lons = np.arange(0.0, 360.0, 30.0)
    lo[:] = lons
    v = nc.createVariable("t2m", "i2", ("time", "lat", "lon"), zlib=True, complevel=4,
                          shuffle=True, chunksizes=(1, 3, 6), fill_value=np.int16(-32767))
    v.set_auto_maskandscale(False)
    v.scale_factor = np.float32(0.01)
    v.add_offset = np.float32(273.15)
    v.missing_value = np.int16(-32766)
    v.units = "K"
    v.long_name = "2 metre temperature"
    v.standard_name = "air_temperature"
    ti, yi, xi = np.meshgrid(np.arange(5), np.arange(6), np.arange(12), indexing="ij")
    kelvin = (273.15 + 30.0 * np.cos(np.radians(lats))[yi] - 25.0
              + 4.0 * np.sin(np.radians(lons))[xi] + 1.7 * ti + 0.013 * (yi * 12 + xi))
    packed = np.round((kelvin - 273.15) / 0.01).astype(np.int16)
    packed[1, 0, 0:3] = -32767  # _FillValue, north-west corner
    packed[2, 5, 11] = -32766  # missing_value, south-east corner
    packed[3, 2, 4] = -32767
    packed[4, 3, 7] = -32766
    packed[0, 0, 11] = -32765  # valid, just above the masked values
    packed[0, 5, 0] = 32767  # valid, int16 max
    v[:] = packed
    nc.close()


def write_tiny_360day(path):
    """NetCDF-3 64-bit offset: float64 pr(time, lat, lon) 4x4x5, 360_day, no fill,
    lat stored south-up, crs grid mapping with WGS84 crs_wkt; time is a fixed dim."""
    if os.path.exists(path):
        os.remove(path)
    nc = netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_OFFSET")
    nc.Conventions = "CF-1.8"
    nc.title = "Strata golden: 360_day calendar, grid_mapping, float64, 64-bit offset"
    nc.createDimension("time", 4)
    nc.createDimension("lat", 4)
    nc.createDimension("lon", 5)
    t = nc.createVariable("time", "f8", ("time",))
    t.units = "days since 2001-01-01 00:00:00"
    t.calendar = "360_day"
    t.standard_name = "time"
    t.axis = "T"
    t[:] = np.array([0.0, 58.0, 59.0, 60.0])
    la = nc.createVariable("lat", "f8", ("lat",))
    la.units = "degrees_north"
    la.standard_name = "latitude"
    la.axis = "Y"
    lats = np.array([-67.5, -22.5, 22.5, 67.5])
    la[:] = lats
    lo = nc.createVariable("lon", "f8", ("lon",))
    lo.units = "degrees_east"
    lo.standard_name = "longitude"
    lo.axis = "X"
    lons = np.array([-144.0, -72.0, 0.0, 72.0, 144.0])
    lo[:] = lons
    crs = nc.createVariable("crs", "i4", ())
    crs.grid_mapping_name = "latitude_longitude"
    crs.semi_major_axis = 6378137.0
    crs.inverse_flattening = 298.257223563
    crs.longitude_of_prime_meridian = 0.0
    crs.crs_wkt = WGS84_WKT
    crs.assignValue(0)
    v = nc.createVariable("pr", "f8", ("time", "lat", "lon"))
    v.units = "kg m-2 s-1"
    v.long_name = "precipitation flux"
    v.standard_name = "precipitation_flux"
    v.grid_mapping = "crs"
    ti, yi, xi = np.meshgrid(np.arange(4), np.arange(4), np.arange(5), indexing="ij")
    v[:] = np.sqrt(1.0 + ti * 20 + yi * 5 + xi) * 1e-5 / 3.0
    nc.close()


# --------------------------------------------------------------------------------------
def main():
    os.makedirs(OUT, exist_ok=True)
    real = ["monthly_navy_winds.cdf", "coads_climatology.cdf", "ocean_atlas_subset.nc", "nc4uvt.nc"]
    missing = [f for f in real if not os.path.exists(os.path.join(REAL, f))]
    if missing:
        sys.exit(f"missing {missing} in {REAL}: run `bash scripts/fixtures.sh` first")
    write_scaled(os.path.join(OUT, "scaled.nc"))
    write_tiny_360day(os.path.join(OUT, "tiny_360day.nc"))
    paths = [os.path.join(REAL, f) for f in real] + [
        os.path.join(OUT, "scaled.nc"), os.path.join(OUT, "tiny_360day.nc")]
    written = []
    for p in paths:
        print(os.path.basename(p))
        stem, info, windows = build(p)
        for suffix, obj in (("info", info), ("windows", windows)):
            out = os.path.join(OUT, f"{stem}.{suffix}.json")
            with open(out, "w") as f:
                f.write(json.dumps(obj, indent=2, allow_nan=False) + "\n")
            written.append(out)
    prettier = os.path.join(ROOT, "node_modules", ".bin", "prettier")
    if os.path.exists(prettier) and shutil.which("node"):
        subprocess.run([prettier, "--write", "--log-level", "warn", *written], check=True)
    else:
        print("note: prettier not found; JSON left as json.dumps(indent=2) output")
    total = 0
    for p in written + [os.path.join(OUT, "scaled.nc"), os.path.join(OUT, "tiny_360day.nc")]:
        size = os.path.getsize(p)
        total += size
        print(f"{os.path.relpath(p, ROOT)}: {size} bytes")
    print(f"total {total} bytes")
    if CROSS_CHECK_SKIPPED:
        print(f"note: cross-check skipped for engine(s) {sorted(CROSS_CHECK_SKIPPED)} (not installed)")


if __name__ == "__main__":
    main()
