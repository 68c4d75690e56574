/**
 * `strata convert` of each real file to Zarr and back is lossless: values, nodata,
 * dimensions, coordinates and georeferencing; and the store carries the CF and GeoZarr
 * metadata other tools read.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { strata } from "../helpers/cli.js";
import { GOLDEN_FILES, GOLDEN_IO, REAL } from "../helpers/golden.js";
import { serveDirectory } from "../helpers/staticServer.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-convert-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Same bits: NaN equals NaN, +0 and -0 differ. */
function sameValue(a: number, b: number): boolean {
  return Object.is(a, b);
}

async function assertSameCube(a: Cube, b: Cube, what: string): Promise<void> {
  assert.deepEqual([...b.grid.transform], [...a.grid.transform], `${what} transform`);
  assert.equal(b.grid.crs.epsg, a.grid.crs.epsg, `${what} EPSG`);
  assert.deepEqual(b.grid.x, a.grid.x, `${what} x coordinates`);
  assert.deepEqual(b.grid.y, a.grid.y, `${what} y coordinates`);
  assert.deepEqual(
    b.variables.map((v) => v.name),
    a.variables.map((v) => v.name),
  );
  for (const va of a.variables) {
    const vb = b.variables.find((v) => v.name === va.name)!;
    assert.equal(vb.pixelType, va.pixelType, `${what} ${va.name} pixel type`);
    assert.ok(sameValue(vb.nodata ?? -1, va.nodata ?? -1), `${what} ${va.name} nodata ${vb.nodata} vs ${va.nodata}`);
    assert.equal(vb.unit, va.unit);
    assert.equal(vb.description, va.description);
    assert.equal(vb.dimensions.length, va.dimensions.length);
    va.dimensions.forEach((da, i) => {
      const db = vb.dimensions[i];
      assert.equal(db.name, da.name);
      assert.equal(db.sourceName, da.sourceName, `${what} ${da.name} source name`);
      assert.equal(db.unit, da.unit);
      assert.equal(db.calendar, da.calendar);
      assert.deepEqual(db.values, da.values, `${what} ${da.name} values`);
      assert.equal(db.interval, da.interval);
    });
    const [sa, sb] = await Promise.all([va.read(), vb.read()]);
    assert.deepEqual(sb.shape, sa.shape);
    assert.equal(sb.data.constructor, sa.data.constructor, `${what} ${va.name} array type`);
    for (let i = 0; i < sa.data.length; i++) {
      if (!sameValue(sa.data[i], sb.data[i]))
        assert.fail(`${what} ${va.name}[${i}]: ${sb.data[i]} after the round trip, ${sa.data[i]} before`);
    }
  }
}

describe("strata convert round trip", () => {
  for (const [, file] of GOLDEN_FILES) {
    const name = file.split("/").pop()!;
    it(`${name} -> Zarr -> same cube`, async () => {
      const out = join(dir, `${name}.zarr`);
      const r = await strata("convert", file, out);
      assert.equal(r.code, 0, r.stderr);
      const [a, b] = await Promise.all([openCube(file), openCube(out)]);
      try {
        await assertSameCube(a, b, name);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  }

  it("a converted store reads the same over HTTP, as a cloud store serves it", async () => {
    const out = join(dir, "http.zarr");
    assert.equal((await strata("convert", `${REAL}ocean_atlas_subset.nc`, out)).code, 0);
    const server = await serveDirectory(out);
    const [a, b] = await Promise.all([openCube(out), openCube(server.url)]);
    try {
      await assertSameCube(a, b, "over HTTP");
      // 228 chunks (12 times x 19 depths) for one tile, fetched a few at a time, not all at once.
      const before = server.requests.length;
      await b.variables[0].read({ window: { x: 0, y: 0, width: 4, height: 4 } });
      assert.equal(server.requests.length - before, 12 * 19);
      assert.ok(server.maxInFlight <= 8, `at most 8 chunk requests at once, saw ${server.maxInFlight}`);
      assert.ok(server.maxInFlight >= 2, "chunks are fetched concurrently");
    } finally {
      await Promise.all([a.close(), b.close(), server.close()]);
    }
  });

  it("writes CF and GeoZarr metadata that other tools read", async () => {
    const out = join(dir, "meta.zarr");
    assert.equal((await strata("convert", `${REAL}ocean_atlas_subset.nc`, out)).code, 0);
    const root = JSON.parse(await readFile(join(out, "zarr.json"), "utf8"));
    assert.equal(root.zarr_format, 3);
    assert.equal(root.attributes["proj:code"], "EPSG:4326");
    assert.deepEqual(root.attributes["spatial:transform"], [2, 0, 19.5, 0, -2, 89.5]);
    assert.deepEqual(root.attributes["spatial:shape"], [90, 180]);
    assert.ok(root.consolidated_metadata.metadata.TEMP, "consolidated metadata lists the arrays");
    const temp = JSON.parse(await readFile(join(out, "TEMP", "zarr.json"), "utf8"));
    assert.deepEqual(temp.dimension_names, ["StdTime", "StdZ", "lat", "lon"]);
    assert.equal(temp.codecs[1].name, "zstd");
    assert.deepEqual(temp.chunk_grid.configuration.chunk_shape, [1, 1, 90, 180]);
    assert.equal(temp.attributes._FillValue, -9.999999790214768e33);
    assert.equal(temp.attributes.grid_mapping, "spatial_ref");
    const time = JSON.parse(await readFile(join(out, "StdTime", "zarr.json"), "utf8"));
    assert.equal(time.attributes.units, "milliseconds since 1970-01-01T00:00:00");
    assert.equal(time.attributes.calendar, "proleptic_gregorian");
    const z = JSON.parse(await readFile(join(out, "StdZ", "zarr.json"), "utf8"));
    assert.equal(z.attributes.positive, "up");
    const crs = JSON.parse(await readFile(join(out, "spatial_ref", "zarr.json"), "utf8"));
    assert.match(crs.attributes.crs_wkt, /AUTHORITY\["EPSG","4326"\]\]$/);
    assert.equal(crs.attributes.GeoTransform, "19.5 2 0 89.5 0 -2");
  });

  it("refuses an existing output and leaves nothing behind when the input cannot be read", async () => {
    const existing = join(dir, "exists.zarr");
    assert.equal((await strata("convert", `${GOLDEN_IO}tiny_360day.nc`, existing)).code, 0);
    const again = await strata("convert", `${GOLDEN_IO}tiny_360day.nc`, existing);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
    const bad = join(dir, "unstructured.zarr");
    const r = await strata("convert", `${REAL}atm_phy_mag0004_1985.nc`, bad);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unstructured grid/);
    assert.equal(await stat(bad).catch(() => undefined), undefined, "no partial output");
    const missing = await strata("convert", join(dir, "nope.nc"), join(dir, "nope.zarr"));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /does not exist/);
  });
});
