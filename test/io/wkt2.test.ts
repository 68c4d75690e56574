/**
 * `proj:wkt2` holds WKT2: the systems Strata spells (io/wkt2.ts) are GDAL's
 * `gdalsrsinfo -o wkt2_2019` text without the optional USAGE (test/golden/corpus/wkt2.json,
 * from scripts/goldens/make_corpus.py); WKT2 given is kept; WKT1 of anything else is not
 * passed off as WKT2.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { WGS84_WKT } from "../../src/io/wkt.js";
import { wkt2Of } from "../../src/io/wkt2.js";

const GDAL = JSON.parse(readFileSync(fileURLToPath(new URL("../golden/corpus/wkt2.json", import.meta.url)), "utf8")) as Record<
  string,
  string
>;

describe("WKT2 for proj:wkt2", () => {
  for (const [code, text] of Object.entries(GDAL)) {
    it(`EPSG:${code} as GDAL writes it`, () => assert.equal(wkt2Of({ epsg: Number(code) }), text));
  }
  it("WKT1 is never passed off as WKT2", () => {
    assert.equal(wkt2Of({ wkt: WGS84_WKT }), undefined);
    assert.equal(wkt2Of({ epsg: 4326, wkt: WGS84_WKT }), GDAL["4326"]);
    assert.equal(wkt2Of({ epsg: 2154 }), undefined);
  });
  it("WKT2 given is kept", () => assert.equal(wkt2Of({ wkt: GDAL["32633"] }), GDAL["32633"]));
});
