/**
 * Tests of the Zarr v2 reader (src/io/zarrRead.ts + src/io/cf.ts) through openCube, on a
 * store laid out exactly as xarray writes one (consolidated .zmetadata, _ARRAY_DIMENSIONS,
 * zlib, "." chunk keys, NaN / -1 fill values), from a directory and over HTTP. Every
 * expected value in the golden was computed by numpy, never by Strata.
 *
 * The store (test/fixtures/small/v2_xarray_style.zarr/) and its golden
 * (test/golden/formats/v2_xarray_style.json) are made, from the repository root, with:
 *   /tmp/v/bin/python scripts/goldens/make_format_fixtures.py
 *
 * - tas(time, lat, lon) <f4 4x6x8, chunks (1, 6, 8), fill_value "NaN", four NaN cells;
 * - mask(lat, lon) <i2 6x8, chunks (3, 4), fill_value -1 (xarray's _FillValue), four -1s;
 * - time <f8 "days since 2000-01-01", proleptic_gregorian: 0, 31, 60, 91;
 * - lat ascending (south-up) -75..75 step 30, degrees_north; lon 0..315 step 45.
 */

import assert from "node:assert/strict";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { CorruptDataError, UnsupportedDataError } from "../../src/cube/errors.js";
import { STD_TIME, type Cube, type Variable } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import {
  type Golden,
  type GoldenDim,
  type GoldenVariable,
  SMALL_FIXTURES,
  asGoldenValues,
  checkGrid,
  checkVariable,
  checkWindow,
  loadGolden,
} from "../helpers/formatGolden.js";
import { type StaticServer, serveDirectory } from "../helpers/staticServer.js";

const STORE = join(SMALL_FIXTURES, "v2_xarray_style.zarr");

/* ---------------------------------------------------------------------------------- */
/* Zarr-specific golden fields and checks                                              */
/* ---------------------------------------------------------------------------------- */

/** A CF dimension may carry a calendar and, for time, the dates as ISO strings. */
interface ZarrGoldenDim extends GoldenDim {
  calendar?: string;
  iso?: string[];
}

/** A CF variable also carries a description (long_name). */
interface ZarrGoldenVariable extends GoldenVariable<ZarrGoldenDim> {
  description: string;
}

/** The store's golden also lists the root attributes. */
interface ZarrGolden extends Golden<ZarrGoldenVariable> {
  attributes: Record<string, unknown>;
}

const golden = loadGolden<ZarrGolden>("v2_xarray_style");

/** The common variable checks, then description, calendars, dates and consumed encoding. */
function checkZarrVariable(v: Variable, gv: ZarrGoldenVariable): void {
  checkVariable(v, gv);
  assert.equal(v.description, gv.description);
  gv.dims.forEach((gd, i) => {
    const d = v.dimensions[i];
    assert.equal(d.calendar, gd.calendar);
    if (gd.iso)
      assert.deepEqual(
        d.values.map((ms) => new Date(ms).toISOString().slice(0, 10)),
        gd.iso,
      );
  });
  // xarray's encoding attributes are consumed, not passed on
  assert.equal(v.attributes["_ARRAY_DIMENSIONS"], undefined);
  assert.equal(v.attributes["_FillValue"], undefined);
}

/** Everything the golden states about a cube opened from any location. */
function describeCubeChecks(label: string, open: () => Promise<Cube>): void {
  describe(label, () => {
    let cube: Cube;
    before(async () => {
      cube = await open();
    });
    after(async () => {
      await cube?.close();
    });

    test("grid: size, GDAL transform (north-up), EPSG:4326 and cell centres", () => {
      checkGrid(cube, golden);
    });

    test("variables mask and tas; coordinates are not variables and nothing is skipped", () => {
      assert.deepEqual(
        cube.variables.map((v) => v.name),
        golden.variables.map((v) => v.name),
      );
      assert.deepEqual(cube.skipped, []);
      golden.variables.forEach((gv, i) => checkZarrVariable(cube.variables[i], gv));
    });

    test("root attributes", () => {
      for (const [k, val] of Object.entries(golden.attributes)) assert.deepEqual(cube.attributes[k], val, k);
    });

    for (const [i, w] of golden.windows.entries()) {
      test(`window ${i}: ${w.variable} ${JSON.stringify(w.index)} rows ${w.rows} cols ${w.cols}`, async () => {
        await checkWindow(cube, w);
      });
    }

    test("out-of-range windows and time ranges reject with a RangeError", async () => {
      const tas = cube.variables.find((v) => v.name === "tas")!;
      await assert.rejects(tas.read({ window: { x: 6, y: 0, width: 3, height: 2 } }), RangeError);
      await assert.rejects(tas.read({ window: { x: 0, y: 5, width: 2, height: 2 } }), RangeError);
      await assert.rejects(tas.read({ window: { x: -1, y: 0, width: 2, height: 2 } }), RangeError);
      await assert.rejects(tas.read({ dims: [[3, 5]] }), RangeError);
      await assert.rejects(tas.read({ dims: [[2, 2]] }), RangeError);
      const mask = cube.variables.find((v) => v.name === "mask")!;
      await assert.rejects(mask.read({ window: { x: 0, y: 0, width: 9, height: 6 } }), RangeError);
    });
  });
}

/* ---------------------------------------------------------------------------------- */
/* Tests                                                                               */
/* ---------------------------------------------------------------------------------- */

describeCubeChecks("Zarr v2 (xarray layout) from a directory", () => openCube(STORE));

describe("Zarr v2 (xarray layout) over HTTP", () => {
  let server: StaticServer;
  before(async () => {
    server = await serveDirectory(STORE);
  });
  after(async () => {
    await server?.close();
  });

  describeCubeChecks("through a static file server", () => openCube(server.url));

  test("a window fetches only the chunks it touches", async () => {
    const cube = await openCube(server.url);
    try {
      server.requests.length = 0;
      const w = golden.windows.find((x) => x.variable === "tas" && x.index.time[0] === 3 && x.index.time[1] === 4)!;
      await checkWindow(cube, w);
      const chunks = server.requests.filter((p) => /^\/tas\/\d+\.\d+\.\d+$/.test(p));
      assert.deepEqual(chunks, ["/tas/3.0.0"]);
    } finally {
      await cube.close();
    }
  });
});

describe("Zarr v2 without consolidated metadata (.zmetadata removed)", () => {
  let dir: string;
  let copy: string;
  let server: StaticServer;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-zarr-"));
    copy = join(dir, "unconsolidated.zarr");
    await cp(STORE, copy, { recursive: true });
    await rm(join(copy, ".zmetadata"));
    server = await serveDirectory(copy);
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describeCubeChecks("from a directory (arrays found by walking the tree)", () => openCube(copy));

  test("over HTTP it is refused: listing the arrays needs consolidated metadata", async () => {
    await assert.rejects(openCube(server.url), (e: unknown) => {
      assert.ok(e instanceof UnsupportedDataError, `expected UnsupportedDataError, got ${String(e)}`);
      assert.match(e.message, /consolidated metadata/);
      assert.ok(e.message.includes(server.url.href), `message names the store: ${e.message}`);
      return true;
    });
  });
});

describe("Zarr v2 chunks that are absent read as the fill value (write_empty_chunks=False)", () => {
  let dir: string;
  let cube: Cube;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-zarr-"));
    const copy = join(dir, "sparse.zarr");
    await cp(STORE, copy, { recursive: true });
    await rm(join(copy, "tas", "2.0.0")); // all of time index 2
    await rm(join(copy, "mask", "0.0")); // storage rows 0-2 (north-up rows 3-5), cols 0-3
    cube = await openCube(copy);
  });
  after(async () => {
    await cube?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("tas at time index 2 is all NaN; its neighbours are intact", async () => {
    const tas = cube.variables.find((v) => v.name === "tas")!;
    const slab = await tas.read({ dims: [[2, 3]] });
    assert.ok(slab.data instanceof Float32Array);
    assert.ok(Array.from(slab.data).every(Number.isNaN));
    await checkWindow(
      cube,
      golden.windows.find((w) => w.variable === "tas" && w.index.time[0] === 3)!,
    );
  });

  test("mask in the missing chunk is -1 (nodata); elsewhere as stored", async () => {
    const whole = golden.windows.find((w) => w.variable === "mask" && w.shape.join() === "6,8")!;
    const expected = whole.values.map((v, i) => (Math.floor(i / 8) >= 3 && i % 8 < 4 ? null : v));
    const mask = cube.variables.find((v) => v.name === "mask")!;
    const slab = await mask.read();
    assert.ok(slab.data instanceof Int16Array);
    assert.deepEqual(asGoldenValues(slab.data, mask.nodata), expected);
    assert.equal(Array.from(slab.data).filter((v) => v === -1).length, expected.filter((v) => v === null).length);
  });
});

test("the time axis is StdTime, decoded from days since 2000-01-01 (proleptic Gregorian)", async () => {
  const cube = await openCube(STORE);
  try {
    const tas = cube.variables.find((v) => v.name === "tas")!;
    const [time] = tas.dimensions;
    assert.equal(time.name, STD_TIME);
    assert.deepEqual(
      time.values.map((ms) => new Date(ms).toISOString()),
      ["2000-01-01T00:00:00.000Z", "2000-02-01T00:00:00.000Z", "2000-03-01T00:00:00.000Z", "2000-04-01T00:00:00.000Z"],
    );
  } finally {
    await cube.close();
  }
});

test("a damaged chunk is a CorruptDataError that names the store", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-zarr-"));
  try {
    const copy = join(dir, "damaged.zarr");
    await cp(STORE, copy, { recursive: true });
    await writeFile(join(copy, "tas", "1.0.0"), "not zlib at all");
    const cube = await openCube(copy);
    const tas = cube.variables.find((v) => v.name === "tas")!;
    await assert.rejects(tas.read({ dims: [[1, 2]] }), (e: Error) => e instanceof CorruptDataError && e.message.includes(copy));
    await cube.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
