#!/usr/bin/env python3
"""NetCDF-4 copies of the analysis golden inputs, stored as daily products ship: one time step
per chunk, zlib level 1 with shuffle; and daily_t100.nc, daily.nc stored 100 time steps by 2
rows by 5 columns a chunk (as files written for point time series are), with the values
Subset must copy out of it for its golden case (daily_t100.subset.json: days 2019-04-06 to
2019-11-02, indices 95-305, across three chunk boundaries; null for the fill value). The values are the originals' bit for bit, so the
goldens computed by numpy from daily.nc and hourly.nc hold for the copies too; the tests run
them through the streaming walk. Needs only netCDF4 (Debian's python3-netcdf4 will do).

    /usr/bin/python3 scripts/goldens/make_chunked_copies.py
"""
import json
import os

import netCDF4
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "test", "golden", "analysis")


def copy(name: str, suffix: str = "_nc4", time_chunk: int = 1, cell_chunk=None) -> None:
    src_path = os.path.join(GOLDEN, f"{name}.nc")
    dst_path = os.path.join(GOLDEN, f"{name}{suffix}.nc")
    with netCDF4.Dataset(src_path) as src, netCDF4.Dataset(dst_path, "w", format="NETCDF4") as dst:
        dst.setncatts({k: src.getncattr(k) for k in src.ncattrs()})
        for d in src.dimensions.values():
            dst.createDimension(d.name, None if d.isunlimited() else len(d))
        for v in src.variables.values():
            v.set_auto_maskandscale(False)
            fill = v.getncattr("_FillValue") if "_FillValue" in v.ncattrs() else None
            if v.ndim == 3:
                chunks = (time_chunk,) + (cell_chunk or v.shape[1:])
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


def subset_golden(name: str, variable: str, first: int, last: int) -> None:
    with netCDF4.Dataset(os.path.join(GOLDEN, f"{name}.nc")) as src:
        v = src[variable]
        v.set_auto_mask(True)
        values = v[first : last + 1]
    kept = [None if np.ma.is_masked(x) else float(x) for x in values.ravel()]
    with open(os.path.join(GOLDEN, f"{name}_t100.subset.json"), "w") as out:
        json.dump({"first": first, "last": last, "shape": list(values.shape), variable: kept}, out)


for name in ("daily", "hourly"):
    copy(name)
copy("daily", "_t100", 100, (2, 5))
subset_golden("daily", "tas", 95, 305)
