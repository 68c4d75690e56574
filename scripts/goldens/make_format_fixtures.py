#!/usr/bin/env python3
"""Write the tiny GeoTIFF and Zarr v2 fixtures that Strata's reader tests open, and
the golden JSON files they are compared against.

Regenerate (from the repository root):

    /tmp/v/bin/python scripts/goldens/make_format_fixtures.py

(/tmp/v is any Python venv with numpy and tifffile; no GDAL, rasterio or zarr is
needed: the GeoTIFF tags and the Zarr v2 store are written by hand.)

Every expected number in the goldens is computed here with numpy from the arrays the
script writes, never by Strata. Outputs:

  test/fixtures/small/geo_4326_3band.tif   3-band float32, 20 cols x 10 rows, EPSG:4326,
                                           0.5 deg pixels, upper-left corner (-10, 60),
                                           PixelIsArea, GDAL_NODATA "-9999" with a few
                                           -9999 cells, chunky (contig) samples, 16x16
                                           tiles, Adobe deflate compression.
  test/fixtures/small/utm_uint16.tif       1-band uint16, 12 cols x 8 rows, EPSG:32633,
                                           30 m pixels, no nodata, uncompressed strips of
                                           3 rows (3 + 3 + 2).
  test/fixtures/small/v2_xarray_style.zarr/
                                           Zarr v2 group laid out like xarray.to_zarr
                                           (consolidated=True) writes it: .zgroup, .zattrs,
                                           .zmetadata, per-array .zarray/.zattrs with
                                           _ARRAY_DIMENSIONS, zlib level 1, C order,
                                           "." chunk keys. Variables:
                                             tas(time, lat, lon) <f4 4x6x8, chunks (1,6,8),
                                               fill_value "NaN", some NaN cells;
                                             mask(lat, lon) <i2 6x8, chunks (3,4),
                                               fill_value -1 (xarray's _FillValue), some -1s;
                                             time <f8 "days since 2000-01-01",
                                               proleptic_gregorian: 0, 31, 60, 91;
                                             lat <f8 ascending (south-up) -75..75 step 30;
                                             lon <f8 0..315 step 45.
  test/golden/formats/<stem>.json          one per fixture:
    grid:       width, height, transform (GDAL order, worked out by hand from the
                tags / axis coordinates), epsg, x and y cell centres (y north-up)
    variables:  name, pixel_type, nodata (a number, "NaN", or null for none), unit,
                chunk_shape, dims (name as Strata presents it, source_name, values -
                StdTime as epoch milliseconds UTC - unit, calendar, interval)
    windows:    variable, index (half-open range per non-spatial dim, by source name),
                rows/cols (half-open, NORTH-UP), shape, y/x cell centres, values
                flattened in C order with null where the cell is nodata (the sentinel
                value, or NaN).

If node_modules/.bin/prettier exists the JSON files are run through it; the values are
unaffected.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zlib

import numpy as np
import tifffile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(ROOT, "test", "fixtures", "small")
OUT = os.path.join(ROOT, "test", "golden", "formats")

MAX_FIXTURE_BYTES = 30 * 1024
DAY_MS = 86_400_000
EPOCH_2000_MS = 946_684_800_000  # 2000-01-01T00:00:00Z


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------
def values_json(a: np.ndarray, nodata) -> list:
    """Flatten in C order; null where the value is nodata (the sentinel, or NaN)."""
    flat = a.ravel()
    out = []
    for v in flat.tolist() if a.dtype.kind in "iu" else flat.astype(np.float64).tolist():
        if isinstance(v, float) and v != v:
            out.append(None)
        elif nodata is not None and not (isinstance(nodata, float) and nodata != nodata) and v == nodata:
            out.append(None)
        else:
            out.append(v)
    return out


def nodata_json(nodata):
    if nodata is None:
        return None
    if isinstance(nodata, float) and nodata != nodata:
        return "NaN"
    return nodata


def centres(origin: float, step: float, n: int) -> list:
    return [origin + (i + 0.5) * step for i in range(n)]


def window(name, index, dims_order, rows, cols, data_northup, y, x, nodata, expect_null):
    """data_northup: array over [...dims, rows, cols] with rows north-up."""
    sl = tuple(slice(*index[d]) for d in dims_order) + (slice(*rows), slice(*cols))
    sub = data_northup[sl]
    vals = values_json(sub, nodata)
    nulls = sum(v is None for v in vals)
    if expect_null is True:
        assert 0 < nulls < len(vals), (name, index, rows, cols, nulls)
    elif expect_null is False:
        assert nulls == 0, (name, index, rows, cols, nulls)
    return {
        "variable": name,
        "index": {d: list(index[d]) for d in dims_order},
        "rows": list(rows),
        "cols": list(cols),
        "shape": list(sub.shape),
        "y": y[rows[0] : rows[1]],
        "x": x[cols[0] : cols[1]],
        "values": vals,
    }


def geokeys(*keys: tuple[int, int]) -> tuple:
    """GeoKeyDirectoryTag: header (version 1.1.0, N keys) + (id, location 0, count 1, value)."""
    out = [1, 1, 0, len(keys)]
    for key, value in sorted(keys):
        out += [key, 0, 1, value]
    return tuple(out)


def write_json(path: str, obj) -> None:
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, allow_nan=False)
        f.write("\n")


# --------------------------------------------------------------------------------------
# GeoTIFF 1: 3-band float32, EPSG:4326, GDAL_NODATA -9999, tiled, deflate
# --------------------------------------------------------------------------------------
def make_geo_4326() -> tuple[str, dict]:
    bands, h, w = 3, 10, 20
    ox, oy, px = -10.0, 60.0, 0.5
    r, c = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    data = np.empty((bands, h, w), np.float32)
    for b in range(bands):
        # non-round float32 values so the comparison exercises every mantissa bit
        data[b] = (100.0 * (b + 1) + 10.0 * np.sin(0.7 * r + 0.3 * c + b) + 0.01 * c).astype(np.float32)
    nodata_cells = [(0, 0, 0), (0, 3, 17), (1, 9, 19), (2, 4, 15), (2, 5, 16)]
    for b, y, x in nodata_cells:
        data[b, y, x] = -9999.0
    path = os.path.join(FIX, "geo_4326_3band.tif")
    extratags = [
        (33550, "d", 3, (px, px, 0.0), True),  # ModelPixelScaleTag
        (33922, "d", 6, (0.0, 0.0, 0.0, ox, oy, 0.0), True),  # ModelTiepointTag: raster (0,0) -> (ox, oy)
        # GTModelType 2 (geographic), GTRasterType 1 (PixelIsArea), GeographicType 4326,
        # GeogAngularUnits 9102 (degree)
        (34735, "H", 20, geokeys((1024, 2), (1025, 1), (2048, 4326), (2054, 9102)), True),
        (42113, "s", 0, "-9999", True),  # GDAL_NODATA (ASCII, NUL-terminated by tifffile)
    ]
    # contig: pixels interleaved as (rows, cols, samples)
    tifffile.imwrite(
        path,
        np.moveaxis(data, 0, -1),
        photometric="minisblack",
        planarconfig="contig",
        tile=(16, 16),
        compression="zlib",
        extratags=extratags,
        metadata=None,
    )
    # read back with tifffile as an independent check of what was written
    with tifffile.TiffFile(path) as tf:
        page = tf.pages[0]
        assert page.is_tiled and page.tilewidth == 16 and page.tilelength == 16, "expected 16x16 tiles"
        assert page.planarconfig == 1 and page.samplesperpixel == 3
        assert page.tags[42113].value == "-9999", page.tags[42113].value
        back = np.moveaxis(page.asarray(), -1, 0)
        assert back.dtype == np.float32 and np.array_equal(back, data)

    transform = [ox, px, 0.0, oy, 0.0, -px]
    x = centres(ox, px, w)
    y = centres(oy, -px, h)
    nodata = -9999.0
    name = "geo_4326_3band"
    dims = ["Band"]
    windows = [
        # everything
        window(name, {"Band": [0, 3]}, dims, [0, 10], [0, 20], data, y, x, nodata, True),
        # one band, south-east corner, across the tile boundary at col 16 (nodata at 9,19)
        window(name, {"Band": [1, 2]}, dims, [7, 10], [14, 20], data, y, x, nodata, True),
        # all bands, across the tile boundary, nodata in bands 1 and 3
        window(name, {"Band": [0, 3]}, dims, [3, 6], [14, 18], data, y, x, nodata, True),
        # last two bands, north-west corner, inside the first tile
        window(name, {"Band": [1, 3]}, dims, [0, 2], [0, 3], data, y, x, nodata, False),
        # a single pixel of the last band
        window(name, {"Band": [2, 3]}, dims, [6, 7], [19, 20], data, y, x, nodata, False),
    ]
    golden = {
        "file": "geo_4326_3band.tif",
        "format": "geotiff",
        "grid": {"width": w, "height": h, "transform": transform, "epsg": 4326, "x": x, "y": y},
        "variables": [
            {
                "name": name,
                "pixel_type": "F32",
                "nodata": nodata_json(nodata),
                "unit": "",
                "chunk_shape": [1, 16, 16],
                "dims": [
                    {"name": "Band", "source_name": "Band", "unit": "", "values": [1, 2, 3], "interval": 1, "interval_unit": None}
                ],
            }
        ],
        "nodata_cells": [list(c) for c in nodata_cells],
        "windows": windows,
    }
    return path, golden


# --------------------------------------------------------------------------------------
# GeoTIFF 2: 1-band uint16, EPSG:32633, no nodata, strips
# --------------------------------------------------------------------------------------
def make_utm_uint16() -> tuple[str, dict]:
    h, w = 8, 12
    ox, oy, px = 500_000.0, 4_650_000.0, 30.0
    r, c = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    data = ((r * w + c) * 691 % 65536).astype(np.uint16)
    data[0, 0] = 0
    data[7, 11] = 65535  # both extremes of the type
    data = data[np.newaxis]
    path = os.path.join(FIX, "utm_uint16.tif")
    extratags = [
        (33550, "d", 3, (px, px, 0.0), True),
        (33922, "d", 6, (0.0, 0.0, 0.0, ox, oy, 0.0), True),
        # GTModelType 1 (projected), GTRasterType 1 (PixelIsArea), ProjectedCSType 32633,
        # ProjLinearUnits 9001 (metre)
        (34735, "H", 20, geokeys((1024, 1), (1025, 1), (3072, 32633), (3076, 9001)), True),
    ]
    tifffile.imwrite(path, data[0], photometric="minisblack", rowsperstrip=3, compression=None, extratags=extratags, metadata=None)
    with tifffile.TiffFile(path) as tf:
        page = tf.pages[0]
        assert not page.is_tiled and page.rowsperstrip == 3 and len(page.dataoffsets) == 3
        assert 42113 not in page.tags
        assert np.array_equal(page.asarray(), data[0])

    transform = [ox, px, 0.0, oy, 0.0, -px]
    x = centres(ox, px, w)
    y = centres(oy, -px, h)
    name = "utm_uint16"
    dims = ["Band"]
    windows = [
        window(name, {"Band": [0, 1]}, dims, [0, 8], [0, 12], data, y, x, None, False),
        # across both strip boundaries (rows 3 and 6)
        window(name, {"Band": [0, 1]}, dims, [2, 7], [3, 9], data, y, x, None, False),
        # the last pixel (value 65535), in the short last strip
        window(name, {"Band": [0, 1]}, dims, [7, 8], [11, 12], data, y, x, None, False),
    ]
    golden = {
        "file": "utm_uint16.tif",
        "format": "geotiff",
        "grid": {"width": w, "height": h, "transform": transform, "epsg": 32633, "x": x, "y": y},
        "variables": [
            {
                "name": name,
                "pixel_type": "U16",
                "nodata": None,
                "unit": "",
                "chunk_shape": [1, 3, 12],
                "dims": [{"name": "Band", "source_name": "Band", "unit": "", "values": [1], "interval": None, "interval_unit": None}],
            }
        ],
        "windows": windows,
    }
    return path, golden


# --------------------------------------------------------------------------------------
# Zarr v2, laid out as xarray (zarr-python 2.x, consolidated=True) writes it
# --------------------------------------------------------------------------------------
def zjson(obj) -> bytes:
    # zarr-python 2's json_dumps: indent=4, sort_keys=True, ensure_ascii=True
    return json.dumps(obj, indent=4, sort_keys=True, ensure_ascii=True, separators=(",", ": ")).encode("ascii")


def zarray_meta(a: np.ndarray, chunks, fill_value) -> dict:
    return {
        "chunks": list(chunks),
        "compressor": {"id": "zlib", "level": 1},
        "dimension_separator": ".",
        "dtype": a.dtype.str,  # "<f4", "<i2", "<f8"
        "fill_value": fill_value,
        "filters": None,
        "order": "C",
        "shape": list(a.shape),
        "zarr_format": 2,
    }


def write_zarr_array(store: str, name: str, a: np.ndarray, chunks, fill_value, attrs: dict, meta: dict) -> None:
    d = os.path.join(store, name)
    os.makedirs(d)
    za = zarray_meta(a, chunks, fill_value)
    zattrs = dict(attrs)
    meta[f"{name}/.zarray"] = za
    meta[f"{name}/.zattrs"] = zattrs
    with open(os.path.join(d, ".zarray"), "wb") as f:
        f.write(zjson(za))
    with open(os.path.join(d, ".zattrs"), "wb") as f:
        f.write(zjson(zattrs))
    grid = [range(0, n, k) for n, k in zip(a.shape, chunks)]
    for starts in np.ndindex(*[len(g) for g in grid]):
        sl = tuple(slice(g[i], g[i] + k) for g, i, k in zip(grid, starts, chunks))
        block = a[sl]
        # edge chunks are stored full size, padded with the fill value (zarr v2 rule)
        full = np.empty(chunks, a.dtype)
        full[...] = np.nan if fill_value == "NaN" else fill_value
        full[tuple(slice(0, s) for s in block.shape)] = block
        key = ".".join(str(i) for i in starts)
        raw = np.ascontiguousarray(full).astype(full.dtype.newbyteorder("<")).tobytes(order="C")
        with open(os.path.join(d, key), "wb") as f:
            f.write(zlib.compress(raw, 1))


def make_zarr_v2() -> tuple[str, dict]:
    store = os.path.join(FIX, "v2_xarray_style.zarr")
    if os.path.exists(store):
        shutil.rmtree(store)
    os.makedirs(store)

    time = np.array([0.0, 31.0, 60.0, 91.0], np.float64)  # 1 Jan, 1 Feb, 1 Mar, 1 Apr 2000
    lat = np.array([-75.0, -45.0, -15.0, 15.0, 45.0, 75.0], np.float64)  # ascending: south-up
    lon = np.arange(0.0, 360.0, 45.0, dtype=np.float64)  # 0 .. 315
    nt, ny, nx = len(time), len(lat), len(lon)

    t, la, lo = np.meshgrid(np.arange(nt), lat, lon, indexing="ij")
    tas = (250.0 + 30.0 * np.cos(np.radians(la)) + 2.5 * np.sin(np.radians(lo) + 0.4 * t) + 0.37 * t).astype(np.float32)
    # storage (south-up) indices: (time, lat, lon)
    tas_nan = [(0, 5, 0), (1, 2, 3), (1, 2, 4), (3, 0, 7)]
    for i in tas_nan:
        tas[i] = np.nan

    mask = ((np.arange(ny)[:, None] * 3 + np.arange(nx)[None, :] * 5) % 7).astype(np.int16)
    mask_fill = [(0, 0), (2, 3), (3, 4), (5, 7)]
    for i in mask_fill:
        mask[i] = -1

    meta: dict = {}
    root_attrs = {"Conventions": "CF-1.8", "title": "Strata Zarr v2 fixture, xarray layout"}
    meta[".zattrs"] = root_attrs
    meta[".zgroup"] = {"zarr_format": 2}
    with open(os.path.join(store, ".zgroup"), "wb") as f:
        f.write(zjson({"zarr_format": 2}))
    with open(os.path.join(store, ".zattrs"), "wb") as f:
        f.write(zjson(root_attrs))

    write_zarr_array(
        store,
        "lat",
        lat,
        (ny,),
        "NaN",
        {"_ARRAY_DIMENSIONS": ["lat"], "long_name": "latitude", "standard_name": "latitude", "units": "degrees_north"},
        meta,
    )
    write_zarr_array(
        store,
        "lon",
        lon,
        (nx,),
        "NaN",
        {"_ARRAY_DIMENSIONS": ["lon"], "long_name": "longitude", "standard_name": "longitude", "units": "degrees_east"},
        meta,
    )
    write_zarr_array(
        store,
        "time",
        time,
        (nt,),
        "NaN",
        {"_ARRAY_DIMENSIONS": ["time"], "calendar": "proleptic_gregorian", "standard_name": "time", "units": "days since 2000-01-01"},
        meta,
    )
    write_zarr_array(
        store,
        "tas",
        tas,
        (1, ny, nx),
        "NaN",
        {
            "_ARRAY_DIMENSIONS": ["time", "lat", "lon"],
            "long_name": "Near-surface air temperature",
            "standard_name": "air_temperature",
            "units": "K",
        },
        meta,
    )
    write_zarr_array(
        store,
        "mask",
        mask,
        (3, 4),
        -1,
        {"_ARRAY_DIMENSIONS": ["lat", "lon"], "flag_meanings": "class0 class1 class2 class3 class4 class5 class6", "long_name": "class"},
        meta,
    )
    with open(os.path.join(store, ".zmetadata"), "wb") as f:
        f.write(zjson({"metadata": meta, "zarr_consolidated_format": 1}))

    # --- expected values, north-up ---
    tas_n = tas[:, ::-1, :]
    mask_n = mask[::-1, :]
    x = lon.tolist()
    y = lat[::-1].tolist()
    dx, dy = 45.0, 30.0
    transform = [float(lon[0]) - dx / 2, dx, 0.0, float(lat[-1]) + dy / 2, 0.0, -dy]  # [-22.5, 45, 0, 90, 0, -30]
    time_ms = [EPOCH_2000_MS + int(d) * DAY_MS for d in time]
    # check against numpy's own calendar arithmetic
    assert time_ms == [int(v) for v in (np.datetime64("2000-01-01", "ms") + time.astype("timedelta64[D]")).astype(np.int64)]
    tdims = ["time"]
    windows = [
        # northern half, first two times (storage rows 3..5, flipped); NaN at north-up (0,0,0)
        window("tas", {"time": [0, 2]}, tdims, [0, 3], [0, 4], tas_n, y, x, np.nan, True),
        # everything
        window("tas", {"time": [0, 4]}, tdims, [0, 6], [0, 8], tas_n, y, x, np.nan, True),
        # south-east corner, last time (NaN at the last cell)
        window("tas", {"time": [3, 4]}, tdims, [4, 6], [5, 8], tas_n, y, x, np.nan, True),
        # one time, a full column (flip check), no NaN
        window("tas", {"time": [2, 3]}, tdims, [0, 6], [1, 2], tas_n, y, x, np.nan, False),
        # 2-D variable, everything
        window("mask", {}, [], [0, 6], [0, 8], mask_n, y, x, -1, True),
        # 2-D variable across chunk boundaries (north-up rows 2..4 = storage rows 1..3)
        window("mask", {}, [], [2, 5], [2, 6], mask_n, y, x, -1, True),
    ]
    golden = {
        "file": "v2_xarray_style.zarr",
        "format": "zarr",
        "grid": {"width": nx, "height": ny, "transform": transform, "epsg": 4326, "x": x, "y": y},
        "attributes": root_attrs,
        "variables": [
            # sorted by name, the order Strata lists a Zarr store's arrays in
            {
                "name": "mask",
                "pixel_type": "S16",
                "nodata": -1,
                "unit": "",
                "description": "class",
                "chunk_shape": [3, 4],
                "dims": [],
            },
            {
                "name": "tas",
                "pixel_type": "F32",
                "nodata": "NaN",
                "unit": "K",
                "description": "Near-surface air temperature",
                "chunk_shape": [1, 6, 8],
                "dims": [
                    {
                        "name": "StdTime",
                        "source_name": "time",
                        "unit": "ISO8601",
                        "calendar": "proleptic_gregorian",
                        "values": time_ms,
                        "iso": [str(np.datetime64(v, "ms"))[:10] for v in time_ms],
                        "interval": 1,
                        "interval_unit": "Months",
                    }
                ],
            },
        ],
        "windows": windows,
    }
    return store, golden


def dir_size(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main() -> None:
    os.makedirs(FIX, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    written = []
    for make in (make_geo_4326, make_utm_uint16, make_zarr_v2):
        fixture, golden = make()
        size = dir_size(fixture) if os.path.isdir(fixture) else os.path.getsize(fixture)
        assert size < MAX_FIXTURE_BYTES, (fixture, size)
        stem = os.path.basename(fixture).split(".")[0]
        out = os.path.join(OUT, f"{stem}.json")
        write_json(out, golden)
        written.append(out)
        print(f"{os.path.relpath(fixture, ROOT)}: {size} bytes -> {os.path.relpath(out, ROOT)}")
    prettier = os.path.join(ROOT, "node_modules", ".bin", "prettier")
    if os.path.exists(prettier) and shutil.which("node"):
        subprocess.run([prettier, "--write", "--log-level", "warn", "--ignore-path", "", *written], check=True)
    else:
        print("note: prettier not found; JSON left as json.dumps(indent=2) output")


if __name__ == "__main__":
    main()
