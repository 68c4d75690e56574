/**
 * NetCDF-4 downloads: what Strata writes reads back the same through Strata's own reader
 * and, independently, through xarray (Debian's /usr/bin/python3 with xarray + netCDF4, i.e.
 * netCDF-C and HDF5 1.10): values, nodata, coordinates, time axis, units, georeferencing,
 * selections of variables, slices and window; and bad requests fail cleanly.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { resolveCrs } from "../../src/analysis/crs.js";
import { InvalidInputError } from "../../src/cube/errors.js";
import { gridFromTransform } from "../../src/cube/grid.js";
import { decodeCfTimes } from "../../src/cube/time.js";
import { type Cube, type Dimension, type Grid, PIXEL_ARRAYS, type PixelType, type Selection } from "../../src/cube/types.js";
import { BLOCK_BYTES, writeNetcdf4 } from "../../src/io/netcdf4Write.js";
import { openCube } from "../../src/io/open.js";
import { REAL } from "../helpers/golden.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";
import { xarrayView } from "../helpers/xarray.js";

const WINDS = `${REAL}monthly_navy_winds.cdf`;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-nc4w-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/* --------------------------------- in-memory cubes --------------------------------- */

interface MemoryVariable {
  name: string;
  pixelType: PixelType;
  nodata?: number;
  dims: Dimension[];
  chunkShape?: number[];
  unit?: string;
  attributes?: Record<string, unknown>;
  /** Value at these dimension indices, north-up row and column. */
  value(at: number[], row: number, col: number): number;
}

/** A cube computed on the fly; `reads` records every selection asked of it. */
function memoryCube(grid: Grid, vars: MemoryVariable[], attributes: Record<string, unknown> = {}): Cube & { reads: Selection[] } {
  const reads: Selection[] = [];
  return {
    grid,
    attributes,
    skipped: [],
    reads,
    close: async () => {},
    variables: vars.map((m) => ({
      name: m.name,
      description: `${m.name} long name`,
      unit: m.unit ?? "",
      pixelType: m.pixelType,
      nodata: m.nodata,
      dimensions: m.dims,
      chunkShape: m.chunkShape ?? [...m.dims.map(() => 1), grid.height, grid.width],
      attributes: m.attributes ?? {},
      async read(sel: Selection = {}) {
        reads.push(sel);
        const ranges = m.dims.map((d, i) => sel.dims?.[i] ?? ([0, d.values.length] as const));
        const w = sel.window ?? { x: 0, y: 0, width: grid.width, height: grid.height };
        const shape = [...ranges.map(([a, b]) => b - a), w.height, w.width];
        const data = new PIXEL_ARRAYS[m.pixelType](shape.reduce((a, b) => a * b, 1));
        let k = 0;
        const walk = (d: number, at: number[]) => {
          if (d === ranges.length) {
            for (let r = 0; r < w.height; r++) for (let c = 0; c < w.width; c++) data[k++] = m.value(at, w.y + r, w.x + c);
            return;
          }
          for (let i = ranges[d][0]; i < ranges[d][1]; i++) walk(d + 1, [...at, i]);
        };
        walk(0, []);
        return { data, shape };
      },
    })),
  };
}

const DAY = 86_400_000;
const timeDim = (values: number[], calendar?: string): Dimension => ({
  name: "StdTime",
  sourceName: "time",
  description: "time",
  unit: "ISO8601",
  values,
  ...(calendar ? { calendar } : {}),
});

/* ------------------------------- a NetCDF-3 source -------------------------------- */

/** Known numbers in a south-up NetCDF-3 file: tas = t*100 + row*10 + col (north-up row), with gaps. */
const SRC = { times: 3, height: 4, width: 5 };
const tasValue = (t: number, row: number, col: number): number =>
  (t + row + col) % 7 === 3 ? NaN : row === 0 && col === 4 ? -9999 : Math.fround(t * 100 + row * 10 + col + 0.25);
const cntValue = (t: number, row: number, col: number): number => ((t * 3 + row + col) % 5 === 0 ? -1 : t * 1000 + row * 10 + col);

async function writeSource(path: string): Promise<void> {
  const { times, height, width } = SRC;
  const plane = (f: (t: number, row: number, col: number) => number) => (t: number) => {
    const out: number[] = [];
    for (let s = 0; s < height; s++) for (let c = 0; c < width; c++) out.push(f(t, height - 1 - s, c));
    return out;
  };
  await writeNetcdf3(path, {
    dims: [
      { name: "time", size: times, record: true },
      { name: "lat", size: height },
      { name: "lon", size: width },
    ],
    attrs: { Conventions: "CF-1.6", title: "known numbers", institution: "Strata tests" },
    vars: [
      {
        name: "time",
        dims: ["time"],
        type: "double",
        attrs: { units: "days since 2001-01-01", calendar: "gregorian" },
        data: (t) => [t * 31],
      },
      { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [-30, -10, 10, 30] },
      { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [0, 20, 40, 60, 80] },
      {
        name: "tas",
        dims: ["time", "lat", "lon"],
        type: "float",
        attrs: { units: "K", long_name: "air temperature", _FillValue: -9999, standard_name: "air_temperature" },
        data: plane(tasValue),
      },
      {
        name: "cnt",
        dims: ["time", "lat", "lon"],
        type: "short",
        attrs: { units: "1", long_name: "count", _FillValue: -1 },
        data: plane(cntValue),
      },
    ],
  });
}

/** Strata's reader sees the same cube in both files, value for value (NaN = NaN). */
async function assertSameCube(a: Cube, b: Cube): Promise<void> {
  assert.deepEqual([...b.grid.transform], [...a.grid.transform], "transform");
  assert.equal(b.grid.crs.epsg, a.grid.crs.epsg, "EPSG");
  assert.deepEqual(b.grid.x, a.grid.x, "x coordinates");
  assert.deepEqual(b.grid.y, a.grid.y, "y coordinates");
  assert.deepEqual(
    b.variables.map((v) => v.name),
    a.variables.map((v) => v.name),
  );
  for (const va of a.variables) {
    const vb = b.variables.find((v) => v.name === va.name)!;
    assert.equal(vb.pixelType, va.pixelType, `${va.name} pixel type`);
    assert.ok(Object.is(vb.nodata, va.nodata), `${va.name} nodata ${vb.nodata} vs ${va.nodata}`);
    assert.equal(vb.unit, va.unit);
    assert.equal(vb.description, va.description);
    va.dimensions.forEach((da, i) => {
      const db = vb.dimensions[i];
      assert.deepEqual([db.name, db.sourceName, db.unit, db.calendar], [da.name, da.sourceName, da.unit, da.calendar]);
      assert.deepEqual(db.values, da.values, `${va.name} ${da.name} values`);
    });
    const [sa, sb] = await Promise.all([va.read(), vb.read()]);
    assert.deepEqual(sb.shape, sa.shape);
    assert.equal(sb.data.constructor, sa.data.constructor, `${va.name} array type`);
    for (let i = 0; i < sa.data.length; i++) {
      if (!Object.is(sa.data[i], sb.data[i])) assert.fail(`${va.name}[${i}]: ${sb.data[i]} written, ${sa.data[i]} in the source`);
    }
  }
}

/* ------------------------------------- tests -------------------------------------- */

describe("writeNetcdf4", () => {
  it("writes a cube Strata's reader reads back identically (floats with nodata and NaN, ints with nodata)", async () => {
    const src = join(dir, "known.nc");
    const out = join(dir, "known4.nc");
    await writeSource(src);
    const a = await openCube(src);
    const fractions: number[] = [];
    await writeNetcdf4(a, out, { onProgress: (f) => fractions.push(f) });
    assert.ok(!existsSync(`${out}.partial`), "no partial file left");
    assert.equal(fractions.at(-1), 1);
    assert.ok(
      fractions.every((f, i) => i === 0 || f > fractions[i - 1]),
      "progress rises",
    );
    const b = await openCube(out);
    try {
      await assertSameCube(a, b);
      assert.equal(b.attributes.title, "known numbers");
      assert.equal(b.attributes.Conventions, "CF-1.8");
      assert.equal(b.attributes.source, "Strata");
      assert.match(String(b.attributes.history), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: Strata wrote tas, cnt as NetCDF-4$/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("shows xarray the source's values, coordinates, units and time axis", async () => {
    const src = join(dir, "known.nc");
    const out = join(dir, "known4-x.nc");
    await writeSource(src);
    const cube = await openCube(src);
    try {
      await writeNetcdf4(cube, out);
    } finally {
      await cube.close();
    }
    const x = xarrayView(out);
    const s = xarrayView(src);
    const { times, height, width } = SRC;
    assert.deepEqual(x.dims, { time: times, lat: height, lon: width });
    assert.deepEqual(Object.keys(x.variables).sort(), ["cnt", "spatial_ref", "tas"]);
    assert.deepEqual(x.coords.time.values, ["2001-01-01T00:00:00.000", "2001-02-01T00:00:00.000", "2001-03-04T00:00:00.000"]);
    assert.deepEqual(x.coords.time.values, s.coords.time.values, "same instants as the source");
    assert.equal(x.coords.time.encoding.units, "days since 1970-01-01 00:00:00");
    assert.equal(x.coords.time.encoding.calendar, "gregorian");
    assert.deepEqual(x.coords.lat.values, [...(s.coords.lat.values as number[])].reverse(), "north-up latitudes");
    assert.deepEqual(x.coords.lon.values, s.coords.lon.values);
    assert.deepEqual(
      [x.coords.lat.attrs.units, x.coords.lat.attrs.axis, x.coords.lon.attrs.standard_name],
      ["degrees_north", "Y", "longitude"],
    );
    for (const [name, f, fill, dtype] of [
      ["tas", tasValue, -9999, "float32"],
      ["cnt", cntValue, -1, "int16"],
    ] as const) {
      const v = x.variables[name];
      assert.deepEqual(v.dims, ["time", "lat", "lon"]);
      assert.equal(v.attrs.units, s.variables[name].attrs.units);
      assert.equal(v.attrs.long_name, s.variables[name].attrs.long_name);
      assert.equal(v.attrs.grid_mapping, "spatial_ref");
      assert.deepEqual([v.encoding._FillValue, v.encoding.dtype, v.encoding.zlib], [fill, dtype, true]);
      const expected: (number | null)[] = [];
      for (let t = 0; t < times; t++) {
        for (let r = 0; r < height; r++) {
          for (let c = 0; c < width; c++) {
            const value = f(t, r, c);
            expected.push(Number.isNaN(value) || value === fill ? null : value);
          }
        }
      }
      assert.deepEqual(v.values, expected, `${name} values (xarray, known numbers)`);
      // The source as xarray sees it, rows flipped to north-up.
      const flipped: (number | string | null)[] = [];
      for (let t = 0; t < times; t++) {
        for (let r = height - 1; r >= 0; r--)
          flipped.push(...s.variables[name].values.slice((t * height + r) * width, (t * height + r + 1) * width));
      }
      assert.deepEqual(v.values, flipped, `${name} values (xarray, source file)`);
    }
    assert.equal(x.variables.tas.attrs.standard_name, "air_temperature");
    assert.equal(x.variables.spatial_ref.attrs.grid_mapping_name, "latitude_longitude");
    assert.match(String(x.variables.spatial_ref.attrs.crs_wkt), /^GEOGCS\["WGS 84"/);
    assert.equal(x.variables.spatial_ref.attrs.GeoTransform, "-10 20 0 40 0 -20");
    assert.deepEqual([x.attrs.Conventions, x.attrs.title, x.attrs.institution], ["CF-1.8", "known numbers", "Strata tests"]);
  });

  it("writes the chosen variables and time slices of the real monthly_navy_winds.cdf as xarray sees them in the original", async () => {
    const out = join(dir, "winds-subset.nc");
    const cube = await openCube(WINDS);
    try {
      // Unsorted with a duplicate: written sorted, once.
      await writeNetcdf4(cube, out, { variables: ["VWND"], select: () => ({ StdTime: [131, 0, 5, 5] }) });
    } finally {
      await cube.close();
    }
    const x = xarrayView(out);
    const s = xarrayView(WINDS, { TIME: [0, 5, 131] });
    assert.deepEqual(Object.keys(x.variables).sort(), ["VWND", "spatial_ref"]);
    assert.deepEqual(x.dims, { time: 3, lat: 73, lon: 144 });
    assert.deepEqual(x.variables.VWND.dims, ["time", "lat", "lon"]);
    assert.deepEqual(x.coords.time.values, s.coords.TIME.values);
    assert.deepEqual([x.coords.time.values[0], x.coords.time.values[2]], ["1982-01-16T20:00:00.000", "1992-12-17T03:30:00.000"]);
    assert.deepEqual(x.coords.lon.values, s.coords.FNOCX.values);
    assert.deepEqual(x.coords.lat.values, [...(s.coords.FNOCY.values as number[])].reverse());
    for (const key of ["units", "long_name", "history"]) assert.equal(x.variables.VWND.attrs[key], s.variables.VWND.attrs[key], key);
    assert.equal(x.variables.VWND.encoding._FillValue, s.variables.VWND.encoding._FillValue);
    assert.deepEqual(x.variables.VWND.encoding.chunksizes, [1, 73, 144]);
    const plane = 73 * 144;
    const sv = s.variables.VWND.values;
    for (let t = 0; t < 3; t++) {
      for (let r = 0; r < 73; r++) {
        const mine = x.variables.VWND.values.slice(t * plane + r * 144, t * plane + (r + 1) * 144);
        const theirs = sv.slice(t * plane + (72 - r) * 144, t * plane + (73 - r) * 144);
        assert.deepEqual(mine, theirs, `VWND time ${t} row ${r}`);
      }
    }
  });

  it("writes a projected (EPSG:3857) window with integer nodata: y/x in metres, crs_wkt, GeoTransform", async () => {
    const { crs } = resolveCrs(3857);
    const grid = gridFromTransform(6, 4, [-20000, 1000, 0, 50000, 0, -1000], crs);
    const dims = [timeDim([Date.UTC(2020, 0, 1), Date.UTC(2020, 0, 1, 6), Date.UTC(2020, 0, 2)])];
    const cube = memoryCube(grid, [
      { name: "u16", pixelType: "U16", nodata: 65535, dims, unit: "1", value: ([t], r, c) => (r === c ? 65535 : t * 100 + r * 10 + c) },
      { name: "s32", pixelType: "S32", dims, value: ([t], r, c) => -(t * 100 + r * 10 + c) },
    ]);
    const out = join(dir, "mercator.nc");
    const window = { x: 1, y: 1, width: 4, height: 2 };
    await writeNetcdf4(cube, out, { window, select: (v) => (v.name === "s32" ? { StdTime: [2] } : undefined) });

    const back = await openCube(out);
    try {
      assert.equal(back.grid.crs.epsg, 3857);
      assert.deepEqual([...back.grid.transform], [-19000, 1000, 0, 49000, 0, -1000]);
      const u16 = back.variables.find((v) => v.name === "u16")!;
      assert.deepEqual([u16.pixelType, u16.nodata], ["U16", 65535]);
      assert.deepEqual(Array.from((await u16.read()).data.slice(0, 8)), [65535, 12, 13, 14, 21, 65535, 23, 24]);
      const s32 = back.variables.find((v) => v.name === "s32")!;
      assert.deepEqual([s32.pixelType, s32.nodata], ["S32", undefined]);
      assert.deepEqual(s32.dimensions[0].values, [Date.UTC(2020, 0, 2)]);
      assert.deepEqual(Array.from((await s32.read()).data), [-211, -212, -213, -214, -221, -222, -223, -224]);
    } finally {
      await back.close();
    }

    const x = xarrayView(out);
    assert.deepEqual(x.dims, { time: 3, time_2: 1, y: 2, x: 4 });
    assert.deepEqual(x.coords.x.values, [-18500, -17500, -16500, -15500]);
    assert.deepEqual(x.coords.y.values, [48500, 47500]);
    assert.deepEqual(
      [x.coords.x.attrs.standard_name, x.coords.x.attrs.units, x.coords.y.attrs.axis],
      ["projection_x_coordinate", "m", "Y"],
    );
    assert.equal(x.coords.time.encoding.units, "seconds since 1970-01-01 00:00:00");
    assert.deepEqual(x.coords.time.values, ["2020-01-01T00:00:00.000", "2020-01-01T06:00:00.000", "2020-01-02T00:00:00.000"]);
    assert.deepEqual(x.coords.time_2.values, ["2020-01-02T00:00:00.000"]);
    assert.deepEqual(x.variables.s32.dims, ["time_2", "y", "x"]);
    assert.match(String(x.variables.spatial_ref.attrs.crs_wkt), /Pseudo-Mercator/);
    assert.equal(x.variables.spatial_ref.attrs.spatial_ref, x.variables.spatial_ref.attrs.crs_wkt);
    assert.equal(x.variables.spatial_ref.attrs.GeoTransform, "-19000 1000 0 49000 0 -1000");
    // xarray masks the integer nodata (as float64) and keeps the stored type in the encoding.
    assert.deepEqual([x.variables.u16.encoding.dtype, x.variables.u16.encoding._FillValue], ["uint16", 65535]);
    assert.deepEqual(x.variables.u16.values.slice(0, 8), [null, 12, 13, 14, 21, null, 23, 24]);
    assert.deepEqual([x.variables.s32.dtype, x.variables.s32.encoding._FillValue], ["int32", undefined]);
  });

  it("writes model-calendar times that xarray decodes to the same dates, and group variables under their flat names", async () => {
    const values = decodeCfTimes([0, 30, 59.5], "days since 2000-01-01", "360_day");
    const grid = gridFromTransform(2, 2, [0, 1, 0, 2, 0, -1], { epsg: 4326 });
    const cube = memoryCube(grid, [
      { name: "grp1/T", pixelType: "F64", nodata: NaN, dims: [timeDim(values, "360_day")], value: ([t], r, c) => t + r / 10 + c / 100 },
    ]);
    const out = join(dir, "model.nc");
    await writeNetcdf4(cube, out);
    const x = xarrayView(out);
    assert.deepEqual(Object.keys(x.variables).sort(), ["grp1.T", "spatial_ref"]);
    assert.equal(x.variables["grp1.T"].attrs["strata:name"], "grp1/T");
    assert.deepEqual(x.coords.time.values, ["2000-01-01T00:00:00.000", "2000-02-01T00:00:00.000", "2000-02-30T12:00:00.000"]);
    assert.equal(x.coords.time.encoding.calendar, "360_day");
    const back = await openCube(out);
    try {
      await assertSameCube(cube, back);
    } finally {
      await back.close();
    }
  });

  it("reads a stretch of slices inside one storage chunk at once, and splits big grids into whole-chunk blocks", async () => {
    // 10 slices × 600 × 2000 × 4 bytes exceed BLOCK_BYTES: blocks become 512 rows × 1536 columns.
    const grid = gridFromTransform(2000, 600, [0, 1, 0, 600, 0, -1], {});
    const value = (t: number, r: number, c: number) => t * 1e7 + r * 1e4 + c;
    // Time-whole storage chunks of 10 slices: one read per chunk covers every kept slice in it.
    const chunked = memoryCube(grid, [
      {
        name: "v",
        pixelType: "S32",
        dims: [timeDim(Array.from({ length: 20 }, (_, i) => i * DAY))],
        chunkShape: [10, 512, 512],
        value: ([t], r, c) => value(t, r, c),
      },
    ]);
    const out = join(dir, "blocks.nc");
    await writeNetcdf4(chunked, out, { select: () => ({ StdTime: [0, 2, 3, 12] }), compression: 1 });
    const { reads } = chunked;
    const bytesOf = (s: Selection) => (s.dims![0][1] - s.dims![0][0]) * s.window!.width * s.window!.height * 4;
    assert.ok(
      reads.every((s) => bytesOf(s) <= BLOCK_BYTES),
      "blocks fit the budget",
    );
    const whole = (start: number, size: number, extent: number) => start % 512 === 0 && (size % 512 === 0 || start + size === extent);
    assert.ok(
      reads.every((s) => whole(s.window!.y, s.window!.height, 600) && whole(s.window!.x, s.window!.width, 2000)),
      "blocks cover whole output chunks",
    );
    assert.deepEqual([...new Set(reads.map((s) => `${s.window!.height}x${s.window!.width}`))].sort(), [
      "512x1536",
      "512x464",
      "88x1536",
      "88x464",
    ]);
    const firstChunk = reads.filter((s) => s.dims![0][0] === 0);
    assert.ok(
      firstChunk.every((s) => s.dims![0][1] === 4),
      "slices 0, 2 and 3 are read together",
    );
    const pixels = firstChunk.reduce((n, s) => n + s.window!.width * s.window!.height, 0);
    assert.equal(pixels, 2000 * 600, "each pixel of the first chunk is read once");
    const back = await openCube(out);
    try {
      const v = back.variables[0];
      assert.deepEqual(
        v.dimensions[0].values,
        [0, 2, 3, 12].map((t) => t * DAY),
      );
      const slab = await v.read({ dims: [[1, 4]], window: { x: 1535, y: 511, width: 2, height: 2 } });
      const expected = [2, 3, 12].flatMap((t) => [value(t, 511, 1535), value(t, 511, 1536), value(t, 512, 1535), value(t, 512, 1536)]);
      assert.deepEqual(Array.from(slab.data), expected);
    } finally {
      await back.close();
    }
  });

  it("refuses unknown variables, bad selections, windows and levels, naming the parameter, and leaves no file", async () => {
    const cube = await openCube(WINDS);
    const out = join(dir, "refused.nc");
    try {
      const cases: [string, Parameters<typeof writeNetcdf4>[2], RegExp][] = [
        ["variables", { variables: ["UWND", "SST"] }, /no variable "SST" \(it has UWND, VWND\)/],
        ["variables", { variables: [] }, /at least one/],
        ["variables", { variables: ["UWND", "UWND"] }, /twice/],
        ["select", { select: () => ({ StdZ: [0] }) }, /UWND has no dimension StdZ \(its dimensions: StdTime\)/],
        ["select", { select: () => ({ StdTime: [132] }) }, /index 132 is not a whole number from 0 to 131/],
        ["select", { select: () => ({ StdTime: [1.5] }) }, /index 1.5/],
        ["select", { select: () => ({ StdTime: [] }) }, /at least one index/],
        ["window", { window: { x: 140, y: 0, width: 10, height: 1 } }, /inside the 144 × 73 grid/],
        ["compression", { compression: 12 }, /gzip level from 0 to 9/],
      ];
      for (const [parameter, options, message] of cases) {
        await assert.rejects(
          writeNetcdf4(cube, out, options),
          (e: Error) => e instanceof InvalidInputError && e.parameter === parameter && message.test(e.message),
          `${parameter}: ${JSON.stringify(options)}`,
        );
      }
      assert.ok(!existsSync(out) && !existsSync(`${out}.partial`));
    } finally {
      await cube.close();
    }
  });

  it("removes the partial file when a read fails or the job is cancelled, keeping an older file; says why a path is unwritable", async () => {
    const grid = gridFromTransform(4, 3, [0, 1, 0, 3, 0, -1], { epsg: 4326 });
    const dims = [timeDim([0, DAY, 2 * DAY])];
    const cube = memoryCube(grid, [{ name: "v", pixelType: "F32", nodata: NaN, dims, value: ([t]) => t }]);
    const failing: Cube = {
      ...cube,
      variables: cube.variables.map((v) => ({
        ...v,
        read: async (s?: Selection) => {
          if (s?.dims?.[0][0] === 1) throw new Error("disk on fire");
          return v.read(s);
        },
      })),
    };
    const out = join(dir, "failing.nc");
    await writeFile(out, "older download");
    await assert.rejects(writeNetcdf4(failing, out), /disk on fire/);
    assert.equal(await readFile(out, "utf8"), "older download");
    assert.ok(!existsSync(`${out}.partial`));

    const controller = new AbortController();
    const cancelled = join(dir, "cancelled.nc");
    await assert.rejects(
      writeNetcdf4(cube, cancelled, { signal: controller.signal, onProgress: () => controller.abort() }),
      (e: Error) => e.name === "AbortError",
    );
    assert.ok(!existsSync(cancelled) && !existsSync(`${cancelled}.partial`));

    await assert.rejects(writeNetcdf4(cube, join(dir, "no-such-folder", "x.nc")), /ENOENT: no such file or directory/);
  });
});
