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
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { CorruptDataError, UnsupportedDataError } from "../../src/cube/errors.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { type Golden, SMALL_FIXTURES, asGoldenValues, checkGrid, checkVariable, checkWindow, loadGolden } from "../helpers/formatGolden.js";

/* ---------------------------------------------------------------------------------- */
/* GeoTIFF-specific golden fields and helpers                                          */
/* ---------------------------------------------------------------------------------- */

/** A GeoTIFF golden also lists the [band, row, col] cells that hold the nodata sentinel. */
interface GeoTiffGolden extends Golden {
  nodata_cells?: [number, number, number][];
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
    const golden = loadGolden<GeoTiffGolden>(stem);
    let cube: Cube;
    before(async () => {
      cube = await openCube(join(SMALL_FIXTURES, golden.file));
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
  const golden = loadGolden<GeoTiffGolden>("geo_4326_3band");
  let cube: Cube;
  before(async () => {
    cube = await openCube(join(SMALL_FIXTURES, "geo_4326_3band.tif"));
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
        const bytes = await readFile(join(SMALL_FIXTURES, file));
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
    const bytes = Buffer.from(await readFile(join(SMALL_FIXTURES, "utm_uint16.tif")));
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
