/**
 * The context forms ArcGIS clients send (issue 12 §6): cellSize as MAXOF / MINOF (MaxOfIn /
 * MinOfIn), as a raster descriptor ({"url"}, {"uri"}, {"itemId"}: that raster's cell size)
 * and as {"factor": n}; extent as MAXOF / MINOF; outSpatialReference for outSR; bad forms as
 * 400s naming the setting. Expected grids are worked by hand from the inputs' cell sizes:
 * samples/sst_climatology_4deg.nc is 90 × 45 cells of 4° from (19, 89); coads_climatology.cdf
 * has 2° cells; Web Mercator cell sizes come from the sphere's formulas written here.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { InvalidInputError } from "../../src/cube/errors.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube, openLocation } from "../../src/io/open.js";
import { type ParsedContext, parseContext, resolveContext } from "../../src/tasks/context.js";
import type { ParseEnv } from "../../src/tasks/types.js";
import { REAL } from "../helpers/golden.js";
import { rejectsContext } from "../helpers/contextErrors.js";

const SST = fileURLToPath(new URL("../../samples/sst_climatology_4deg.nc", import.meta.url));
const COADS = `${REAL}coads_climatology.cdf`;
const R = 6378137;
const RAD = Math.PI / 180;
const mercatorY = (latDeg: number) => R * Math.log(Math.tan(Math.PI / 4 + (latDeg * RAD) / 2));
/** Web Mercator cell edge of a d° cell at the equator: sqrt(width × height) of its image. */
const mercatorEdge = (d: number) => Math.sqrt(R * d * RAD * (mercatorY(d / 2) - mercatorY(-d / 2)));

let sst: Cube;
before(async () => {
  sst = await openCube(SST);
});
after(() => sst.close());

/** [width, height, ...transform] of the plan's target, or of its window when nothing is warped. */
function target(c: ParsedContext): number[] {
  return c.warp ? [c.warp.width, c.warp.height, ...c.warp.transform] : [c.window.width, c.window.height, ...c.grid.transform];
}
const whole = [90, 45, 19, 4, 0, 89, 0, -4];

/** An env whose inputs are file paths given as {"uri"}; it records what it was asked. */
function fileEnv(calls: { descriptor: unknown; parameter: string }[] = [], warnings: string[] = []): ParseEnv {
  return {
    async resolveInput(descriptor, parameter) {
      calls.push({ descriptor, parameter });
      const uri = (descriptor as { uri?: string }).uri;
      if (uri === undefined) throw new InvalidInputError(`${parameter}: no such raster`, { parameter });
      return { location: { path: uri }, warnings };
    },
    resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
    openCube: (location) => openLocation(location),
  };
}

describe("cellSize: MAXOF / MINOF in ArcGIS's spellings", () => {
  it("with one input they are its own cells: nothing is resampled", () => {
    for (const cellSize of ["MAXOF", "MINOF", "MaxOfIn", "MinOfIn", "maxofin", " MaxOf ", "MINOFIN"]) {
      const c = parseContext(JSON.stringify({ cellSize }), sst.grid);
      assert.equal(c.warp, undefined, cellSize);
      assert.deepEqual(target(c), whole, cellSize);
    }
  });

  it("reprojected, they are the input's cells converted at its centre, as with no cellSize", () => {
    const c = parseContext('{"outSR":3857,"cellSize":"MaxOfIn"}', sst.grid);
    assert.ok(Math.abs(c.warp!.transform[1] - mercatorEdge(4)) < 1e-6, `${c.warp!.transform[1]} vs ${mercatorEdge(4)}`);
  });
});

describe('cellSize: {"factor": n}', () => {
  it("multiplies the input's cell size (4° × 2 = 8°, × 0.5 = 2°); 1 changes nothing", () => {
    // 360° / 8° = 45 columns; 180° / 8° = 22.5, so 23 rows from the north-west corner.
    assert.deepEqual(target(parseContext('{"cellSize":{"factor":2}}', sst.grid)), [45, 23, 19, 8, 0, 89, 0, -8]);
    assert.deepEqual(target(parseContext('{"cellSize":{"factor":"0.5"}}', sst.grid)), [180, 90, 19, 2, 0, 89, 0, -2]);
    const one = parseContext('{"cellSize":{"factor":1}}', sst.grid);
    assert.equal(one.warp, undefined);
    assert.deepEqual(target(one), whole);
  });

  it("reprojected: n times the input's cell converted to the output's units", () => {
    const c = parseContext('{"outSR":{"wkid":3857},"cellSize":{"factor":2}}', sst.grid);
    assert.ok(Math.abs(c.warp!.transform[1] - 2 * mercatorEdge(4)) < 1e-6, `${c.warp!.transform[1]} vs ${2 * mercatorEdge(4)}`);
    assert.equal(c.warp!.crs.epsg, 3857);
  });
});

describe('cellSize: a raster ({"url"}, {"uri"}, {"itemId"})', () => {
  it("is resolved with the task's input resolution and gives that raster's cell size (COADS: 2°)", async () => {
    const calls: { descriptor: unknown; parameter: string }[] = [];
    const c = await resolveContext(JSON.stringify({ cellSize: { uri: COADS } }), sst.grid, fileEnv(calls, ["a warning of the resolver"]));
    assert.deepEqual(calls, [{ descriptor: { uri: COADS }, parameter: "context.cellSize" }]);
    assert.deepEqual(target(c), [180, 90, 19, 2, 0, 89, 0, -2]);
    assert.deepEqual(c.warnings, ["a warning of the resolver"]);
  });

  it("in the output's units when reprojecting (2° at the equator in Web Mercator metres)", async () => {
    const c = await resolveContext(JSON.stringify({ outSpatialReference: { wkid: 3857 }, cellSize: { uri: COADS } }), sst.grid, fileEnv());
    assert.ok(Math.abs(c.warp!.transform[1] - mercatorEdge(2)) < 1e-6, `${c.warp!.transform[1]} vs ${mercatorEdge(2)}`);
  });

  it("a raster that does not resolve is a 400 naming context.cellSize", async () => {
    await assert.rejects(resolveContext('{"cellSize":{"itemId":"nope"}}', sst.grid, fileEnv()), (e: unknown) => {
      assert.ok(e instanceof InvalidInputError);
      assert.equal(e.parameter, "context.cellSize");
      assert.match(e.message, /^context\.cellSize: no such raster/);
      return true;
    });
  });

  it("other forms need no raster: resolveContext plans them as parseContext does, without resolving", async () => {
    const calls: { descriptor: unknown; parameter: string }[] = [];
    for (const text of [undefined, "", '{"cellSize":8}', '{"cellSize":{"factor":2}}', '{"extent":"MINOF"}']) {
      const c = await resolveContext(text, sst.grid, fileEnv(calls));
      assert.deepEqual(c.plan, parseContext(text, sst.grid).plan, String(text));
    }
    assert.deepEqual(calls, []);
  });
});

describe("extent: MAXOF / MINOF", () => {
  it("with one input, the union and the intersection are the input: no clip", () => {
    for (const extent of ["MAXOF", "MINOF", "MaxOfIn", "minofin"]) {
      const c = parseContext(JSON.stringify({ extent }), sst.grid);
      assert.deepEqual(c.plan, { window: { x: 0, y: 0, width: 90, height: 45 } }, extent);
    }
    const c = parseContext('{"extent":"MINOF","cellSize":{"factor":2}}', sst.grid);
    assert.deepEqual(target(c), [45, 23, 19, 8, 0, 89, 0, -8]);
  });
});

describe("outSpatialReference, ArcGIS's other name for outSR", () => {
  it("reprojects as outSR does", () => {
    const alias = parseContext('{"outSpatialReference":{"wkid":3857},"cellSize":200000}', sst.grid);
    const outSR = parseContext('{"outSR":{"wkid":3857},"cellSize":200000}', sst.grid);
    assert.equal(alias.warp!.crs.epsg, 3857);
    assert.deepEqual(alias.plan, outSR.plan);
    assert.deepEqual(alias.warnings, []);
  });

  it("outSR wins when both are given, with a warning", () => {
    const c = parseContext('{"outSR":3857,"outSpatialReference":4326,"cellSize":200000}', sst.grid);
    assert.equal(c.warp!.crs.epsg, 3857);
    assert.deepEqual(c.warnings, ["context.outSpatialReference was ignored: context.outSR is given too, and wins"]);
  });

  it("a bad value is a 400 naming context.outSpatialReference", () => {
    rejectsContext(
      () => parseContext('{"outSpatialReference":{"wkid":99999}}', sst.grid),
      /context\.outSpatialReference.*99999|99999.*context\.outSpatialReference/,
    );
  });
});

describe("bad forms are 400s naming the setting and the reason", () => {
  const cases: [string, RegExp][] = [
    ['{"cellSize":{"factor":0}}', /context\.cellSize\.factor must be a positive number; got 0/],
    ['{"cellSize":{"factor":"twice"}}', /context\.cellSize\.factor must be a positive number; got "twice"/],
    ['{"cellSize":{"factor":2,"url":"https://x/ImageServer"}}', /context\.cellSize gives both a factor and a raster/],
    ['{"cellSize":{"size":2}}', /context\.cellSize must be a positive number .*MAXOF, MINOF, a raster .*\{"factor": n\}; got \{"size":2\}/],
    ['{"cellSize":"MAXOFF"}', /context\.cellSize must be .*; got "MAXOFF"/],
    ['{"cellSize":[4]}', /context\.cellSize must be .*; got \[4\]/],
    ['{"cellSize":true}', /context\.cellSize must be .*; got true/],
    ['{"extent":"UNIONOF"}', /context\.extent must be an envelope object .*MAXOF or MINOF; got "UNIONOF"/],
    ['{"extent":[0,0,1,1]}', /context\.extent must be an envelope object/],
  ];
  for (const [text, pattern] of cases) {
    it(text, () => rejectsContext(() => parseContext(text, sst.grid), pattern));
  }
});
