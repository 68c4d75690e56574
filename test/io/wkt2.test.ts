/**
 * `proj:wkt2` holds WKT2: the systems Strata spells (io/wkt2.ts) are GDAL's
 * `gdalsrsinfo -o wkt2_2019` text without the optional USAGE (test/golden/corpus/wkt2.json,
 * from scripts/goldens/make_corpus.py); WKT2 given is kept; WKT1 of anything else is not
 * passed off as WKT2.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { openCube } from "../../src/io/open.js";
import { WGS84_WKT } from "../../src/io/wkt.js";
import { wkt2Of } from "../../src/io/wkt2.js";
import { wholeCubePlan } from "../../src/tasks/plan.js";
import { writeSubset } from "../../src/tasks/subset.js";

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
  it("a Zarr output's proj:wkt2 is WKT2, on the root and on each array", async () => {
    const dir = await mkdtemp(join(tmpdir(), "strata-wkt2-"));
    const cube = await openCube(fileURLToPath(new URL("../fixtures/corpus/nc3_64bit.nc", import.meta.url)));
    try {
      await writeSubset(cube, wholeCubePlan(cube), join(dir, "out.zarr"));
      const root = JSON.parse(await readFile(join(dir, "out.zarr", "zarr.json"), "utf8"));
      assert.equal(root.attributes["proj:wkt2"], GDAL["4326"]);
      const tas = JSON.parse(await readFile(join(dir, "out.zarr", "tas", "zarr.json"), "utf8"));
      assert.equal(tas.attributes["proj:wkt2"], GDAL["4326"]);
    } finally {
      await cube.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
