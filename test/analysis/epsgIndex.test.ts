/**
 * EPSG codes through the epsg-index package (src/analysis/epsgIndex.ts, used by crs.ts):
 * codes beyond the few Strata once listed resolve, and project as PROJ's cs2cs does (PROJ 9.1.1:
 * `echo "48.85 2.35" | cs2cs -f %.6f EPSG:4326 EPSG:2154`, values quoted below); codes proj4
 * cannot run (a datum grid, a vertical system, no such code) are refused saying why.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import { epsgDefinition, pointTransform, resolveCrs } from "../../src/analysis/crs.js";
import { epsgSystem } from "../../src/analysis/epsgIndex.js";

const fromWgs84 = (code: number, lon: number, lat: number): [number, number] =>
  pointTransform(epsgDefinition(4326)!, epsgDefinition(code)!)!.forward(lon, lat);

function near(got: [number, number], want: [number, number], tolerance: number, what: string): void {
  assert.ok(Math.abs(got[0] - want[0]) <= tolerance && Math.abs(got[1] - want[1]) <= tolerance, `${what}: ${got} vs ${want}`);
}

describe("EPSG codes from epsg-index", () => {
  it("Lambert-93 (2154) and LAEA Europe (3035) resolve with the registry's name and WKT, and project as cs2cs", () => {
    const lambert = resolveCrs(2154);
    assert.equal(lambert.crs.epsg, 2154);
    assert.equal(lambert.geographic, false);
    assert.match(lambert.crs.wkt!, /^PROJCS\["RGF93 v1 \/ Lambert-93",.*AUTHORITY\["EPSG","2154"\]\]$/);
    near(fromWgs84(2154, 2.35, 48.85), [652301.564831, 6861302.7259], 1e-3, "Paris in Lambert-93");
    // cs2cs writes 3035 northing first (its EPSG axis order): 2987510.566965 4321000.
    near(fromWgs84(3035, 10, 50), [4321000, 2987510.566965], 1e-3, "LAEA Europe's origin");
  });

  it("the codes Strata listed before keep their definitions; Web Mercator's aliases are 3857 with GDAL's WKT", () => {
    assert.equal(epsgDefinition(32633), "+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs");
    assert.equal(epsgDefinition(3413), "+proj=stere +lat_0=90 +lat_ts=70 +lon_0=-45 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs");
    for (const alias of [102100, 102113, 900913, 3785]) {
      const merc = resolveCrs({ wkid: alias });
      assert.equal(merc.crs.epsg, 3857);
      assert.match(merc.crs.wkt!, /^PROJCS\["WGS 84 \/ Pseudo-Mercator",.*EXTENSION\["PROJ4",.*AUTHORITY\["EPSG","3857"\]\]$/);
    }
    assert.equal(resolveCrs("EPSG:4326").geographic, true);
  });

  it("refuses, naming the parameter and the reason, a code that needs a datum grid, a vertical system and a code that is none", () => {
    const refused = (code: number, reason: RegExp) =>
      assert.throws(
        () => resolveCrs({ wkid: code }, { parameter: "outSR", what: "outSR" }),
        (e: unknown) => e instanceof InvalidInputError && e.parameter === "outSR" && reason.test(e.message),
      );
    refused(
      27700,
      /^outSR: wkid 27700 cannot be used: OSGB36 \/ British National Grid needs the datum grid \S+\.gsb, which proj4 does not have here; give it as WKT or a proj4 string instead$/,
    );
    refused(5703, /wkid 5703 cannot be used: .* is not a 2D geographic or projected coordinate system/);
    refused(999999, /wkid 999999 cannot be used: it is not an EPSG coordinate system/);
    assert.deepEqual(epsgSystem(-3), { ok: false, reason: "it is not an EPSG code" });
  });
});
