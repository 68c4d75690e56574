#!/usr/bin/env python3
"""Write the golden statistics and histogram that the image service's `statistics` and
`histograms` resources are checked against, for the published sample sst_climatology_4deg.

Regenerate (from the repository root; Debian's python3-xarray is enough):

    /usr/bin/python3 scripts/goldens/make_statistics_goldens.py

Output: test/golden/export/sst_climatology_statistics.json

    {file, variable, min, max, mean, standardDeviation, count, size, counts, nearEdge}

  min..count  of every valid value of SST over all 12 months, as float32 values read by
              xarray (masked, decoded), in float64 arithmetic; standardDeviation is the
              population one (ddof=0), as ArcGIS gives
  counts      numpy.histogram of those values in `size` = 256 equal bins over [min, max]
              (the last bin closed), ArcGIS's histogram object
  nearEdge    for each inner bin edge k (1..255), how many values lie within 1/8 of a bin
              width of it: Strata bins from a histogram kept while writing, which may put a
              value at most 1/8 bin away from where exact binning does, so the count below
              edge k may differ from numpy's by at most nearEdge[k - 1]

Computed with xarray and numpy only, never with Strata.
"""

import json
import os

import numpy as np
import xarray as xr

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = "samples/sst_climatology_4deg.nc"
SIZE = 256


def main():
    ds = xr.open_dataset(os.path.join(ROOT, SOURCE), decode_times=False)
    values = ds["SST"].values.astype(np.float32).ravel()
    values = values[~np.isnan(values)].astype(np.float64)
    lo, hi = float(values.min()), float(values.max())
    counts, edges = np.histogram(values, bins=SIZE, range=(lo, hi))
    width = (hi - lo) / SIZE
    near = [int(np.count_nonzero(np.abs(values - e) <= width / 8)) for e in edges[1:-1]]
    out = os.path.join(ROOT, "test/golden/export/sst_climatology_statistics.json")
    with open(out, "w") as f:
        json.dump(
            {
                "file": SOURCE,
                "variable": "SST",
                "min": lo,
                "max": hi,
                "mean": float(values.mean()),
                "standardDeviation": float(values.std()),
                "count": int(values.size),
                "size": SIZE,
                "counts": [int(c) for c in counts],
                "nearEdge": near,
            },
            f,
            separators=(",", ":"),
        )
        f.write("\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
