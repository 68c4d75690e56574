#!/usr/bin/env python3
"""Write one small daily cube the ways real tools write it, and what xarray / numpy / GDAL
read from each file (issue 14: every file is read as xarray reads it, or refused with a
message naming what is unsupported; nothing is dropped without a word).

Regenerate (from the repository root):

    /tmp/v14/bin/python scripts/goldens/make_corpus.py

/tmp/v14 is a venv with xarray, netCDF4, numpy and scipy; CDO (`cdo`), NCO (`ncks`) and
GDAL's command-line tools (`gdal_translate`) come from Debian, and the GeoTIFF is read back
with Debian's python3-gdal (`/usr/bin/python3`), never with Strata.

The cube: tas(time, lat, lon), 40 days from 2001-01-12 (so January and February both hold
days), 4 latitudes (60, 20, -20, -60), 6 longitudes 60 degrees apart, float32 kelvin with
a few NaN cells. Files in test/fixtures/corpus/:

  xr_default.nc     xarray's defaults (NETCDF4): int64 time "days since", proleptic_gregorian,
                    _FillValue NaN; latitudes south-up, longitudes 0..300
  xr_packed.nc      xarray with encoding: int16 scale_factor/add_offset, _FillValue -32767,
                    zlib; north-up, longitudes -180..120
  xr_ns.nc          int64 time in "nanoseconds since 1970-01-01": values beyond 2^53
                    (Strata refuses them; xarray reads them)
  nc3_64bit.nc      NetCDF-3 64-bit offset (time stored int32 by xarray); north-up, -180..120
  hours_tz.nc       float64 time "hours since 2001-01-12 00:00:00+05:00" (a UTC offset in the
                    reference), standard calendar; south-up, 0..300
  cdo_nc4c.nc       `cdo -f nc4c -z zip copy nc3_64bit.nc`
  nco_rec.nc        `ncks -7 --mk_rec_dmn time --cnk_plc=all --cnk_map=rd1 nc3_64bit.nc`
                    (netCDF-4 classic, record time, one day per chunk)
  stack.tif         `gdal_translate NETCDF:nc3_64bit.nc:tas` (a 40-band GeoTIFF stack, with
                    GDAL's metadata naming the netCDF time of each band)
  plain_stack.tif   `gdal_translate -co PROFILE=GeoTIFF stack.tif` (GeoTIFF tags only)
  gdal_stack.nc     `gdal_translate -of netCDF stack.tif` (GDAL rebuilds tas(time, lat, lon))
  gdal_bands.nc     `gdal_translate -of netCDF plain_stack.tif` (one 2-D variable per band,
                    Band1..Band40, and a `crs` grid mapping)

test/golden/corpus/wkt2.json: `gdalsrsinfo -o wkt2_2019 EPSG:<code>` of the systems Strata
spells in WKT2 (io/wkt2.ts), without the optional USAGE.

test/golden/corpus/corpus.json, one entry per file:
  refused: true when Strata must refuse it (then `because`, a regular expression the
           message must match)
  dims:    {name: size} as xarray reads them
  coords:  each dimension coordinate: values (time as epoch milliseconds UTC)
  vars:    each data variable: dims, dtype xarray decodes to, values (C order in xarray's
           axis order, null for NaN), attrs named grid_mapping (to tell metadata variables)
  anomaly: for tas when it has time, numpy's DIFFERENCE_FROM_MEAN with RECURRING_MONTHLY
           (per-pixel nanmean of the slices of each calendar month, UTC), same layout
"""
import json
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import xarray as xr

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "test", "fixtures", "corpus")
GOLD = os.path.join(ROOT, "test", "golden", "corpus")
os.makedirs(OUT, exist_ok=True)
os.makedirs(GOLD, exist_ok=True)


def path(name):
    return os.path.join(OUT, name)


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


# ---- the cube -------------------------------------------------------------------------
rng = np.random.default_rng(14)
DAYS = 40
time = pd.date_range("2001-01-12", periods=DAYS, freq="D")
lat_n = np.array([60.0, 20.0, -20.0, -60.0])  # north-up
lon_0 = np.arange(0.0, 360.0, 60.0)  # 0..300
doy = np.arange(DAYS)
base = (
    270.0
    + 10.0 * np.sin(doy / 6.0)[:, None, None]
    + 0.2 * lat_n[None, :, None]
    + 0.01 * lon_0[None, None, :]
    + rng.normal(0.0, 1.0, (DAYS, 4, 6))
).astype(np.float32)
base[3, 1, 2] = np.nan
base[10, 0, 0] = np.nan
base[:, 3, 5] = np.nan  # a pixel with no data at all
base[20:25, 2, 1] = np.nan


def cube(lat_south_up, lon_west):
    """The same ground: latitudes north- or south-up, longitudes 0..300 or -180..120."""
    data = base
    lat = lat_n
    if lat_south_up:
        data = data[:, ::-1, :]
        lat = lat[::-1]
    lon = lon_0
    if lon_west:
        lon = np.where(lon_0 >= 180, lon_0 - 360, lon_0)
        order = np.argsort(lon)
        lon = lon[order]
        data = data[:, :, order]
    ds = xr.Dataset(
        {"tas": (("time", "lat", "lon"), np.ascontiguousarray(data), {"units": "K", "long_name": "air temperature"})},
        coords={
            "time": ("time", time),
            "lat": ("lat", lat, {"units": "degrees_north", "standard_name": "latitude"}),
            "lon": ("lon", lon, {"units": "degrees_east", "standard_name": "longitude"}),
        },
    )
    return ds


def clean(p):
    if os.path.exists(p):
        os.remove(p)
    return p


# ---- writing -----------------------------------------------------------------------------
cube(True, False).to_netcdf(clean(path("xr_default.nc")))

packed = cube(False, True)
packed.to_netcdf(
    clean(path("xr_packed.nc")),
    encoding={"tas": {"dtype": "int16", "scale_factor": 0.01, "add_offset": 270.0, "_FillValue": -32767, "zlib": True}},
)

ns = cube(False, False)
ns = ns.assign_coords(
    time=("time", time.values.astype("datetime64[ns]").astype("int64"), {"units": "nanoseconds since 1970-01-01", "calendar": "proleptic_gregorian"})
)
ns.to_netcdf(clean(path("xr_ns.nc")))

cube(False, True).to_netcdf(clean(path("nc3_64bit.nc")), format="NETCDF3_64BIT")

tz = cube(True, False)
hours = (np.arange(DAYS) * 24.0).astype("float64")
tz = tz.assign_coords(time=("time", hours, {"units": "hours since 2001-01-12 00:00:00+05:00", "calendar": "standard"}))
tz.to_netcdf(clean(path("hours_tz.nc")), encoding={"time": {"dtype": "float64"}})

run("cdo", "-s", "-f", "nc4c", "-z", "zip", "copy", path("nc3_64bit.nc"), clean(path("cdo_nc4c.nc")))
run("ncks", "-O", "-7", "--mk_rec_dmn", "time", "--cnk_plc=all", "--cnk_map=rd1", path("nc3_64bit.nc"), clean(path("nco_rec.nc")))
os.environ["GDAL_PAM_ENABLED"] = "NO"  # no .aux.xml beside the files
run("gdal_translate", "-q", f"NETCDF:{path('nc3_64bit.nc')}:tas", clean(path("stack.tif")))
# GeoTIFF tags only (no GDAL metadata: the netCDF time is not carried), as other tools write stacks.
run("gdal_translate", "-q", "-co", "PROFILE=GeoTIFF", path("stack.tif"), clean(path("plain_stack.tif")))
# GDAL rebuilds the netCDF time axis from stack.tif's metadata; a plain stack becomes Band1..Band40.
run("gdal_translate", "-q", "-of", "netCDF", path("stack.tif"), clean(path("gdal_stack.nc")))
run("gdal_translate", "-q", "-of", "netCDF", path("plain_stack.tif"), clean(path("gdal_bands.nc")))


# ---- goldens --------------------------------------------------------------------------------
def listed(a, digits=None):
    """Values as JSON numbers: float32 ones in their shortest round-trip form, others as given."""
    a = np.asarray(a)
    if a.dtype == np.float32:
        return [None if np.isnan(x) else float(str(x)) for x in a.ravel()]
    out = []
    for x in np.asarray(a, dtype="float64").ravel().tolist():
        out.append(None if np.isnan(x) else (float(f"{x:.{digits}g}") if digits else x))
    return out


def epoch_ms(values):
    v = np.asarray(values)
    if np.issubdtype(v.dtype, np.datetime64):
        return (v.astype("datetime64[ms]").astype("int64")).tolist()
    return None


def monthly_anomaly(da):
    months = da["time"].dt.month.values
    x = da.values.astype("float64")
    out = np.full_like(x, np.nan)
    for m in np.unique(months):
        sel = months == m
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the pixel without data: mean NaN
            mean = np.nanmean(x[sel], axis=0)
        out[sel] = x[sel] - mean
    return out


def describe(name, **extra):
    ds = xr.open_dataset(path(name))  # xarray's defaults: mask_and_scale, decode_times
    entry = {"file": name, "dims": {k: int(v) for k, v in ds.sizes.items()}, "coords": {}, "vars": {}}
    for c in ds.coords:
        if ds[c].ndim != 1:
            continue
        ms = epoch_ms(ds[c].values)
        entry["coords"][c] = {"values": ms if ms is not None else listed(ds[c].values), "time": ms is not None}
    for v in ds.data_vars:
        da = ds[v]
        item = {"dims": list(da.dims), "dtype": str(da.dtype), "grid_mapping": da.encoding.get("grid_mapping") or da.attrs.get("grid_mapping")}
        if da.ndim >= 2:
            item["values"] = listed(da.values)
        entry["vars"][v] = item
        if v == "tas" and "time" in da.dims:
            entry["anomaly"] = listed(monthly_anomaly(da), digits=8)
    ds.close()
    entry.update(extra)
    return entry


def describe_tif(name):
    """GDAL's reading of the GeoTIFF (Debian's python3-gdal), north-up bands."""
    code = (
        "import json,sys; from osgeo import gdal; import numpy as np;"
        "d=gdal.Open(sys.argv[1]); a=d.ReadAsArray().astype('float64');"
        "nd=d.GetRasterBand(1).GetNoDataValue();"
        "a=np.where(np.isnan(a)|(a==nd) if nd is not None else np.isnan(a), np.nan, a);"
        "print(json.dumps({'bands':d.RasterCount,'height':d.RasterYSize,'width':d.RasterXSize,"
        "'transform':list(d.GetGeoTransform()),'epsg':d.GetSpatialRef().GetAuthorityCode(None) if d.GetSpatialRef() else None,'values':[None if np.isnan(x) else x for x in a.ravel().tolist()]}))"
    )
    got = json.loads(subprocess.run(["/usr/bin/python3", "-c", code, path(name)], check=True, capture_output=True, text=True).stdout)
    return {"file": name, "geotiff": got}


corpus = [
    describe("xr_default.nc"),
    describe("xr_packed.nc"),
    describe("xr_ns.nc", refused=True, because="beyond 2\\^53"),
    describe("nc3_64bit.nc"),
    describe("hours_tz.nc"),
    describe("cdo_nc4c.nc"),
    describe("nco_rec.nc"),
    describe("gdal_stack.nc"),
    describe("gdal_bands.nc"),
    describe_tif("stack.tif"),
    describe_tif("plain_stack.tif"),
]
with open(os.path.join(GOLD, "corpus.json"), "w") as f:
    json.dump(corpus, f, separators=(",", ":"))
    f.write("\n")

# ---- WKT2 of the systems Strata writes, as GDAL spells them (USAGE, which is optional, dropped) ----
wkt2 = {}
for code in [4326, 3857, 32601, 32633, 32660, 32733]:
    text = subprocess.run(
        ["gdalsrsinfo", "-o", "wkt2_2019", "--single-line", f"EPSG:{code}"], check=True, capture_output=True, text=True
    ).stdout.strip()
    wkt2[str(code)] = re.sub(r",USAGE\[.*\]\],ID", ",ID", text)
with open(os.path.join(GOLD, "wkt2.json"), "w") as f:
    json.dump(wkt2, f, indent=1)
    f.write("\n")

for name in sorted(os.listdir(OUT)):
    print(f"{name}: {os.path.getsize(path(name))} bytes", file=sys.stderr)
print(f"corpus.json: {os.path.getsize(os.path.join(GOLD, 'corpus.json'))} bytes", file=sys.stderr)
