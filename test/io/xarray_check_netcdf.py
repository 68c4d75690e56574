"""Print, as JSON, what xarray sees in a NetCDF file: the independent reference that
test/io/netcdf4Write.test.ts compares Strata's NetCDF-4 downloads (and their sources) with.

Usage: /usr/bin/python3 test/io/xarray_check_netcdf.py FILE [DIM=i,j,k ...]

The file is opened with xarray.open_dataset and its default decoding (masking, scaling, CF
times); DIM=... arguments keep those indices of a dimension (isel). Output: global attributes,
dimension sizes and, for every variable and coordinate, its dims, shape, dtype, attributes,
encoding (_FillValue, stored dtype, time units and calendar, compression, chunks) and values,
flattened in C order. NaN is null; times are ISO 8601 strings to the millisecond (numpy dates
and cftime dates of model calendars alike). Exit status 3 when xarray cannot be imported.
"""

import json
import math
import sys

try:
    import numpy as np
    import xarray as xr
except ImportError as error:  # the test turns this into "run scripts/system-packages.sh"
    print(f"cannot import xarray/numpy: {error}", file=sys.stderr)
    sys.exit(3)


def iso(t):
    """A date as YYYY-MM-DDTHH:MM:SS.mmm, whatever calendar object holds it."""
    if isinstance(t, np.datetime64):
        return None if np.isnat(t) else str(np.datetime_as_string(t, unit="ms"))
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}.{t.microsecond // 1000:03d}"


def plain(value):
    """JSON-ready Python values: numpy scalars and arrays unwrapped, NaN as None."""
    if isinstance(value, np.ndarray):
        return [plain(x) for x in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (list, tuple)):
        return [plain(x) for x in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def values_of(variable):
    data = np.asarray(variable.values).ravel()
    if np.issubdtype(data.dtype, np.datetime64) or data.dtype == object:
        return [iso(t) for t in data]
    return [plain(x) for x in data.tolist()]


def describe(variable):
    encoding = {k: plain(variable.encoding[k]) for k in ("_FillValue", "units", "calendar", "zlib", "complevel", "chunksizes") if k in variable.encoding}
    if "dtype" in variable.encoding:
        encoding["dtype"] = str(variable.encoding["dtype"])
    return {
        "dims": list(variable.dims),
        "shape": list(variable.shape),
        "dtype": str(variable.dtype),
        "attrs": {k: plain(v) for k, v in variable.attrs.items()},
        "encoding": encoding,
        "values": values_of(variable),
    }


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    keep = {}
    for arg in argv[2:]:
        dim, _, indices = arg.partition("=")
        keep[dim] = [int(i) for i in indices.split(",")]
    with xr.open_dataset(argv[1]) as ds:
        ds = ds.isel(keep) if keep else ds
        view = {
            "attrs": {k: plain(v) for k, v in ds.attrs.items()},
            "dims": {k: int(v) for k, v in ds.sizes.items()},
            "coords": {name: describe(ds[name]) for name in ds.coords},
            "variables": {name: describe(ds[name]) for name in ds.data_vars},
        }
    json.dump(view, sys.stdout, allow_nan=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
