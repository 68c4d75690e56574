/**
 * Format goldens (test/golden/formats/), whose every value was computed by numpy, never by
 * Strata, and the checks that hold a cube opened by openCube against them. Goldens and the
 * fixtures they describe (test/fixtures/small/) are made, from the repository root, with:
 *   /tmp/v/bin/python scripts/goldens/make_format_fixtures.py
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { type Cube, PIXEL_ARRAYS, type PixelType, type TypedArray, type Variable } from "../../src/cube/types.js";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The small fixtures the format goldens describe. */
export const SMALL_FIXTURES = join(ROOT, "test/fixtures/small");

/** The folder of the format goldens. */
export const FORMAT_GOLDENS = join(ROOT, "test/golden/formats");

/** One dimension of a golden variable, as the reader must present it. */
export interface GoldenDim {
  name: string;
  source_name: string;
  unit: string;
  values: number[];
  interval: number | null;
  interval_unit: string | null;
}

/** One variable of a golden; a format's golden may add fields and richer dimensions. */
export interface GoldenVariable<D extends GoldenDim = GoldenDim> {
  name: string;
  pixel_type: PixelType;
  /** A number, "NaN", or null for "no nodata". */
  nodata: number | "NaN" | null;
  unit: string;
  chunk_shape: number[];
  dims: D[];
}

/** A window read from one variable, with the values it must hold. */
export interface GoldenWindow {
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

/** The grid of a golden: size, GDAL transform, EPSG code and cell centres (north-up). */
export interface GoldenGrid {
  width: number;
  height: number;
  transform: number[];
  epsg: number;
  x: number[];
  y: number[];
}

/** What every format golden holds; a format's golden may add fields. */
export interface Golden<V extends GoldenVariable = GoldenVariable> {
  file: string;
  grid: GoldenGrid;
  variables: V[];
  windows: GoldenWindow[];
}

/**
 * The golden test/golden/formats/<stem>.json, read synchronously: test names are built
 * from the windows at module load.
 */
export function loadGolden<G extends Golden = Golden>(stem: string): G {
  return JSON.parse(readFileSync(join(FORMAT_GOLDENS, `${stem}.json`), "utf8")) as G;
}

/**
 * Values as the golden states them: null exactly where the cell holds the variable's
 * nodata (the sentinel itself, or NaN when nodata is NaN); anything else as is, so a NaN
 * where a sentinel is expected, or the reverse, shows up as a mismatch.
 */
export function asGoldenValues(data: TypedArray, nodata: number | undefined): (number | null)[] {
  return Array.from(data as ArrayLike<number>, (v) =>
    nodata === undefined ? v : Number.isNaN(nodata) ? (Number.isNaN(v) ? null : v) : v === nodata ? null : v,
  );
}

/** A golden nodata as Strata states it: undefined for none, NaN for "NaN". */
export function goldenNodata(n: GoldenVariable["nodata"]): number | undefined {
  return n === null ? undefined : n === "NaN" ? NaN : n;
}

/** Read the window from the cube and compare shape, array type, values and cell centres. */
export async function checkWindow(cube: Cube, w: GoldenWindow): Promise<void> {
  const v = cube.variables.find((x) => x.name === w.variable);
  assert.ok(v, `variable ${w.variable}`);
  assert.equal(Object.keys(w.index).length, v.dimensions.length);
  const dims = v.dimensions.map((d) => {
    const r = w.index[d.sourceName];
    assert.ok(r, `window index names dimension ${d.sourceName}`);
    return r;
  });
  const slab = await v.read({
    dims,
    window: { x: w.cols[0], y: w.rows[0], width: w.cols[1] - w.cols[0], height: w.rows[1] - w.rows[0] },
  });
  const what = `${w.variable} ${JSON.stringify(w.index)} rows ${w.rows} cols ${w.cols}`;
  assert.deepEqual([...slab.shape], w.shape, what);
  assert.ok(slab.data instanceof PIXEL_ARRAYS[v.pixelType], `${what}: a ${v.pixelType} array, got ${slab.data.constructor.name}`);
  assert.equal(slab.data.length, w.values.length, what);
  assert.deepEqual(asGoldenValues(slab.data, v.nodata), w.values, what);
  assert.deepEqual(Array.from(cube.grid.y.subarray(w.rows[0], w.rows[1])), w.y, `${what}: row centres`);
  assert.deepEqual(Array.from(cube.grid.x.subarray(w.cols[0], w.cols[1])), w.x, `${what}: column centres`);
}

/** The cube's grid: size, GDAL transform, EPSG code and cell centres, rows north-up. */
export function checkGrid(cube: Cube, g: Golden): void {
  assert.equal(cube.grid.width, g.grid.width);
  assert.equal(cube.grid.height, g.grid.height);
  assert.deepEqual([...cube.grid.transform], g.grid.transform);
  assert.equal(cube.grid.crs.epsg, g.grid.epsg);
  assert.deepEqual(Array.from(cube.grid.x), g.grid.x);
  assert.deepEqual(Array.from(cube.grid.y), g.grid.y, "row centres north-up");
}

/**
 * What every format golden states about a variable: name, pixel type, nodata, unit, chunk
 * shape and, per dimension, name, source name, unit, values and interval.
 */
export function checkVariable(v: Variable, gv: GoldenVariable): void {
  assert.equal(v.name, gv.name);
  assert.equal(v.pixelType, gv.pixel_type);
  const nd = goldenNodata(gv.nodata);
  if (nd === undefined) assert.equal(v.nodata, undefined, `${v.name} has no nodata`);
  else if (Number.isNaN(nd)) assert.ok(Number.isNaN(v.nodata), `${v.name} nodata is NaN, got ${v.nodata}`);
  else assert.equal(v.nodata, nd);
  assert.equal(v.unit, gv.unit);
  assert.deepEqual([...v.chunkShape], gv.chunk_shape);
  assert.equal(v.dimensions.length, gv.dims.length);
  assert.deepEqual(
    v.dimensions.map((d) => d.sourceName),
    gv.dims.map((d) => d.source_name),
  );
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
