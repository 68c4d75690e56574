/**
 * The same small daily cube as real tools write it (xarray defaults and packed, NetCDF-3
 * 64-bit offset, `hours since` with a UTC offset, CDO nc4c, NCO netCDF-4 classic with a record
 * dimension, GDAL netCDF and GeoTIFF stacks, longitudes 0..360 and -180..180, latitudes both
 * ways): every file is read with xarray's dimensions, coordinates and values (GDAL's for the
 * GeoTIFFs), or refused with a message naming what is unsupported; nothing of a file is
 * left out without a note in `skipped`; the anomaly of each daily file equals numpy's.
 *
 * Goldens (never Strata's output), from the repository root:
 *   /tmp/v14/bin/python scripts/goldens/make_corpus.py
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { type Cube, STD_TIME, type Variable } from "../../src/cube/types.js";
import { openCube, openLocation } from "../../src/io/open.js";
import { type AnomalyOptions, anomalyTask, writeAnomaly } from "../../src/tasks/anomaly.js";
import type { ParseEnv } from "../../src/tasks/types.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/corpus/", import.meta.url));
const GOLDEN = fileURLToPath(new URL("../golden/corpus/corpus.json", import.meta.url));

type Values = (number | null)[];
interface Entry {
  file: string;
  refused?: boolean;
  because?: string;
  dims?: Record<string, number>;
  coords?: Record<string, { values: number[]; time: boolean }>;
  vars?: Record<string, { dims: string[]; dtype: string; grid_mapping?: string | null; values?: Values }>;
  anomaly?: Values;
  geotiff?: { bands: number; height: number; width: number; transform: number[]; values: Values };
}

const CORPUS = JSON.parse(readFileSync(GOLDEN, "utf8")) as Entry[];

/** Same number, NaN/nodata as null; float32 values compared in float32. */
function same(got: number, want: number | null, f32: boolean, what: string, nodata?: number): void {
  const missing = Number.isNaN(got) || (nodata !== undefined && got === nodata);
  if (want === null) return assert.ok(missing, `${what}: ${got}, xarray reads NaN`);
  assert.ok(!missing, `${what}: nodata, xarray reads ${want}`);
  assert.equal(got, f32 ? Math.fround(want) : want, what);
}

/** For each of Strata's north-up rows / columns, the index of the same coordinate in xarray's order. */
function indexIn(strata: Float64Array, xarray: number[], what: string): number[] {
  return Array.from(strata, (v) => {
    const i = xarray.findIndex((x) => Math.abs(x - v) < 1e-9);
    assert.ok(i >= 0, `${what} ${v} is not among xarray's ${xarray.join(", ")}`);
    return i;
  });
}

/**
 * For Strata's north-up rows and its columns, the indices of the same latitudes and longitudes
 * in xarray's order: every one of xarray's, the longitudes in stored order.
 */
function xarrayOrder(cube: Cube, e: Entry): { rows: number[]; cols: number[]; lat: number[]; lon: number[] } {
  const lat = e.coords!.lat.values;
  const lon = e.coords!.lon.values;
  const rows = indexIn(cube.grid.y, lat, "latitude");
  const cols = indexIn(cube.grid.x, lon, "longitude");
  assert.equal(rows.length, lat.length, `${e.file}: every latitude`);
  assert.equal(cols.length, lon.length, `${e.file}: every longitude`);
  assert.deepEqual(
    cols,
    [...cols].sort((a, b) => a - b),
    `${e.file}: longitudes kept in stored order`,
  );
  return { rows, cols, lat, lon };
}

/** Every array xarray shows is read, is the grid or a dimension, is a grid mapping, or is named in skipped. */
function accountedFor(cube: Cube, e: Entry): void {
  const read = new Set<string>(cube.variables.map((v) => v.name));
  for (const v of cube.variables) for (const d of v.dimensions) read.add(d.sourceName);
  const mappings = new Set(Object.values(e.vars ?? {}).flatMap((v) => (v.grid_mapping ? [v.grid_mapping] : [])));
  const skipped = new Set(cube.skipped.map((s) => s.name));
  for (const name of [...Object.keys(e.vars ?? {}), ...Object.keys(e.coords ?? {})]) {
    const isGrid = name === "lat" || name === "lon";
    assert.ok(read.has(name) || isGrid || mappings.has(name) || skipped.has(name), `${e.file}: ${name} is dropped without a word`);
  }
}

function checkVariable(e: Entry, name: string, v: Variable): void {
  const want = e.vars![name];
  const nonSpatial = want.dims.slice(0, -2);
  assert.deepEqual(
    v.dimensions.map((d) => d.sourceName),
    nonSpatial,
    `${e.file}:${name} dimensions`,
  );
  for (const d of v.dimensions) {
    const c = e.coords![d.sourceName];
    assert.equal(d.values.length, e.dims![d.sourceName]);
    if (c.time) assert.equal(d.name, STD_TIME, `${e.file}: ${d.sourceName} is time`);
    assert.deepEqual([...d.values], c.values, `${e.file}: ${d.sourceName} values`);
  }
}

describe("a corpus of files as real tools write them, against xarray / GDAL / numpy", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-corpus-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const e of CORPUS) {
    const path = join(FIXTURES, e.file);
    if (e.refused) {
      it(`${e.file} is refused, naming what is unsupported`, async () => {
        await assert.rejects(openCube(path), (err: Error) => {
          assert.match(err.message, new RegExp(e.because!));
          assert.match(err.message, /time/); // names the variable
          return true;
        });
      });
      continue;
    }
    if (e.geotiff) {
      it(`${e.file}: GDAL's bands, transform and values`, async () => {
        const g = e.geotiff!;
        const cube = await openCube(path);
        try {
          assert.equal(cube.variables.length, 1);
          const v = cube.variables[0];
          assert.deepEqual([...cube.grid.transform], g.transform);
          assert.deepEqual(
            v.dimensions.map((d) => d.values.length),
            [g.bands],
          );
          const slab = await v.read();
          assert.equal(slab.data.length, g.values.length);
          slab.data.forEach((x, i) => same(x, g.values[i], v.pixelType === "F32", `${e.file}[${i}]`, v.nodata));
        } finally {
          await cube.close();
        }
      });
      continue;
    }
    it(`${e.file}: xarray's dimensions, coordinates and values; nothing dropped in silence`, async () => {
      const cube = await openCube(path);
      try {
        const { rows, cols, lat, lon } = xarrayOrder(cube, e);
        const gridded = Object.entries(e.vars!).filter(([, v]) => v.values);
        assert.deepEqual(cube.variables.map((v) => v.name).sort(), gridded.map(([n]) => n).sort());
        for (const [name, want] of gridded) {
          const v = cube.variables.find((x) => x.name === name)!;
          checkVariable(e, name, v);
          const slab = await v.read();
          const planes = slab.data.length / (rows.length * cols.length);
          const f32 = want.dtype === "float32";
          assert.equal(v.pixelType, f32 ? "F32" : "F64", `${e.file}:${name} decodes to ${want.dtype}`);
          for (let p = 0; p < planes; p++)
            for (let r = 0; r < rows.length; r++)
              for (let c = 0; c < cols.length; c++) {
                const got = slab.data[(p * rows.length + r) * cols.length + c];
                const wantValue = want.values![(p * lat.length + rows[r]) * lon.length + cols[c]];
                same(got, wantValue, f32, `${e.file}:${name}[${p},${r},${c}]`, v.nodata);
              }
        }
        accountedFor(cube, e);
      } finally {
        await cube.close();
      }
    });

    if (!e.anomaly) continue;
    it(`${e.file}: DIFFERENCE_FROM_MEAN, RECURRING_MONTHLY equals numpy's`, async () => {
      const env: ParseEnv = {
        resolveInput: async () => ({ location: { path }, warnings: [] }),
        resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
        openCube: (location) => openLocation(location),
      };
      const { options } = await anomalyTask.parse(
        {
          inputMultidimensionalRaster: JSON.stringify({ uri: e.file }),
          outputName: '{"serviceProperties":{"name":"x"}}',
          method: "DIFFERENCE_FROM_MEAN",
          calculationInterval: "RECURRING_MONTHLY",
        },
        env,
      );
      const plan = JSON.parse(JSON.stringify(options)) as AnomalyOptions;
      const out = join(dir, `${e.file}.zarr`);
      const source = await openLocation(plan.input);
      try {
        await writeAnomaly(source, plan, out, {});
      } finally {
        await source.close();
      }
      const cube = await openCube(out);
      try {
        const { rows, cols, lat, lon } = xarrayOrder(cube, e);
        const v = cube.variables.find((x) => x.name === "tas")!;
        assert.deepEqual([...v.dimensions[0].values], e.coords!.time.values, "the input's days");
        const slab = await v.read();
        const days = v.dimensions[0].values.length;
        for (let t = 0; t < days; t++)
          for (let r = 0; r < rows.length; r++)
            for (let c = 0; c < cols.length; c++) {
              const got = slab.data[(t * rows.length + r) * cols.length + c];
              const want = e.anomaly![(t * lat.length + rows[r]) * lon.length + cols[c]];
              const what = `${e.file} anomaly[${t},${r},${c}]`;
              if (want === null) assert.ok(Number.isNaN(got) || got === v.nodata, `${what}: ${got}, numpy gives NaN`);
              else assert.ok(Math.abs(got - want) <= 1e-5 * Math.max(1, Math.abs(want)), `${what}: ${got}, numpy gives ${want}`);
            }
      } finally {
        await cube.close();
      }
    });
  }
});
