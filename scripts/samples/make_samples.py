"""Make the small sample datasets Strata publishes on its first start (samples/).

They are cut from real data in Debian's ferret-datasets (fetched by scripts/fixtures.sh):
- samples/navy_winds_10deg.nc: monthly zonal and meridional winds 1982-1992 (FNOC), every
  fourth cell of the 2.5-degree grid; 132 monthly slices, for anomalies and trends.
- samples/sst_climatology_4deg.nc: COADS monthly sea surface temperature climatology, every
  other cell of the 2-degree grid, 12 slices, land as missing values.
Values are copied exactly (no rounding). NetCDF-3, so the server reads them without loading
the HDF5 library (which costs ~600 MB of memory).

Regenerate: bash scripts/fixtures.sh && /tmp/v/bin/python scripts/samples/make_samples.py
"""
import pathlib

import netCDF4
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
REAL = ROOT / "test" / "fixtures" / "real"
OUT = ROOT / "samples"


def copy_attrs(src, dst, skip=()):
    for k in src.ncattrs():
        if k not in skip and k != "_FillValue":
            dst.setncattr(k, src.getncattr(k))


def navy_winds():
    src = netCDF4.Dataset(REAL / "monthly_navy_winds.cdf")
    dst = netCDF4.Dataset(OUT / "navy_winds_10deg.nc", "w", format="NETCDF3_CLASSIC")
    dst.title = "Monthly mean surface winds 1982-1992 (FNOC), every fourth cell of the 2.5 degree grid"
    dst.source = "Debian ferret-datasets: monthly_navy_winds.cdf"
    dst.Conventions = "CF-1.8"
    lat = src["FNOCY"][::4]
    lon = src["FNOCX"][::4]
    dst.createDimension("time", None)
    dst.createDimension("lat", len(lat))
    dst.createDimension("lon", len(lon))
    t = dst.createVariable("time", "f8", ("time",))
    t.units = src["TIME"].units
    t.standard_name = "time"
    t.calendar = "standard"
    t[:] = src["TIME"][:]
    y = dst.createVariable("lat", "f8", ("lat",))
    y.units = "degrees_north"
    y.standard_name = "latitude"
    y[:] = lat
    x = dst.createVariable("lon", "f8", ("lon",))
    x.units = "degrees_east"
    x.standard_name = "longitude"
    x[:] = lon
    for name in ("UWND", "VWND"):
        s = src[name]
        v = dst.createVariable(name, "f4", ("time", "lat", "lon"), fill_value=np.float32(-99.9))
        copy_attrs(s, v, skip=("history", "missing_value"))
        s.set_auto_mask(False)
        v.set_auto_mask(False)
        v[:] = s[:, ::4, ::4]
    dst.close()


def sst():
    src = netCDF4.Dataset(REAL / "coads_climatology.cdf")
    dst = netCDF4.Dataset(OUT / "sst_climatology_4deg.nc", "w", format="NETCDF3_CLASSIC")
    dst.title = "COADS monthly sea surface temperature climatology, every other cell of the 2 degree grid"
    dst.source = "Debian ferret-datasets: coads_climatology.cdf"
    dst.Conventions = "CF-1.8"
    dst.createDimension("time", 12)
    dst.createDimension("lat", src.dimensions["COADSY"].size // 2)
    dst.createDimension("lon", src.dimensions["COADSX"].size // 2)
    t = dst.createVariable("time", "f8", ("time",))
    t.units = src["TIME"].units  # hour since 0000-01-01: a climatology's year 0
    t.standard_name = "time"
    t[:] = src["TIME"][:]
    for name, std, units in (("lat", "latitude", "degrees_north"), ("lon", "longitude", "degrees_east")):
        v = dst.createVariable(name, "f8", (name,))
        v.units = units
        v.standard_name = std
        v[:] = src["COADSY" if name == "lat" else "COADSX"][::2]
    s = src["SST"]
    v = dst.createVariable("SST", "f4", ("time", "lat", "lon"), fill_value=np.float32(-1e34))
    copy_attrs(s, v, skip=("history", "missing_value"))
    s.set_auto_mask(False)
    v.set_auto_mask(False)
    v[:] = s[:, ::2, ::2]
    dst.close()


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    navy_winds()
    sst()
    for f in sorted(OUT.glob("*.nc")):
        print(f.name, f.stat().st_size)
