#!/usr/bin/env python3
"""Small HDF5/NetCDF-4 files covering every chunk index, filter and group storage that
src/io/hdf5/ reads, for test/io/hdf5/*.test.ts, with the values h5py reads from them.

    .venv/bin/python scripts/goldens/make_hdf5_index_fixtures.py

Writes into test/fixtures/hdf5/: earliest.h5 (superblock 0, v1 object headers, symbol-table
groups, B-tree v1 chunk index), latest.h5 (superblock 3, v2 object headers, compact and dense
link storage, layout v4: fixed array unpaged and paged, extensible array, B-tree v2, single
chunk, implicit), paged.h5 (fixed arrays with paged data blocks), netcdf4py.nc (netCDF4-python, NETCDF4 format, 11 variables so the root group
is dense, unlimited time, zlib+shuffle, one time step per chunk), and expected.json: for each
file and dataset its dtype, shape, chunk shape and the name of a raw little-endian C-order
file (expected/<n>.bin) holding the values h5py reads. Values never come from Strata.
Needs h5py, netCDF4 and numpy.
"""
import json
import os
import shutil

import h5py
import netCDF4
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "hdf5")
rng = np.random.default_rng(20240611)


def values(shape, dtype):
    """Values that compress a little but not to nothing, exact in every dtype used."""
    return rng.integers(-300, 300, size=shape).astype(dtype)


def compact(f, name, data):
    space = h5py.h5s.create_simple(data.shape)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    ds = h5py.h5d.create(f.id, name.encode(), h5py.h5t.py_create(data.dtype), space, dcpl=dcpl)
    ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(data))


def implicit(f, name, data, chunks):
    """Fixed dims, no filters and early allocation: HDF5 1.10+ uses the implicit index."""
    space = h5py.h5s.create_simple(data.shape)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    ds = h5py.h5d.create(f.id, name.encode(), h5py.h5t.py_create(data.dtype), space, dcpl=dcpl)
    ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(data))


def common(f):
    """Datasets both the earliest and the latest file hold."""
    f.create_dataset("deflate", data=values((20, 30), "<f4"), chunks=(7, 8), compression="gzip", compression_opts=4)
    f.create_dataset("shuffle_deflate", data=values((3, 17, 19), "<i2"), chunks=(2, 5, 6), shuffle=True, compression="gzip")
    f.create_dataset("shuffle_f8", data=values((5, 7), "<f8") / 3, chunks=(2, 4), shuffle=True, compression="gzip")
    f.create_dataset("shuffle_f4_aligned", data=values((6, 8), "<f4") / 16, chunks=(2, 4), shuffle=True, compression="gzip")
    f.create_dataset("fletcher", data=values((11, 13), "<f8") / 4, chunks=(4, 5), fletcher32=True)
    f.create_dataset("fletcher_deflate", data=values((9, 10), "<i4"), chunks=(4, 4), fletcher32=True, shuffle=True, compression="gzip")
    f.create_dataset("be_float", data=values((9, 14), ">f4") / 8, chunks=(4, 6), compression="gzip")
    f.create_dataset("be_int16", data=values((9, 14), ">i2"), chunks=(5, 5), shuffle=True, compression="gzip")
    f.create_dataset("uint8", data=rng.integers(0, 255, size=(6, 7)).astype("u1"), chunks=(4, 4), compression="gzip")
    f.create_dataset("contiguous", data=values((10, 11), "<f4"))
    f.create_dataset("be_contiguous", data=values((4, 5), ">i4"))
    compact(f, "compact", values((3, 4), "<i4"))
    sparse = f.create_dataset("unallocated", shape=(20, 30), dtype="<f4", chunks=(5, 5), fillvalue=-999.5, compression="gzip")
    sparse[0:5, 0:5] = values((5, 5), "<f4")
    sparse[12:18, 22:29] = values((6, 7), "<f4")
    zeros = f.create_dataset("unallocated_nofill", shape=(6, 6), dtype="<i2", chunks=(3, 3))
    zeros[4, 4] = 17
    f.create_dataset("grp1/grp2/nested", data=values((5, 6), "<f4"), chunks=(2, 3), compression="gzip")
    f.create_dataset("scalar", data=np.float64(2.5))
    f.create_dataset("one_d", data=values((50,), "<i4"), chunks=(8,), compression="gzip")


def write_h5():
    with h5py.File(os.path.join(OUT, "earliest.h5"), "w", libver="earliest") as f:
        common(f)
        f.create_dataset("unlimited", data=values((7, 5), "<f4"), maxshape=(None, 5), chunks=(1, 5), compression="gzip")
    with h5py.File(os.path.join(OUT, "latest.h5"), "w", libver="latest") as f:
        common(f)
        # 600 chunks reach the extensible array's super blocks beyond the index block.
        f.create_dataset("earray", data=values((600, 2, 3), "<f4"), maxshape=(None, 2, 3), chunks=(1, 2, 3), compression="gzip", shuffle=True)
        f.create_dataset("earray_plain", data=values((300, 2), "<i4"), maxshape=(None, 2), chunks=(1, 2))
        f.create_dataset("earray_middle", data=values((3, 40, 4), "<f4"), maxshape=(3, None, 4), chunks=(2, 3, 4), compression="gzip")
        gaps = f.create_dataset("earray_gaps", shape=(50, 4), dtype="<f4", maxshape=(None, 4), chunks=(2, 4), fillvalue=7.25)
        gaps[10:14] = values((4, 4), "<f4")
        gaps[45:50] = values((5, 4), "<f4")
        f.create_dataset("btree2", data=values((30, 20), "<f4"), maxshape=(None, None), chunks=(4, 3), compression="gzip")
        f.create_dataset("btree2_plain", data=values((12, 9), "<i2"), maxshape=(None, None), chunks=(5, 4))
        bt_gaps = f.create_dataset("btree2_gaps", shape=(12, 12), dtype="<f8", maxshape=(None, None), chunks=(4, 4), fillvalue=-1.0)
        bt_gaps[4:8, 0:4] = values((4, 4), "<f8")
        f.create_dataset("single", data=values((6, 9), "<f4"), chunks=(6, 9), compression="gzip")
        f.create_dataset("single_plain", data=values((6, 9), "<i2"), chunks=(6, 9))
        implicit(f, "implicit", values((10, 9), "<f4"), (4, 4))
        dense = f.create_group("dense")
        for i in range(12):
            dense.create_dataset(f"v{i:02d}", data=values((4, 5), "<f4") + i, chunks=(2, 5), compression="gzip")
        # A chunk stored with the deflate filter skipped (filter mask bit 0), as HDF5 does
        # when an optional filter fails: readers that ignore the mask misread it.
        masked = f.create_dataset("masked", shape=(4, 4), dtype="<i4", chunks=(2, 4), compression="gzip", fillvalue=0)
        masked[0:2] = values((2, 4), "<i4")
        masked.id.write_direct_chunk((2, 0), values((2, 4), "<i4").tobytes(), filter_mask=1)


def write_paged():
    """More chunks than a fixed array data block page holds (1024): the index is paged."""
    with h5py.File(os.path.join(OUT, "paged.h5"), "w", libver="latest") as f:
        f.create_dataset("fixed_paged", data=values((33, 34), "<i2"), chunks=(1, 1))
        sparse = f.create_dataset("fixed_paged_filtered", shape=(2, 1100), dtype="<i2", chunks=(1, 1), compression="gzip", fillvalue=5)
        sparse[0, :40] = values((40,), "<i2")
        sparse[1, 1050:] = values((50,), "<i2")


def write_netcdf():
    path = os.path.join(OUT, "netcdf4py.nc")
    with netCDF4.Dataset(path, "w", format="NETCDF4") as nc:
        nc.createDimension("time", None)
        nc.createDimension("lat", 6)
        nc.createDimension("lon", 8)
        t = nc.createVariable("time", "f8", ("time",))
        t.units = "days since 2000-01-01"
        lat = nc.createVariable("lat", "f4", ("lat",))
        lon = nc.createVariable("lon", "f4", ("lon",))
        lat[:] = np.linspace(-50, 50, 6)
        lon[:] = np.linspace(0, 315, 8)
        t[:] = np.arange(5)
        for i in range(8):
            kind = "i2" if i % 3 == 2 else "f4"
            v = nc.createVariable(f"var{i}", kind, ("time", "lat", "lon"), zlib=True, shuffle=True, chunksizes=(1, 6, 8), fill_value=-99)
            v[:] = values((5, 6, 8), kind)
            if i == 7:
                v[2] = np.ma.masked
        grp = nc.createGroup("grp1")
        g = grp.createVariable("T", "f4", ("time", "lat", "lon"), zlib=True, shuffle=True, chunksizes=(1, 3, 4))
        g[:] = values((5, 6, 8), "f4")


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(os.path.join(OUT, "expected"))
    write_h5()
    write_paged()
    write_netcdf()
    manifest = {}
    n = 0
    for name in ["earliest.h5", "latest.h5", "paged.h5", "netcdf4py.nc"]:
        entries = {}
        with h5py.File(os.path.join(OUT, name), "r") as f:

            def visit(path, obj):
                nonlocal n
                if not isinstance(obj, h5py.Dataset) or obj.dtype.kind not in "iuf":
                    return
                data = obj[()]
                bin_name = f"expected/{n}.bin"
                n += 1
                np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<")).tofile(os.path.join(OUT, bin_name))
                entries[path] = {
                    "dtype": data.dtype.newbyteorder("<").str,
                    "shape": list(obj.shape),
                    "chunks": list(obj.chunks) if obj.chunks else None,
                    "values": bin_name,
                }

            f.visititems(visit)
        manifest[name] = entries
    with open(os.path.join(OUT, "expected.json"), "w") as out:
        json.dump(manifest, out, indent=1, sort_keys=True)
    total = 0
    for root, _, files in os.walk(OUT):
        for file in files:
            total += os.path.getsize(os.path.join(root, file))
    for name in sorted(os.listdir(OUT)):
        p = os.path.join(OUT, name)
        if os.path.isfile(p):
            print(name, os.path.getsize(p))
    print("total bytes", total)


main()
