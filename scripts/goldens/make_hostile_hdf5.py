#!/usr/bin/env python3
"""HDF5 files whose data lives outside themselves (issue 10 §1), for test/io/hostileHdf5.test.ts:
external storage at an absolute path, an external link, a virtual dataset, and a filter
that is not built in. Each names /tmp/strata-hostile-secret.bin, which the test writes and
expects never to be read. Needs h5py and numpy (Debian's python3-h5py will do).

    /usr/bin/python3 scripts/goldens/make_hostile_hdf5.py
"""
import os

import h5py
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "fixtures", "hostile")
SECRET = "/tmp/strata-hostile-secret.bin"


def grid(f):
    f["lat"] = np.array([1.0, 0.0])
    f["lon"] = np.array([0.0, 1.0])
    f["lat"].attrs["units"] = "degrees_north"
    f["lon"].attrs["units"] = "degrees_east"
    f["lat"].make_scale("lat")
    f["lon"].make_scale("lon")


def attach(d, f):
    d.dims[0].attach_scale(f["lat"])
    d.dims[1].attach_scale(f["lon"])


os.makedirs(OUT, exist_ok=True)
with h5py.File(os.path.join(OUT, "external_storage.h5"), "w") as f:
    grid(f)
    d = f.create_dataset("tas", shape=(2, 2), dtype="<f4", external=[(SECRET, 0, 16)])
    attach(d, f)
with h5py.File(os.path.join(OUT, "external_link.h5"), "w") as f:
    grid(f)
    f["tas"] = h5py.ExternalLink(SECRET, "/tas")
with h5py.File(os.path.join(OUT, "virtual.h5"), "w") as f:
    grid(f)
    layout = h5py.VirtualLayout(shape=(2, 2), dtype="<f4")
    layout[:] = h5py.VirtualSource(SECRET, "tas", shape=(2, 2))
    d = f.create_virtual_dataset("tas", layout, fillvalue=0)
    attach(d, f)
with h5py.File(os.path.join(OUT, "lzf_filter.h5"), "w") as f:
    grid(f)
    d = f.create_dataset("tas", data=np.ones((2, 2), "<f4"), chunks=(1, 2), compression="lzf")
    attach(d, f)
with open(os.path.join(OUT, "junk_after_signature.h5"), "wb") as f:
    f.write(b"\x89HDF\r\n\x1a\n" + bytes(range(256)) * 4)
for name in sorted(os.listdir(OUT)):
    print(name, os.path.getsize(os.path.join(OUT, name)))
