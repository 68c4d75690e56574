/**
 * Readers that are not zarrita open Strata's outputs (through the Zarr v2 metadata written
 * beside the v3 metadata, io/zarrV2Metadata.ts): GDAL (Debian 12's 3.6, which reads no Zarr
 * v3) with its dimensions, coordinates, nodata, CRS and values, and zarr-python 2 through
 * xarray (Debian's 2.13). Each part skips, saying why, when its reader is not installed
 * (scripts/system-packages.sh installs both on Debian).
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { SMALL_SHAPE, SMALL_VALUES, writeSmallOutput } from "../helpers/smallOutput.js";

const run = promisify(execFile);

/** The small output's cell centres, worked by hand from its transform (-25, 10, 0, 20, 0, -10). */
const LATS = [15, 5, -5, -15];
const LONS = [-20, -10, 0, 10, 20];

/** Why `command` cannot be used here, or undefined when it runs. */
function missing(command: string, args: string[], install: string): string | undefined {
  const probe = spawnSync(command, args, { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return `${command} ${args.join(" ")} does not run here (${install})`;
  return undefined;
}

const noGdal = missing("gdalmdiminfo", ["--version"], "Debian: apt-get install gdal-bin");
const noZarr2 = missing("/usr/bin/python3", ["-c", "import zarr, xarray"], "Debian: apt-get install python3-zarr python3-xarray");

let dir = "";
let out = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-gdal-reads-"));
  out = join(dir, "out.zarr");
  await writeSmallOutput(out);
});
after(() => rm(dir, { recursive: true, force: true }));

/** Nested lists of values flattened, NaN (GDAL's "NaN") as NaN. */
function flat(values: unknown): number[] {
  return (Array.isArray(values) ? values.flat(Infinity) : [values]).map((x) => (x === "NaN" ? NaN : Number(x)));
}

interface GdalArray {
  datatype: string;
  dimensions?: string[];
  dimension_size?: number[];
  unit?: string;
  nodata_value?: number | string;
  srs?: { wkt: string };
  values: unknown;
}

describe("GDAL reads Strata's outputs", { skip: noGdal }, () => {
  it("gdalmdiminfo: the dimensions, coordinates, types, nodata, CRS and every value written", async () => {
    const { stdout } = await run("gdalmdiminfo", ["-detailed", out], { maxBuffer: 16 << 20 });
    const info = JSON.parse(stdout) as { dimensions: { name: string; size: number; type?: string }[]; arrays: Record<string, GdalArray> };
    assert.deepEqual(
      info.dimensions.map((d) => [d.name, d.size, d.type]),
      [
        ["StdTime", 3, "TEMPORAL"],
        ["lat", 4, "HORIZONTAL_Y"],
        ["lon", 5, "HORIZONTAL_X"],
      ],
    );
    const { arrays } = info;
    assert.deepEqual(flat(arrays.lat.values), LATS);
    assert.deepEqual(flat(arrays.lon.values), LONS);
    assert.deepEqual(flat(arrays.StdTime.values), [Date.UTC(2000, 0, 1), Date.UTC(2000, 1, 1), Date.UTC(2000, 2, 1)]);
    assert.equal(arrays.StdTime.unit, "milliseconds since 1970-01-01T00:00:00");
    assert.equal(arrays.spatial_ref.values, 0, "the 0-d grid mapping reads");
    const expected = { tas: ["Float32", "NaN"], count: ["Int16", -1], flag: ["Byte", undefined] } as const;
    for (const [name, [datatype, nodata]] of Object.entries(expected)) {
      const a = arrays[name];
      assert.equal(a.datatype, datatype, name);
      assert.deepEqual(a.dimensions, ["/StdTime", "/lat", "/lon"], name);
      assert.deepEqual(a.dimension_size, [...SMALL_SHAPE], name);
      assert.equal(a.nodata_value, nodata, name);
      assert.match(a.srs?.wkt ?? "", /ID\["EPSG",4326\]\]$/, `${name}: the CRS, from _CRS`);
      assert.deepEqual(flat(a.values), SMALL_VALUES[name].values, name);
    }
  });

  it("gdal_translate: a time slice as a georeferenced 2-D raster with the values written", async () => {
    const asc = join(dir, "count1.asc");
    await run("gdal_translate", ["-q", "-of", "AAIGrid", `ZARR:"${out}":/count:1`, asc]);
    const [header, body] = ((text) => [text.slice(0, 6), text.slice(6)])((await readFile(asc, "utf8")).trim().split("\n"));
    assert.deepEqual(
      header.map((l) => l.trim().split(/\s+/)),
      [
        ["ncols", "5"],
        ["nrows", "4"],
        ["xllcorner", "-25.000000000000"],
        ["yllcorner", "-20.000000000000"],
        ["cellsize", "10.000000000000"],
        ["NODATA_value", "-1"],
      ],
    );
    assert.deepEqual(body.join(" ").trim().split(/\s+/).map(Number), SMALL_VALUES.count.values.slice(20, 40), "time step 1, rows north-up");
  });
});

/** What xarray (on zarr-python 2) makes of the store, NaN as null. */
const XARRAY = `
import json, math, sys
import numpy as np, xarray as xr, zarr
ds = xr.open_zarr(sys.argv[1])
nan = lambda xs: [None if isinstance(x, float) and math.isnan(x) else x for x in xs]
out = {
    "zarr": zarr.__version__,
    "sizes": dict(ds.sizes),
    "lat": ds.lat.values.tolist(), "lon": ds.lon.values.tolist(),
    "time": [str(t) for t in np.datetime_as_string(ds.StdTime.values, unit="s")],
    "vars": {n: {"dims": list(ds[n].dims), "dtype": str(ds[n].dtype), "values": nan(ds[n].values.ravel().tolist())} for n in ["tas", "count", "flag"]},
    "raw_count": zarr.open_consolidated(sys.argv[1], mode="r")["count"][...].ravel().tolist(),
}
print(json.dumps(out))
`;

describe("zarr-python 2 and xarray read Strata's outputs", { skip: noZarr2 }, () => {
  it("xarray.open_zarr: dimensions, coordinates, decoded time, and values with nodata masked", async () => {
    const { stdout } = await run("/usr/bin/python3", ["-c", XARRAY, out]);
    const got = JSON.parse(stdout) as {
      zarr: string;
      sizes: Record<string, number>;
      lat: number[];
      lon: number[];
      time: string[];
      vars: Record<string, { dims: string[]; dtype: string; values: (number | null)[] }>;
      raw_count: number[];
    };
    assert.deepEqual(got.sizes, { StdTime: 3, lat: 4, lon: 5 });
    assert.deepEqual(got.lat, LATS);
    assert.deepEqual(got.lon, LONS);
    assert.deepEqual(got.time, ["2000-01-01T00:00:00", "2000-02-01T00:00:00", "2000-03-01T00:00:00"]);
    const masked = (name: string, nodata: number) => SMALL_VALUES[name].values.map((x) => (Number.isNaN(x) || x === nodata ? null : x));
    assert.deepEqual(got.vars.tas, { dims: ["StdTime", "lat", "lon"], dtype: "float32", values: masked("tas", NaN) });
    assert.deepEqual(got.vars.count.values, masked("count", -1), "nodata -1 masked");
    assert.deepEqual(
      got.vars.flag,
      { dims: ["StdTime", "lat", "lon"], dtype: "uint8", values: SMALL_VALUES.flag.values },
      "zeros are values",
    );
    assert.deepEqual(got.raw_count, SMALL_VALUES.count.values, `zarr ${got.zarr} reads the stored values`);
  });
});
