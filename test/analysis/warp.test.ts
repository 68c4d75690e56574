/**
 * The warp (analysis/warp.ts) and CRS resolution (analysis/crs.ts) on in-memory cubes whose
 * expected values are worked by hand here: resampling kernels, nodata, identity, longitude
 * wrap, target grids; projected points against PROJ 9.1.1 `cs2cs` (values quoted below).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { epsgDefinition, pointTransform, resolveCrs, sameCrs } from "../../src/analysis/crs.js";
import { MAX_WARP_CELLS, type ResamplingMethod, alignedWindow, targetGrid, warpCube } from "../../src/analysis/warp.js";
import { InvalidInputError } from "../../src/cube/errors.js";
import { gridFromTransform, windowGrid } from "../../src/cube/grid.js";
import type { Crs, Cube, Dimension, GeoTransform, Grid, PixelType, Selection, Slab, TypedArray, Variable } from "../../src/cube/types.js";

const TIME: Dimension = { name: "StdTime", sourceName: "time", description: "time", unit: "ISO8601", values: [0, 86_400_000] };

interface MemOptions {
  readonly pixelType?: PixelType;
  readonly nodata?: number;
  readonly dims?: Dimension[];
}

/** A variable over [...dims, H, W] with value f(plane, row, col); records every read. */
function memVariable(grid: Grid, f: (plane: number, row: number, col: number) => number, o: MemOptions = {}) {
  const dims = o.dims ?? [TIME];
  const pixelType = o.pixelType ?? "F32";
  const reads: Selection[] = [];
  const make = (n: number): TypedArray =>
    pixelType === "U8"
      ? new Uint8Array(n)
      : pixelType === "S16"
        ? new Int16Array(n)
        : pixelType === "F64"
          ? new Float64Array(n)
          : new Float32Array(n);
  const v: Variable & { reads: Selection[] } = {
    name: "v",
    description: "v",
    unit: "K",
    pixelType,
    ...(o.nodata !== undefined ? { nodata: o.nodata } : {}),
    dimensions: dims,
    chunkShape: [...dims.map(() => 1), grid.height, grid.width],
    attributes: { long_name: "v" },
    reads,
    async read(sel: Selection = {}): Promise<Slab> {
      reads.push(sel);
      const ranges = dims.map((d, i) => sel.dims?.[i] ?? ([0, d.values.length] as const));
      const w = sel.window ?? { x: 0, y: 0, width: grid.width, height: grid.height };
      assert.ok(
        w.x >= 0 && w.y >= 0 && w.x + w.width <= grid.width && w.y + w.height <= grid.height,
        `read inside the grid: ${JSON.stringify(w)}`,
      );
      const counts = ranges.map(([a, b]) => b - a);
      const planes = counts.reduce((a, b) => a * b, 1);
      const data = make(planes * w.width * w.height);
      let k = 0;
      for (let p = 0; p < planes; p++) {
        // plane index within the whole variable (single dimension or the first of several)
        const global = ranges.length ? ranges[0][0] + p : 0;
        for (let r = 0; r < w.height; r++) for (let c = 0; c < w.width; c++) data[k++] = f(global, w.y + r, w.x + c);
      }
      return { data, shape: [...counts, w.height, w.width] };
    },
  };
  return v;
}

function memCube(grid: Grid, variables: Variable[]): Cube {
  return { grid, variables, attributes: { title: "mem" }, skipped: [], close: async () => {} };
}

const WGS84: Crs = { epsg: 4326 };
const grid4 = gridFromTransform(4, 4, [0, 1, 0, 4, 0, -1], WGS84);
/** v[r][c] = 4r + c in the first slice, + 100 in the second. */
const count = (p: number, r: number, c: number) => 4 * r + c + 100 * p;

async function values(cube: Cube, sel: Selection = {}): Promise<number[]> {
  return [...(await cube.variables[0].read(sel)).data];
}

function close(actual: number[], expected: number[], tol = 1e-6, what = "values") {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((a, i) => {
    const e = expected[i];
    assert.ok((Number.isNaN(a) && Number.isNaN(e)) || Math.abs(a - e) <= tol, `${what}[${i}]: ${a} vs ${e}`);
  });
}

describe("warp: resampling kernels (hand-worked 4x4 -> 2x2)", () => {
  // Target cells of edge 2: centres at (1, 3), (3, 3), (1, 1), (3, 1), i.e. source pixel
  // coordinates (0.5, 0.5), (2.5, 0.5), (0.5, 2.5), (2.5, 2.5): each on the corner of 4 cells.
  const target = targetGrid(grid4, { cellSize: 2 });

  it("targetGrid re-cuts the source lattice from its north-west corner", () => {
    assert.deepEqual([target.width, target.height], [2, 2]);
    assert.deepEqual([...target.transform], [0, 2, 0, 4, 0, -2]);
    assert.deepEqual(target.crs, WGS84);
  });

  it("NEAREST takes the cell containing the centre (on a boundary the east/south one), keeps the pixel type", async () => {
    const src = memVariable(grid4, count, { pixelType: "S16", nodata: -1 });
    const cube = warpCube(memCube(grid4, [src]), target, "NEAREST");
    assert.equal(cube.variables[0].pixelType, "S16");
    assert.equal(cube.variables[0].nodata, -1);
    const slab = await cube.variables[0].read();
    assert.ok(slab.data instanceof Int16Array);
    assert.deepEqual(slab.shape, [2, 2, 2]);
    // cells (1,1) (1,3) (3,1) (3,3) = 5, 7, 13, 15; then +100
    assert.deepEqual([...slab.data], [5, 7, 13, 15, 105, 107, 113, 115]);
  });

  it("BILINEAR averages the four cells around each centre, as float32", async () => {
    const cube = warpCube(memCube(grid4, [memVariable(grid4, count, { pixelType: "S16", nodata: -1 })]), target, "BILINEAR");
    assert.equal(cube.variables[0].pixelType, "F32");
    assert.ok(Number.isNaN(cube.variables[0].nodata!));
    const slab = await cube.variables[0].read({ dims: [[1, 2]] });
    assert.ok(slab.data instanceof Float32Array);
    // (0+1+4+5)/4 = 2.5, (2+3+6+7)/4 = 4.5, (8+9+12+13)/4 = 10.5, (10+11+14+15)/4 = 12.5; slice 2 adds 100
    assert.deepEqual([...slab.data], [102.5, 104.5, 110.5, 112.5]);
  });

  it("float64 stays float64 with BILINEAR and CUBIC", () => {
    for (const m of ["BILINEAR", "CUBIC"] as const) {
      const cube = warpCube(memCube(grid4, [memVariable(grid4, count, { pixelType: "F64" })]), target, m);
      assert.equal(cube.variables[0].pixelType, "F64");
    }
  });

  it("CUBIC (Keys, a = -0.5) reproduces quadratics where BILINEAR does not", async () => {
    const g = gridFromTransform(8, 8, [0, 1, 0, 8, 0, -1], WGS84);
    // value = (col)^2 + 2 row at cell centres (pixel coordinates col, row)
    const f = (_p: number, r: number, c: number) => c * c + 2 * r;
    // Target: 3x3 cells of 1, offset by 0.3 / 0.6 of a cell: centres at px = 2.8..4.8, py = 2.9..4.9.
    const t = gridFromTransform(3, 3, [2.8, 1, 0, 8 - 2.9, 0, -1], WGS84);
    const expected: number[] = [];
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) expected.push((2.8 + c) ** 2 + 2 * (2.9 + r));
    const cubic = await values(warpCube(memCube(g, [memVariable(g, f, { pixelType: "F64", dims: [] })]), t, "CUBIC"));
    close(cubic, expected, 1e-9, "cubic");
    const bilinear = await values(warpCube(memCube(g, [memVariable(g, f, { pixelType: "F64", dims: [] })]), t, "BILINEAR"));
    // bilinear of x^2 between integers overshoots by frac(x)(1 - frac(x)) = 0.8 * 0.2
    close(
      bilinear,
      expected.map((e) => e + 0.16),
      1e-9,
      "bilinear",
    );
  });
});

describe("warp: nodata", () => {
  const target = targetGrid(grid4, { cellSize: 2 });
  const holes = (cells: [number, number][]) => (p: number, r: number, c: number) =>
    cells.some(([hr, hc]) => hr === r && hc === c) ? -999 : count(p, r, c);

  it("BILINEAR with a nodata neighbour falls back to NEAREST; NaN when NEAREST's cell is nodata", async () => {
    const one = await values(warpCube(memCube(grid4, [memVariable(grid4, holes([[0, 0]]), { nodata: -999 })]), target, "BILINEAR"), {
      dims: [[0, 1]],
    });
    assert.deepEqual(one, [5, 4.5, 10.5, 12.5]);
    const two = await values(warpCube(memCube(grid4, [memVariable(grid4, holes([[1, 1]]), { nodata: -999 })]), target, "BILINEAR"), {
      dims: [[0, 1]],
    });
    assert.ok(Number.isNaN(two[0]));
    assert.deepEqual(two.slice(1), [4.5, 10.5, 12.5]);
  });

  it("NaN is nodata in float sources too", async () => {
    const f = (p: number, r: number, c: number) => (r === 2 && c === 3 ? NaN : count(p, r, c));
    const out = await values(warpCube(memCube(grid4, [memVariable(grid4, f)]), target, "BILINEAR"), { dims: [[0, 1]] });
    // cell (1,1) of the target uses (2,2) (2,3) (3,2) (3,3): (2,3) is NaN, nearest (3,3) = 15
    assert.deepEqual(out, [2.5, 4.5, 10.5, 15]);
  });

  it("CUBIC with a nodata cell among its 16 falls back to BILINEAR", async () => {
    const g = gridFromTransform(8, 8, [0, 1, 0, 8, 0, -1], WGS84);
    const f = (_p: number, r: number, c: number) => (r === 2 && c === 2 ? -999 : c * c + 2 * r);
    const t = gridFromTransform(1, 1, [3.3, 1, 0, 8 - 3.4, 0, -1], WGS84); // centre px 3.3, py 3.4: taps 2..5
    const out = await values(warpCube(memCube(g, [memVariable(g, f, { nodata: -999, pixelType: "F64", dims: [] })]), t, "CUBIC"));
    const bil = 0.7 * 9 + 0.3 * 16 + 2 * 3.4; // bilinear of c^2 between 3 and 4, plus the linear 2r
    close(out, [bil], 1e-9);
  });

  it("cells outside the source are nodata: NaN for BILINEAR, the variable's nodata for NEAREST", async () => {
    // 3x2 cells of 2 starting 2 west of the source: the first column is outside.
    const t = gridFromTransform(3, 2, [-2, 2, 0, 4, 0, -2], WGS84);
    const cube = memCube(grid4, [memVariable(grid4, count, { nodata: -999 })]);
    const bil = await values(warpCube(cube, t, "BILINEAR"), { dims: [[0, 1]] });
    assert.ok(Number.isNaN(bil[0]) && Number.isNaN(bil[3]));
    assert.deepEqual([bil[1], bil[2], bil[4], bil[5]], [2.5, 4.5, 10.5, 12.5]);
    const near = await values(warpCube(cube, t, "NEAREST"), { dims: [[0, 1]] });
    assert.deepEqual(near, [-999, 5, 7, -999, 13, 15]);
  });

  it("an integer variable without nodata gets one for NEAREST (the type's maximum for unsigned)", async () => {
    const t = gridFromTransform(3, 2, [-2, 2, 0, 4, 0, -2], WGS84);
    const cube = warpCube(memCube(grid4, [memVariable(grid4, count, { pixelType: "U8" })]), t, "NEAREST");
    assert.equal(cube.variables[0].nodata, 255);
    assert.deepEqual(await values(cube, { dims: [[0, 1]] }), [255, 5, 7, 255, 13, 15]);
  });
});

describe("warp: identity, windows and views", () => {
  it("the source grid (or a window of it) is a view: same values, nothing resampled", async () => {
    const src = memVariable(grid4, count);
    const cube = memCube(grid4, [src]);
    const same = warpCube(cube, grid4, "CUBIC");
    assert.equal(same.variables[0].pixelType, "F32");
    assert.deepEqual(await values(same), await values(cube));
    const w = { x: 1, y: 2, width: 2, height: 2 };
    const win = warpCube(cube, windowGrid(grid4, w), "BILINEAR");
    assert.deepEqual(alignedWindow(grid4, win.grid), w);
    assert.deepEqual(await values(win, { window: { x: 1, y: 0, width: 1, height: 2 } }), [10, 14, 110, 114]);
    assert.deepEqual(src.reads.at(-1)!.window, { x: 2, y: 2, width: 1, height: 2 });
  });

  it("the same grid through proj4 (EPSG:4326 as a proj4 string) gives back the input", async () => {
    const t = gridFromTransform(4, 4, [...grid4.transform] as unknown as GeoTransform, { wkt: "+proj=longlat +datum=WGS84 +no_defs" });
    assert.equal(alignedWindow(grid4, t), undefined);
    for (const m of ["NEAREST", "BILINEAR", "CUBIC"] as ResamplingMethod[]) {
      close(
        await values(warpCube(memCube(grid4, [memVariable(grid4, count)]), t, m)),
        await values(memCube(grid4, [memVariable(grid4, count)])),
        1e-6,
        m,
      );
    }
  });

  it("reads only the source cells a window needs, with the same dims", async () => {
    const g = gridFromTransform(40, 40, [0, 1, 0, 40, 0, -1], WGS84);
    const src = memVariable(g, (p, r, c) => r + c + p);
    const cube = warpCube(memCube(g, [src]), targetGrid(g, { cellSize: 2 }), "BILINEAR");
    await cube.variables[0].read({ dims: [[1, 2]], window: { x: 5, y: 6, width: 3, height: 2 } });
    const sel = src.reads.at(-1)!;
    assert.deepEqual(sel.dims, [[1, 2]]);
    // target cols 5..7 -> centres px 10.5..14.5 -> source cols 10..15; rows 6..7 -> py 12.5..14.5 -> 12..15
    assert.deepEqual(sel.window, { x: 10, y: 12, width: 6, height: 4 });
  });

  it("a read budget splits the source reads by planes, then by area, with the same result", async () => {
    const g = gridFromTransform(30, 20, [0, 1, 0, 20, 0, -1], WGS84);
    const t = targetGrid(g, { cellSize: 1.5 });
    const dims = [{ ...TIME, values: [0, 1, 2, 3, 4] }];
    const f = (p: number, r: number, c: number) => Math.sin(r / 3) + Math.cos(c / 4) + p;
    const whole = await values(warpCube(memCube(g, [memVariable(g, f, { dims })]), t, "CUBIC"));
    const src = memVariable(g, f, { dims });
    const split = await values(warpCube(memCube(g, [src]), t, "CUBIC", { readBudgetBytes: 200 }));
    assert.ok(src.reads.length > 10, `${src.reads.length} reads`);
    assert.deepEqual(split, whole);
  });
});

describe("warp: longitudes", () => {
  // A global 0..360 grid of 45° cells, 8 x 4; value = column + 10 row.
  const g360 = gridFromTransform(8, 4, [0, 45, 0, 90, 0, -45], WGS84);
  const f = (_p: number, r: number, c: number) => c + 10 * r;

  it("a -180..180 target reads a 0..360 source (columns shifted by half the globe)", async () => {
    const t = gridFromTransform(8, 4, [-180, 45, 0, 90, 0, -45], WGS84);
    const out = await values(warpCube(memCube(g360, [memVariable(g360, f, { dims: [] })]), t, "NEAREST"));
    const expected: number[] = [];
    for (let r = 0; r < 4; r++) for (let c = 0; c < 8; c++) expected.push(((c + 4) % 8) + 10 * r);
    assert.deepEqual(out, expected);
  });

  it("BILINEAR takes neighbours across the seam of a longitude-global source", async () => {
    // one cell centred on lon 0 (= 360), lat 67.5: half column 7, half column 0 of row 0
    const t = gridFromTransform(1, 1, [-22.5, 45, 0, 90, 0, -45], WGS84);
    const out = await values(warpCube(memCube(g360, [memVariable(g360, f, { dims: [] })]), t, "BILINEAR"));
    assert.deepEqual(out, [(7 + 0) / 2]);
  });

  it("a regional geographic source wraps too, but has no neighbours past its edges", async () => {
    const g = gridFromTransform(4, 4, [200, 1, 0, 4, 0, -1], WGS84); // lon 200..204 = -160..-156
    const t = gridFromTransform(2, 2, [-160, 2, 0, 4, 0, -2], WGS84);
    const out = await values(warpCube(memCube(g, [memVariable(g, count, { dims: [] })]), t, "BILINEAR"));
    assert.deepEqual(out, [2.5, 4.5, 10.5, 12.5]);
  });
});

describe("CRS: resolution and points (references from PROJ 9.1.1 cs2cs)", () => {
  const geo = epsgDefinition(4326)!;
  const at = (to: string, lon: number, lat: number) => pointTransform(geo, to)!.forward(lon, lat);

  it("EPSG:4326 <-> 3857 round trip within 1e-6 degrees; the forward point matches cs2cs", () => {
    const merc = resolveCrs({ wkid: 102100, latestWkid: 3857 });
    assert.equal(merc.crs.epsg, 3857);
    const tr = pointTransform(geo, merc.definition)!;
    for (const [lon, lat] of [
      [15, 45],
      [-179.5, -84],
      [0.001, 0.001],
      [123.456, 67.89],
    ]) {
      const [x, y] = tr.forward(lon, lat);
      const [lon2, lat2] = tr.inverse(x, y);
      assert.ok(Math.abs(lon2 - lon) < 1e-6 && Math.abs(lat2 - lat) < 1e-6, `${lon},${lat} -> ${lon2},${lat2}`);
    }
    close(tr.forward(15, 45), [1669792.361899, 5621521.486192], 1e-4, "cs2cs EPSG:3857");
  });

  it("UTM zones: 33N (15, 0) -> (500000, 0); 33N and 34S points as cs2cs gives them", () => {
    close(at(resolveCrs(32633).definition, 15, 0), [500000, 0], 1e-6, "central meridian");
    close(at(resolveCrs(32733).definition, 15, 0), [500000, 10000000], 1e-6, "south false northing");
    close(at(resolveCrs("EPSG:32633").definition, 16, 48), [574595.1125, 5316784.0092], 1e-3, "33N");
    close(at(resolveCrs({ wkid: 32734 }).definition, 18.4, -33.9), [259583.2217, 6245888.0454], 1e-3, "34S");
  });

  it("polar stereographic 3031 as cs2cs gives it", () => {
    close(at(resolveCrs(3031).definition, 40, -70), [1410593.7119, 1681080.1238], 1e-3);
  });

  it("a proj4 string is accepted and described as WKT1 that projects the same", () => {
    const laea = "+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 +ellps=GRS80 +units=m +no_defs";
    const r = resolveCrs(laea);
    assert.equal(r.crs.epsg, undefined);
    assert.match(r.crs.wkt!, /^PROJCS\[.*Lambert_Azimuthal_Equal_Area/);
    close(at(r.definition, 8, 50), [4177612.5211, 2989464.3148], 1e-3, "proj4 string (EPSG:3035's)");
    close(at(r.crs.wkt!, 8, 50), [4177612.5211, 2989464.3148], 1e-3, "its WKT");
  });

  it("a WKT is accepted: with a known AUTHORITY it is that code, without one proj4 reads it", () => {
    const utmWkt =
      'PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],' +
      'UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15],' +
      'PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1]';
    const named = resolveCrs({ wkt: `${utmWkt},AUTHORITY["EPSG","32633"]]` });
    assert.equal(named.crs.epsg, 32633);
    assert.ok(named.crs.wkt!.startsWith("PROJCS"));
    const bare = resolveCrs({ wkt: `${utmWkt}]` });
    assert.equal(bare.crs.epsg, undefined);
    close(at(bare.definition, 16, 48), [574595.1125, 5316784.0092], 1e-3, "WKT without authority");
    assert.ok(sameCrs(named.crs, { epsg: 32633 }));
    assert.ok(!sameCrs(bare.crs, { epsg: 32633 }));
  });

  it("unknown wkids and unreadable definitions are InvalidInputErrors naming context", () => {
    for (const [value, pattern] of [
      [99999, /wkid 99999/],
      [{ wkid: 123456 }, /wkid 123456/],
      ["+proj=nonsense", /proj4 string/],
      ['PROJCS["x",AUTHORITY["EPSG","99999"]]', /WKT/],
      [{}, /wkid or a wkt/],
      [[1, 2], /must be a wkid/],
    ] as const) {
      assert.throws(
        () => resolveCrs(value),
        (e: unknown) => e instanceof InvalidInputError && e.parameter === "context" && pattern.test(e.message),
        JSON.stringify(value),
      );
    }
  });
});

describe("warp: target grids across CRSs", () => {
  const global = gridFromTransform(90, 45, [19, 4, 0, 89, 0, -4], WGS84); // the 4° SST climatology's grid

  it("geographic global -> Web Mercator: the whole square, cells of the given size", () => {
    const t = targetGrid(global, { outCrs: { epsg: 3857 }, cellSize: 200000 });
    const half = Math.PI * 6378137;
    assert.deepEqual([t.width, t.height], [Math.ceil((2 * half) / 200000), Math.ceil((2 * half) / 200000)]);
    close([...t.transform], [-half, 200000, 0, half, 0, -200000], 1e-6);
    assert.equal(t.crs.epsg, 3857);
  });

  it("without cellSize, the source cell converted at its centre (4° at the equator in metres)", () => {
    const t = targetGrid(global, { outCrs: { epsg: 3857 } });
    const cell = t.transform[1];
    // 4° of longitude at lat -1 (the envelope's centre after the Mercator clamp is lat 0)
    assert.ok(Math.abs(cell - (4 * Math.PI * 6378137) / 180) < 100, `${cell}`);
  });

  it("an extent in the output CRS clips; one outside is a 400", () => {
    const t = targetGrid(global, {
      outCrs: { epsg: 3857 },
      cellSize: 100000,
      extent: { xmin: 0, ymin: 0, xmax: 1_000_000, ymax: 450_000 },
    });
    assert.deepEqual([t.width, t.height, t.transform[0], t.transform[3]], [10, 5, 0, 450_000]);
    assert.throws(
      () => targetGrid(global, { outCrs: { epsg: 3857 }, extent: { xmin: 3e7, ymin: 0, xmax: 3.1e7, ymax: 1 } }),
      (e: unknown) => e instanceof InvalidInputError && e.parameter === "context" && /overlap/.test(e.message),
    );
  });

  it("an absurd output size is a 400 with a clear message", () => {
    assert.throws(
      () => targetGrid(global, { outCrs: { epsg: 3857 }, cellSize: 1 }),
      (e: unknown) =>
        e instanceof InvalidInputError && e.parameter === "context" && e.message.includes(MAX_WARP_CELLS.toLocaleString("en-US")),
    );
  });

  it("a source without a coordinate system can be resampled but not reprojected", () => {
    const bare = gridFromTransform(4, 4, [0, 1, 0, 4, 0, -1], {});
    assert.deepEqual([targetGrid(bare, { cellSize: 2 }).width], [2]);
    assert.throws(
      () => targetGrid(bare, { outCrs: { epsg: 3857 } }),
      (e: unknown) => e instanceof InvalidInputError && e.parameter === "context" && /no coordinate system/.test(e.message),
    );
  });

  it("geographic -> Web Mercator maps rows and columns separately, exactly", async () => {
    const g = gridFromTransform(200, 200, [0, 0.01, 0, 1, 0, -0.01], WGS84);
    const f = (_p: number, r: number, c: number) => Math.sin(r / 5) * 10 + Math.cos(c / 7) * 5;
    const t = targetGrid(g, { outCrs: { epsg: 3857 }, cellSize: 1000 });
    const out = [
      ...(await warpCube(memCube(g, [memVariable(g, f, { dims: [], pixelType: "F64" })]), t, "NEAREST").variables[0].read()).data,
    ];
    const R = 6378137;
    for (let row = 0; row < t.height; row += 7) {
      for (let col = 0; col < t.width; col += 5) {
        const lon = ((t.transform[0] + (col + 0.5) * 1000) / R) * (180 / Math.PI);
        const lat = (2 * Math.atan(Math.exp((t.transform[3] - (row + 0.5) * 1000) / R)) - Math.PI / 2) * (180 / Math.PI);
        const [c, r] = [Math.floor(lon / 0.01), Math.floor((1 - lat) / 0.01)];
        const e = c >= 0 && c < 200 && r >= 0 && r < 200 ? f(0, r, c) : NaN;
        assert.ok(Object.is(out[row * t.width + col], e), `cell ${row},${col}: ${out[row * t.width + col]} vs ${e}`);
      }
    }
  });

  it("a large window interpolates a lattice of exact points within 1/100 cell, the same however it is read", async () => {
    // 0.01° cells near the equator to UTM 31N at 1 km: the map is smooth enough for the lattice.
    const g = gridFromTransform(200, 200, [0, 0.01, 0, 1, 0, -0.01], WGS84);
    const f = (_p: number, r: number, c: number) => Math.sin(r / 5) * 10 + Math.cos(c / 7) * 5; // |gradient| < 2.72 per cell
    const t = targetGrid(g, { outCrs: { epsg: 32631 }, cellSize: 1000 });
    const cube = warpCube(memCube(g, [memVariable(g, f, { dims: [], pixelType: "F64" })]), t, "BILINEAR");
    const whole = [...(await cube.variables[0].read()).data];
    const toGeo = pointTransform(epsgDefinition(4326)!, epsgDefinition(32631)!)!;
    let maxDiff = 0;
    let checked = 0;
    for (let row = 0; row < t.height; row++) {
      for (let col = 0; col < t.width; col++) {
        const [lon, lat] = toGeo.inverse(t.transform[0] + (col + 0.5) * t.transform[1], t.transform[3] + (row + 0.5) * t.transform[5]);
        const px = lon / 0.01 - 0.5;
        const py = (1 - lat) / 0.01 - 0.5;
        const [c0, r0] = [Math.floor(px), Math.floor(py)];
        if (c0 < 0 || r0 < 0 || c0 + 1 >= 200 || r0 + 1 >= 200) continue;
        const [fx, fy] = [px - c0, py - r0];
        const e =
          (f(0, r0, c0) * (1 - fx) + f(0, r0, c0 + 1) * fx) * (1 - fy) + (f(0, r0 + 1, c0) * (1 - fx) + f(0, r0 + 1, c0 + 1) * fx) * fy;
        maxDiff = Math.max(maxDiff, Math.abs(whole[row * t.width + col] - e));
        checked++;
      }
    }
    assert.ok(checked > 40000, `${checked} cells`);
    assert.ok(maxDiff < 0.01 * 2.72 * 2, `max difference ${maxDiff}`);
    assert.ok(maxDiff > 1e-10, "interpolated, not exact");
    const w = { x: 13, y: 29, width: 70, height: 45 };
    const part = [...(await cube.variables[0].read({ window: w })).data];
    part.forEach((v, i) => assert.equal(v, whole[(w.y + Math.floor(i / w.width)) * t.width + w.x + (i % w.width)]));
  });
});
