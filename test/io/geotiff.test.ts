/**
 * Tests of the GeoTIFF reader (src/io/geotiff.ts) through openCube, against goldens whose
 * every value was computed by numpy (and read back with tifffile), never by Strata.
 *
 * Fixtures (test/fixtures/small/) and goldens (test/golden/formats/) are made, from the
 * repository root, with:
 *   /tmp/v/bin/python scripts/goldens/make_format_fixtures.py
 *
 * - geo_4326_3band.tif: 3-band float32, 20x10, EPSG:4326, 0.5 deg, corner (-10, 60),
 *   GDAL_NODATA -9999 with five -9999 cells, contig samples, 16x16 tiles, deflate.
 * - utm_uint16.tif: 1-band uint16, 12x8, EPSG:32633, 30 m, no nodata, 3-row strips.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { CorruptDataError, UnsupportedDataError } from "../../src/cube/errors.js";
import type { Cube, PixelType, TypedArray, Variable } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const FIXTURES = join(ROOT, "test/fixtures/small");
const GOLDEN = join(ROOT, "test/golden/formats");

/* ---------------------------------------------------------------------------------- */
/* Golden format and comparison helpers                                                */
/* ---------------------------------------------------------------------------------- */

interface GoldenDim {
  name: string;
  source_name: string;
  unit: string;
  values: number[];
  interval: number | null;
  interval_unit: string | null;
}

interface GoldenVariable {
  name: string;
  pixel_type: PixelType;
  /** A number, "NaN", or null for "no nodata". */
  nodata: number | "NaN" | null;
  unit: string;
  chunk_shape: number[];
  dims: GoldenDim[];
}

interface GoldenWindow {
  variable: string;
  /** Half-open range per non-spatial dimension, by source name, in dimension order. */
  index: Record<string, [number, number]>;
  rows: [number, number];
  cols: [number, number];
  shape: number[];
  y: number[];
  x: number[];
  /** C order over [...dims, rows, cols], rows north-up; null = nodata. */
  values: (number | null)[];
}

interface Golden {
  file: string;
  grid: { width: number; height: number; transform: number[]; epsg: number; x: number[]; y: number[] };
  variables: GoldenVariable[];
  nodata_cells?: [number, number, number][];
  windows: GoldenWindow[];
}

/** Read synchronously: test names are built from the windows at module load. */
function loadGolden(stem: string): Golden {
  return JSON.parse(readFileSync(join(GOLDEN, `${stem}.json`), "utf8")) as Golden;
}

const ARRAY_OF: Record<PixelType, new (n: number) => TypedArray> = {
  U8: Uint8Array,
  S8: Int8Array,
  U16: Uint16Array,
  S16: Int16Array,
  U32: Uint32Array,
  S32: Int32Array,
  F32: Float32Array,
  F64: Float64Array,
};

/**
 * Values as the golden states them: null exactly where the cell holds the variable's
 * nodata (the sentinel itself, or NaN when nodata is NaN); anything else as is, so a NaN
 * where a sentinel is expected, or the reverse, shows up as a mismatch.
 */
function asGoldenValues(data: TypedArray, nodata: number | undefined): (number | null)[] {
  return Array.from(data as ArrayLike<number>, (v) =>
    nodata === undefined ? v : Number.isNaN(nodata) ? (Number.isNaN(v) ? null : v) : v === nodata ? null : v,
  );
}

function goldenNodata(n: GoldenVariable["nodata"]): number | undefined {
  return n === null ? undefined : n === "NaN" ? NaN : n;
}

async function checkWindow(cube: Cube, w: GoldenWindow): Promise<void> {
  const v = cube.variables.find((x) => x.name === w.variable);
  assert.ok(v, `variable ${w.variable}`);
  const dims = v.dimensions.map((d) => {
    const r = w.index[d.sourceName];
    assert.ok(r, `window index names dimension ${d.sourceName}`);
    return r;
  });
  assert.equal(Object.keys(w.index).length, v.dimensions.length);
  const slab = await v.read({
    dims,
    window: { x: w.cols[0], y: w.rows[0], width: w.cols[1] - w.cols[0], height: w.rows[1] - w.rows[0] },
  });
  const what = `${w.variable} ${JSON.stringify(w.index)} rows ${w.rows} cols ${w.cols}`;
  assert.deepEqual([...slab.shape], w.shape, what);
  assert.ok(slab.data instanceof ARRAY_OF[v.pixelType], `${what}: a ${v.pixelType} array, got ${slab.data.constructor.name}`);
  assert.equal(slab.data.length, w.values.length, what);
  assert.deepEqual(asGoldenValues(slab.data, v.nodata), w.values, what);
  assert.deepEqual(Array.from(cube.grid.y.subarray(w.rows[0], w.rows[1])), w.y, `${what}: row centres`);
  assert.deepEqual(Array.from(cube.grid.x.subarray(w.cols[0], w.cols[1])), w.x, `${what}: column centres`);
}

function checkGrid(cube: Cube, g: Golden): void {
  assert.equal(cube.grid.width, g.grid.width);
  assert.equal(cube.grid.height, g.grid.height);
  assert.deepEqual([...cube.grid.transform], g.grid.transform);
  assert.equal(cube.grid.crs.epsg, g.grid.epsg);
  assert.deepEqual(Array.from(cube.grid.x), g.grid.x);
  assert.deepEqual(Array.from(cube.grid.y), g.grid.y);
}

function checkVariable(v: Variable, gv: GoldenVariable): void {
  assert.equal(v.name, gv.name);
  assert.equal(v.pixelType, gv.pixel_type);
  const nd = goldenNodata(gv.nodata);
  if (nd === undefined) assert.equal(v.nodata, undefined, `${v.name} has no nodata`);
  else if (Number.isNaN(nd)) assert.ok(Number.isNaN(v.nodata), `${v.name} nodata is NaN`);
  else assert.equal(v.nodata, nd);
  assert.equal(v.unit, gv.unit);
  assert.deepEqual([...v.chunkShape], gv.chunk_shape);
  assert.equal(v.dimensions.length, gv.dims.length);
  gv.dims.forEach((gd, i) => {
    const d = v.dimensions[i];
    assert.equal(d.name, gd.name);
    assert.equal(d.sourceName, gd.source_name);
    assert.equal(d.unit, gd.unit);
    assert.deepEqual([...d.values], gd.values);
    assert.equal(d.interval, gd.interval ?? undefined);
    assert.equal(d.intervalUnit, gd.interval_unit ?? undefined);
  });
}

/** The error must be one of Strata's data errors and name the file. */
function refusesNaming(path: string) {
  return (e: unknown): boolean => {
    assert.ok(
      e instanceof CorruptDataError || e instanceof UnsupportedDataError,
      `expected CorruptDataError or UnsupportedDataError, got ${e instanceof Error ? `${e.name}: ${e.message}` : typeof e + " " + String(e)}`,
    );
    assert.ok(e.message.includes(path), `message names the file: ${e.message}`);
    return true;
  };
}

/** Open and read everything; a damaged file must be refused at one of the two steps. */
async function openAndReadAll(path: string): Promise<void> {
  const cube = await openCube(path);
  try {
    for (const v of cube.variables) await v.read();
  } finally {
    await cube.close();
  }
}

/* ---------------------------------------------------------------------------------- */
/* Tests                                                                               */
/* ---------------------------------------------------------------------------------- */

for (const stem of ["geo_4326_3band", "utm_uint16"]) {
  describe(`GeoTIFF ${stem}.tif against its golden`, () => {
    const golden = loadGolden(stem);
    let cube: Cube;
    before(async () => {
      cube = await openCube(join(FIXTURES, golden.file));
    });
    after(async () => {
      await cube?.close();
    });

    test("grid: size, GDAL transform, EPSG code and cell centres", () => {
      checkGrid(cube, golden);
    });

    test("one variable named after the file, with pixel type, nodata, chunks and the Band dimension", () => {
      assert.equal(cube.variables.length, 1);
      assert.deepEqual(cube.skipped, []);
      checkVariable(cube.variables[0], golden.variables[0]);
    });

    for (const [i, w] of golden.windows.entries()) {
      test(`window ${i}: Band ${JSON.stringify(w.index.Band)}, rows ${w.rows}, cols ${w.cols}`, async () => {
        await checkWindow(cube, w);
      });
    }

    test("read() without a selection is the whole variable", async () => {
      const whole = golden.windows.find((w) => w.shape.join() === [w.shape[0], golden.grid.height, golden.grid.width].join());
      assert.ok(whole && whole.index.Band[0] === 0 && whole.index.Band[1] === golden.variables[0].dims[0].values.length);
      const v = cube.variables[0];
      const slab = await v.read();
      assert.deepEqual([...slab.shape], whole.shape);
      assert.deepEqual(asGoldenValues(slab.data, v.nodata), whole.values);
    });
  });
}

describe("GeoTIFF geo_4326_3band.tif specifics", () => {
  const golden = loadGolden("geo_4326_3band");
  let cube: Cube;
  before(async () => {
    cube = await openCube(join(FIXTURES, "geo_4326_3band.tif"));
  });
  after(async () => {
    await cube?.close();
  });

  test("the bands form the dimension Band with values [1, 2, 3]", () => {
    const [band] = cube.variables[0].dimensions;
    assert.equal(cube.variables[0].dimensions.length, 1);
    assert.equal(band.name, "Band");
    assert.deepEqual([...band.values], [1, 2, 3]);
  });

  test("nodata cells keep the sentinel -9999 in the array", async () => {
    const v = cube.variables[0];
    assert.equal(v.nodata, -9999);
    const cells = golden.nodata_cells ?? [];
    assert.ok(cells.length > 0);
    for (const [b, y, x] of cells) {
      const slab = await v.read({ dims: [[b, b + 1]], window: { x, y, width: 1, height: 1 } });
      assert.equal(slab.data[0], -9999, `band ${b + 1} row ${y} col ${x}`);
    }
  });

  test("a window outside the grid, or a band range outside [0, 3), rejects with a RangeError", async () => {
    const v = cube.variables[0];
    const bad = [
      { x: 18, y: 0, width: 4, height: 2 }, // past the east edge
      { x: 0, y: 9, width: 2, height: 2 }, // past the south edge
      { x: -1, y: 0, width: 2, height: 2 },
      { x: 0, y: -1, width: 2, height: 2 },
      { x: 0, y: 0, width: 0, height: 2 }, // empty
      { x: 0, y: 0, width: 21, height: 10 },
    ];
    for (const window of bad) await assert.rejects(v.read({ window }), RangeError, JSON.stringify(window));
    await assert.rejects(v.read({ dims: [[2, 4]] }), RangeError);
    await assert.rejects(v.read({ dims: [[-1, 1]] }), RangeError);
    await assert.rejects(v.read({ dims: [[1, 1]] }), RangeError);
  });
});

describe("GeoTIFF: damaged and foreign files are refused with an error naming the file", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-geotiff-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const file of ["geo_4326_3band.tif", "utm_uint16.tif"]) {
    // 8: header only; 100: inside the first IFD; half: the IFD is whole, the pixel data
    // is cut; size - 10: only the end of the last tile / strip is missing.
    for (const cut of ["8", "100", "half", "size-10"]) {
      test(`${file} truncated at ${cut} bytes`, async () => {
        const bytes = await readFile(join(FIXTURES, file));
        const n = cut === "half" ? bytes.length >> 1 : cut === "size-10" ? bytes.length - 10 : Number(cut);
        const path = join(dir, `truncated_${n}_${file}`);
        await writeFile(path, bytes.subarray(0, n));
        await assert.rejects(openAndReadAll(path), refusesNaming(path));
      });
    }
  }

  test("a text file with a .tif name", async () => {
    const path = join(dir, "notes.tif");
    await writeFile(path, "This is not a raster.\n".repeat(10));
    await assert.rejects(openCube(path), refusesNaming(path));
  });

  test("an empty file", async () => {
    const path = join(dir, "empty.tif");
    await writeFile(path, "");
    await assert.rejects(openCube(path), refusesNaming(path));
  });

  test("a TIFF without georeferencing tags", async () => {
    // Rename the ModelPixelScale (33550) and ModelTiepoint (33922) tags of a copy to
    // private codes, leaving a valid plain TIFF.
    const bytes = Buffer.from(await readFile(join(FIXTURES, "utm_uint16.tif")));
    assert.equal(bytes.toString("latin1", 0, 2), "II");
    const ifd = bytes.readUInt32LE(4);
    const count = bytes.readUInt16LE(ifd);
    let renamed = 0;
    for (let i = 0; i < count; i++) {
      const at = ifd + 2 + 12 * i;
      const tag = bytes.readUInt16LE(at);
      if (tag === 33550 || tag === 33922) {
        bytes.writeUInt16LE(tag === 33550 ? 65000 : 65001, at);
        renamed++;
      }
    }
    assert.equal(renamed, 2);
    const path = join(dir, "plain.tif");
    await writeFile(path, bytes);
    await assert.rejects(openCube(path), (e: unknown) => {
      assert.ok(e instanceof UnsupportedDataError, String(e));
      assert.match(e.message, /georeferencing/);
      assert.ok(e.message.includes(path), e.message);
      return true;
    });
  });
});
