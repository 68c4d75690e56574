/**
 * CF interpretation on small hand-made files: what is refused (and why), what is skipped,
 * and decoding rules the real files do not exercise. Expected values are worked by hand.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";
import { UnsupportedDataError } from "../../src/cube/errors.js";
import { cubeFromRaw } from "../../src/io/cf.js";
import { openCube } from "../../src/io/open.js";
import type { RawDataset } from "../../src/io/raw.js";
import { openZarr } from "../../src/io/zarrRead.js";
import { type NcFile, type NcVariable, writeNetcdf3 } from "../helpers/netcdf3Writer.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-cf-"));
});
after(() => rm(dir, { recursive: true, force: true }));

let n = 0;
async function nc(file: NcFile): Promise<string> {
  const path = join(dir, `f${n++}.nc`);
  await writeNetcdf3(path, file);
  return path;
}

const lat = (values: number[]): NcVariable => ({
  name: "lat",
  dims: ["lat"],
  type: "double",
  attrs: { units: "degrees_north" },
  data: values,
});
const lon = (values: number[]): NcVariable => ({
  name: "lon",
  dims: ["lon"],
  type: "double",
  attrs: { units: "degrees_east" },
  data: values,
});
const dims = (h: number, w: number) => [
  { name: "lat", size: h },
  { name: "lon", size: w },
];

describe("CF interpretation", () => {
  it("refuses a curvilinear grid and says why", async () => {
    const path = await nc({
      dims: [
        { name: "y", size: 2 },
        { name: "x", size: 2 },
      ],
      vars: [
        { name: "lat2d", dims: ["y", "x"], type: "double", attrs: { units: "degrees_north" }, data: [1, 2, 3, 4] },
        { name: "lon2d", dims: ["y", "x"], type: "double", attrs: { units: "degrees_east" }, data: [1, 2, 3, 4] },
        { name: "t", dims: ["y", "x"], type: "float", attrs: { coordinates: "lat2d lon2d" }, data: [1, 2, 3, 4] },
      ],
    });
    await assert.rejects(
      openCube(path),
      (e: Error) => e instanceof UnsupportedDataError && /curvilinear grid/.test(e.message) && e.message.includes(path),
    );
  });

  it("refuses an irregular axis, naming how far it strays", async () => {
    const path = await nc({
      dims: dims(3, 4),
      vars: [lat([0, 1, 2]), lon([0, 1, 5, 6]), { name: "t", dims: ["lat", "lon"], type: "float", data: new Array(12).fill(1) }],
    });
    await assert.rejects(openCube(path), /x \(columns\) coordinates are not evenly spaced/);
  });

  it("refuses columns running east to west", async () => {
    const path = await nc({
      dims: dims(2, 3),
      vars: [lat([0, 1]), lon([3, 2, 1]), { name: "t", dims: ["lat", "lon"], type: "float", data: new Array(6).fill(1) }],
    });
    await assert.rejects(openCube(path), /runs east to west/);
  });

  it("refuses variables whose last two dimensions are not spatial", async () => {
    const path = await nc({
      dims: [
        { name: "lat", size: 2 },
        { name: "lon", size: 3 },
        { name: "level", size: 2 },
      ],
      vars: [lat([0, 1]), lon([0, 1, 2]), { name: "t", dims: ["lat", "lon", "level"], type: "float", data: new Array(12).fill(1) }],
    });
    await assert.rejects(openCube(path), /last two dimensions \(lon, level \(not a spatial axis\)\)/);
  });

  it("keeps the first grid and lists variables on another grid as skipped", async () => {
    const path = await nc({
      dims: [...dims(2, 3), { name: "lat2", size: 3 }],
      vars: [
        lat([0, 1]),
        lon([0, 1, 2]),
        { name: "lat2", dims: ["lat2"], type: "double", attrs: { units: "degrees_north" }, data: [0, 1, 2] },
        { name: "a", dims: ["lat", "lon"], type: "float", data: new Array(6).fill(1) },
        { name: "b", dims: ["lat2", "lon"], type: "float", data: new Array(9).fill(1) },
        { name: "profile", dims: ["lat"], type: "float", data: [1, 2] },
      ],
    });
    const cube = await openCube(path);
    assert.deepEqual(
      cube.variables.map((v) => v.name),
      ["a"],
    );
    assert.deepEqual(
      cube.skipped.map((s) => s.name),
      ["b", "profile"],
    );
    assert.match(cube.skipped[0].reason, /different grid/);
    assert.match(cube.skipped[1].reason, /1 dimension/);
    await cube.close();
  });

  it("decodes _Unsigned bytes, several missing values and scale/offset in float64", async () => {
    const path = await nc({
      dims: dims(1, 4),
      vars: [
        lat([0]),
        lon([0, 1, 2, 3]),
        { name: "u", dims: ["lat", "lon"], type: "byte", attrs: { _Unsigned: "true" }, data: [-1, -128, 0, 127] },
        { name: "m", dims: ["lat", "lon"], type: "float", attrs: { _FillValue: -9, missing_value: [-8, -7] }, data: [-9, -8, -7, 1.5] },
        {
          name: "p",
          dims: ["lat", "lon"],
          type: "int",
          attrs: { scale_factor: 0.1, add_offset: 1000, _FillValue: -1 },
          data: [-1, 0, 10, 25],
        },
      ],
    });
    const cube = await openCube(path);
    const [u, m, p] = cube.variables;
    assert.equal(u.pixelType, "U8");
    assert.deepEqual(Array.from((await u.read()).data), [255, 128, 0, 127]);
    assert.equal(m.nodata, -9);
    assert.deepEqual(Array.from((await m.read()).data), [-9, -9, -9, 1.5], "every missing value becomes the nodata value");
    // int32 with float64 factors decodes to float64 (xarray's rule), nodata NaN.
    assert.equal(p.pixelType, "F64");
    assert.ok(Number.isNaN(p.nodata));
    const pv = Array.from((await p.read()).data);
    assert.ok(Number.isNaN(pv[0]));
    assert.deepEqual(pv.slice(1), [1000, 1001, 1002.5]);
    await cube.close();
  });

  it("presents a south-up file north-up and reads any window of it", async () => {
    // Storage rows (south-up): lat -1 -> [1,2,3], lat 0 -> [4,5,6], lat 1 -> [7,8,9].
    const path = await nc({
      dims: dims(3, 3),
      vars: [lat([-1, 0, 1]), lon([10, 11, 12]), { name: "t", dims: ["lat", "lon"], type: "short", data: [1, 2, 3, 4, 5, 6, 7, 8, 9] }],
    });
    const cube = await openCube(path);
    assert.deepEqual([...cube.grid.transform], [9.5, 1, 0, 1.5, 0, -1]);
    assert.deepEqual(Array.from(cube.grid.y), [1, 0, -1]);
    const t = cube.variables[0];
    assert.deepEqual(Array.from((await t.read()).data), [7, 8, 9, 4, 5, 6, 1, 2, 3]);
    assert.deepEqual(Array.from((await t.read({ window: { x: 1, y: 1, width: 2, height: 2 } })).data), [5, 6, 2, 3]);
    await assert.rejects(t.read({ window: { x: 2, y: 0, width: 2, height: 1 } }), RangeError);
    await cube.close();
  });

  it("stops a read when its signal is aborted", async () => {
    const path = await nc({
      dims: [{ name: "time", size: 5, record: true }, ...dims(2, 2)],
      vars: [
        { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: (r) => [r] },
        lat([0, 1]),
        lon([0, 1]),
        { name: "t", dims: ["time", "lat", "lon"], type: "float", data: () => [1, 2, 3, 4] },
      ],
    });
    const cube = await openCube(path);
    const controller = new AbortController();
    controller.abort(new Error("cancelled by the user"));
    await assert.rejects(cube.variables[0].read({ signal: controller.signal }), /cancelled by the user/);
    await cube.close();
  });

  it("reads a vertical axis with positive=down as heights and a numeric axis as itself", async () => {
    const path = await nc({
      dims: [{ name: "depth", size: 3 }, { name: "band", size: 2 }, ...dims(1, 1)],
      vars: [
        { name: "depth", dims: ["depth"], type: "double", attrs: { units: "m", positive: "down" }, data: [0, 5, 50] },
        { name: "band", dims: ["band"], type: "double", attrs: { units: "nm" }, data: [450, 550] },
        lat([0]),
        lon([0]),
        { name: "r", dims: ["depth", "band", "lat", "lon"], type: "float", data: [1, 2, 3, 4, 5, 6] },
      ],
    });
    const cube = await openCube(path);
    const [z, b] = cube.variables[0].dimensions;
    assert.equal(z.name, "StdZ");
    assert.deepEqual(z.values, [0, -5, -50]);
    assert.equal(b.name, "band");
    assert.deepEqual(b.values, [450, 550]);
    assert.equal(b.interval, 100);
    await cube.close();
  });

  it("says what it leaves out: a dimension counted 0..n-1, an auxiliary coordinate, a coordinate of no variable's dimension", async () => {
    const path = await nc({
      dims: [{ name: "member", size: 2 }, { name: "level", size: 3 }, ...dims(1, 2)],
      vars: [
        { name: "level", dims: ["level"], type: "double", attrs: { units: "hPa" }, data: [1000, 850, 500] },
        { name: "height", dims: ["member"], type: "double", attrs: { units: "m" }, data: [2, 10] },
        lat([0]),
        lon([0, 1]),
        { name: "t", dims: ["member", "lat", "lon"], type: "float", attrs: { coordinates: "height" }, data: [1, 2, 3, 4] },
      ],
    });
    const cube = await openCube(path);
    assert.deepEqual(
      cube.variables[0].dimensions.map((d) => [d.name, d.values]),
      [["member", [0, 1]]],
    );
    const notes = new Map(cube.skipped.map((s) => [s.name, s.reason]));
    assert.deepEqual([...notes.keys()], ["level", "height", "member"]);
    assert.match(notes.get("member")!, /dimension member has no coordinate variable .*indices 0\.\.1/);
    assert.match(notes.get("height")!, /auxiliary coordinate of t, is not read/);
    assert.match(notes.get("level")!, /coordinate of dimension level, which no variable has/);
    await cube.close();
  });
});

describe("a refused dataset", () => {
  it("is closed before the refusal is thrown (no file handle left for the collector)", async () => {
    let closed = 0;
    const raw: RawDataset = {
      format: "netcdf3",
      attrs: {},
      // Only a 1-D variable: no regular 2-D grid.
      variables: [
        {
          name: "x",
          dims: ["x"],
          shape: [3],
          dtype: "float32",
          attrs: {},
          chunkShape: [3],
          read: async () => new Float32Array(3),
        },
      ],
      close: async () => {
        closed++;
      },
    };
    await assert.rejects(
      cubeFromRaw(raw, "made-up.nc"),
      (e: Error) => e instanceof UnsupportedDataError && /regular 2-D grid/.test(e.message),
    );
    assert.equal(closed, 1);
  });
});

describe("64-bit integers (xarray's integer time axes)", () => {
  it("a Zarr int64 array reads as exact float64; beyond 2^53 it is refused as unsupported, not as a corrupt store", async () => {
    const path = join(dir, "wide.zarr");
    const root = await zarr.create(new FileSystemStore(path));
    const FILL = -(2n ** 63n);
    for (const [name, values] of [
      ["exact", [0n, 2n ** 53n, -(2n ** 53n), FILL]],
      ["beyond", [1n, 2n ** 53n + 2n]],
    ] as const) {
      const arr = await zarr.create(root.resolve(name), {
        shape: [values.length],
        chunkShape: [values.length],
        dtype: "int64",
        attributes: { _FillValue: Number(FILL) },
      });
      await zarr.set(arr, null, { data: BigInt64Array.from(values), shape: [values.length], stride: [1] });
    }
    const raw = await openZarr(path);
    const [exact, beyond] = ["exact", "beyond"].map((n) => raw.variables.find((v) => v.name === n)!);
    assert.equal(exact.dtype, "int64");
    // 2^53 = 9007199254740992; the fill value (-2^63) lies beyond but only marks nodata.
    assert.deepEqual(Array.from(await exact.read([0], [4])), [0, 9007199254740992, -9007199254740992, -9223372036854775808]);
    await assert.rejects(
      beyond.read([0], [2]),
      (e: Error) =>
        e instanceof UnsupportedDataError && /beyond \(2\^53\)|beyond 2\^53/.test(e.message) && /9007199254740994/.test(e.message),
    );
  });
});
