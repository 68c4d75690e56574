#!/usr/bin/env python3
"""NetCDF-4 copies of the analysis golden inputs, stored as daily products ship: one time step
per chunk, zlib level 1 with shuffle. The values are the originals' bit for bit, so the
goldens computed by numpy from daily.nc and hourly.nc hold for the copies too; the tests run
them through the streaming walk. Needs only netCDF4 (Debian's python3-netcdf4 will do).

    /usr/bin/python3 scripts/goldens/make_chunked_copies.py
"""
import os

import netCDF4
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "test", "golden", "analysis")


def copy(name: str) -> None:
    src_path = os.path.join(GOLDEN, f"{name}.nc")
    dst_path = os.path.join(GOLDEN, f"{name}_nc4.nc")
    with netCDF4.Dataset(src_path) as src, netCDF4.Dataset(dst_path, "w", format="NETCDF4") as dst:
        dst.setncatts({k: src.getncattr(k) for k in src.ncattrs()})
        for d in src.dimensions.values():
            dst.createDimension(d.name, None if d.isunlimited() else len(d))
        for v in src.variables.values():
            v.set_auto_maskandscale(False)
            fill = v.getncattr("_FillValue") if "_FillValue" in v.ncattrs() else None
            if v.ndim == 3:
                chunks = (1,) + v.shape[1:]
                out = dst.createVariable(v.name, v.dtype, v.dimensions, fill_value=fill, zlib=True, complevel=1, shuffle=True, chunksizes=chunks)
            else:
                out = dst.createVariable(v.name, v.dtype, v.dimensions, fill_value=fill)
            out.setncatts({k: v.getncattr(k) for k in v.ncattrs() if k != "_FillValue"})
            out.set_auto_maskandscale(False)
            out[:] = v[:]
    with netCDF4.Dataset(src_path) as a, netCDF4.Dataset(dst_path) as b:
        for v in a.variables.values():
            a[v.name].set_auto_maskandscale(False)
            b[v.name].set_auto_maskandscale(False)
            assert np.array_equal(a[v.name][:], b[v.name][:], equal_nan=True), v.name
    print(dst_path, os.path.getsize(dst_path), "bytes")


for name in ("daily", "hourly"):
    copy(name)
