#!/usr/bin/env python3
"""Write the golden time series that Strata's identify (processAsMultidimensional=true) is
checked against: xarray's nearest-cell values at a few points of the navy winds.

Regenerate (from the repository root; Debian's python3 has xarray and netCDF4):

    bash scripts/fixtures.sh && /usr/bin/python3 scripts/goldens/make_identify_goldens.py

Output: test/golden/identify/navy_winds_points.json

    {file, times, points: [{name, variable, geometry, lon, lat, cell, values}]}

  times     the TIME axis as xarray decodes it, in epoch milliseconds UTC
  geometry  exactly what a client sends as identify's `geometry` (JSON with its own
            spatialReference): lon/lat in EPSG:4326, or x/y in EPSG:3857 made here with
            the spherical Mercator formulas (x = R·λ, y = R·ln tan(π/4 + φ/2), R = 6378137)
  lon, lat  the point in degrees as the case was written (longitudes east of 180 given
            as negative ones, and one west of the grid's first column)
  cell      the coordinates xarray picked, {FNOCX, FNOCY}
  values    ds[variable].sel(FNOCX=lon, FNOCY=lat, method="nearest") over TIME: float32
            values as exact float64 (float(np.float32)), NaN as null

The file's longitudes run 20 .. 377.5 (cells 18.75 .. 378.75), so a longitude is first
brought into that turn, as Strata does for geographic grids; xarray then picks the nearest
coordinate. Every point is well inside its cell (at most 0.3 of a cell from the centre on
each axis, asserted below) so "nearest" cannot differ between the two by rounding.

(test/golden/ is in .prettierignore, so the JSON is written compact.)
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import xarray as xr

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCE = "test/fixtures/real/monthly_navy_winds.cdf"
OUT = os.path.join(ROOT, "test", "golden", "identify", "navy_winds_points.json")
R = 6378137.0

# (name, variable, lon, lat, spatial reference of the geometry sent)
CASES = [
    ("tokyo 4326", "UWND", 140.6, 35.3, 4326),
    ("california, west longitude", "UWND", -122.8, 37.6, 4326),
    ("south atlantic in 3857", "UWND", -30.4, -45.4, 3857),
    ("gulf of guinea, west of the first column", "UWND", 10.7, 0.6, 4326),
    ("north pacific VWND", "VWND", -170.3, 50.2, 4326),
]


def mercator(lon: float, lat: float) -> tuple[float, float]:
    return R * math.radians(lon), R * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))


def main() -> None:
    ds = xr.open_dataset(os.path.join(ROOT, SOURCE))
    xs = ds["FNOCX"].values
    ys = ds["FNOCY"].values
    dx = float(xs[1] - xs[0])
    dy = abs(float(ys[1] - ys[0]))
    west = float(xs[0]) - dx / 2
    times = ds["TIME"].values.astype("datetime64[ms]").astype(np.int64)
    points = []
    for name, variable, lon, lat, wkid in CASES:
        lon_in_turn = west + (lon - west) % 360.0
        series = ds[variable].sel(FNOCX=lon_in_turn, FNOCY=lat, method="nearest")
        cx = float(series["FNOCX"])
        cy = float(series["FNOCY"])
        assert abs(cx - lon_in_turn) <= 0.3 * dx, (name, cx, lon_in_turn)
        assert abs(cy - lat) <= 0.3 * dy, (name, cy, lat)
        if wkid == 4326:
            geometry = {"x": lon, "y": lat, "spatialReference": {"wkid": 4326}}
        else:
            x, y = mercator(lon, lat)
            geometry = {"x": x, "y": y, "spatialReference": {"wkid": 102100, "latestWkid": 3857}}
        values = [None if math.isnan(v) else float(v) for v in series.values.astype(np.float32)]
        assert len(values) == len(times)
        points.append(
            {
                "name": name,
                "variable": variable,
                "geometry": geometry,
                "lon": lon,
                "lat": lat,
                "cell": {"FNOCX": cx, "FNOCY": cy},
                "values": values,
            }
        )
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"file": SOURCE, "times": [int(t) for t in times], "points": points}, f)
        f.write("\n")
    print(f"wrote {os.path.relpath(OUT, ROOT)}: {len(points)} points x {len(times)} times")


if __name__ == "__main__":
    main()
