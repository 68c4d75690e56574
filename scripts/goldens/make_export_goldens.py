#!/usr/bin/env python3
"""Write the golden values that Strata's exportImage tests compare a `format=tiff` export with.

Regenerate (from the repository root; Debian's python3-xarray is enough):

    /usr/bin/python3 scripts/goldens/make_export_goldens.py

Output: test/golden/export/sst_climatology_slices.json

    {file, variable, slices: [{index, time_raw, rows, cols, values}]}

  values  the slice as xarray reads it (masked, decoded), rows NORTH-UP (the file stores
          latitude south to north, so the rows are reversed here), flattened row by row,
          float32 values as Python floats, null where xarray has NaN (land)

Computed with xarray only, never with Strata.
"""

import json
import math
import os

import numpy as np
import xarray as xr

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = "samples/sst_climatology_4deg.nc"


def main():
    # Its time axis counts hours since year 0, which xarray will not decode: the slices are
    # named by index (sliceId), so raw times do.
    ds = xr.open_dataset(os.path.join(ROOT, SOURCE), decode_times=False)
    sst = ds["SST"]
    assert sst.dims == ("time", "lat", "lon"), sst.dims
    assert float(ds.lat[0]) < float(ds.lat[-1]), "expected latitudes stored south to north"
    slices = []
    for index in (0, 6):
        plane = sst.isel(time=index).values.astype(np.float32)[::-1, :]
        slices.append(
            {
                "index": index,
                "time_raw": float(sst.time.values[index]),
                "rows": int(plane.shape[0]),
                "cols": int(plane.shape[1]),
                "values": [None if math.isnan(v) else float(v) for v in plane.ravel().tolist()],
            }
        )
    out = os.path.join(ROOT, "test/golden/export/sst_climatology_slices.json")
    with open(out, "w") as f:
        json.dump({"file": SOURCE, "variable": "SST", "slices": slices}, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
