/**
 * LERC over HTTP on the published sample sst_climatology_4deg (COADS SST, 12 months, 4°),
 * read back with Esri's decoder (the `lerc` package) and compared with xarray's values of the
 * slice (test/golden/export, scripts/goldens/make_export_goldens.py): exportImage
 * format=lerc as f=image and through f=json's href, and the tile resource ImageryTileLayer
 * reads, with the tiling scheme the root resource announces.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import * as Lerc from "lerc";
import { type TestServer, startTestServer } from "../helpers/server.js";
import { type GoldenSlice, SST_SERVICE as SERVICE, sstGoldenSlices } from "../helpers/sstGolden.js";

let server: TestServer;
let golden: { slices: GoldenSlice[] };

before(async () => {
  await Lerc.load();
  server = await startTestServer({ "allow-anonymous": true });
  golden = { slices: await sstGoldenSlices() };
});
after(async () => {
  await server.close();
});

async function get(path: string, params: Record<string, string> = {}): Promise<Response> {
  const query = new URLSearchParams(params).toString();
  return fetch(`${server.url}${SERVICE}/${path}${query ? `?${query}` : ""}`);
}

async function decoded(response: Response) {
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("content-type"), "application/octet-stream");
  return Lerc.decode(new Uint8Array(await response.arrayBuffer()));
}

/**
 * Pixels (row, col) of a decoded blob against xarray's slice, the blob's pixel (r, c) being
 * the file's cell (r + dy, c + dx); cells outside the file must be masked.
 */
function matchesGolden(d: Lerc.LercData, slice: GoldenSlice, dx = 0, dy = 0): void {
  const mask = d.mask ?? d.bandMasks?.[0];
  let compared = 0;
  for (let r = 0; r < d.height; r++) {
    for (let c = 0; c < d.width; c++) {
      const i = r * d.width + c;
      const row = r + dy;
      const col = c + dx;
      const want = row < slice.rows && col < slice.cols ? slice.values[row * slice.cols + col] : null;
      const valid = mask ? mask[i] === 1 : true;
      if (want === null) assert.equal(valid, false, `pixel ${r},${c} should have no value`);
      else {
        assert.equal(valid, true, `pixel ${r},${c} should hold ${want}`);
        assert.equal(d.pixels[0][i], Math.fround(want), `pixel ${r},${c}`);
        compared++;
      }
    }
  }
  assert.ok(compared > 1000, `${compared} ocean cells compared`);
}

/** The file's own cells (4°, 19..379 east), so nearest gives each cell's value. */
const wholeGrid = { bbox: "19,-91,379,89", bboxSR: "4326", size: "90,45", interpolation: "RSP_NearestNeighbor" };

describe("exportImage format=lerc", () => {
  it("answers the slice's float values, land masked, as xarray reads them", async () => {
    const d = await decoded(await get("exportImage", { ...wholeGrid, format: "lerc", sliceId: "6", f: "image" }));
    assert.equal(d.pixelType, "F32");
    matchesGolden(
      d,
      golden.slices.find((s) => s.index === 6)!,
    );
  });

  it("f=json answers an href to the same blob, and ImageryLayer's compressionTolerance bounds the error", async () => {
    const params = { ...wholeGrid, format: "lerc", sliceId: "0", compressionTolerance: "0.01", lercVersion: "2" };
    const json = await server.call(`${SERVICE}/exportImage`, params, { method: "GET" });
    assert.match(json.href, /\/ImageServer\/output\/[\w-]+\.lerc$/);
    assert.deepEqual([json.width, json.height], [90, 45]);
    const viaHref = await decoded(await fetch(json.href));
    const direct = await decoded(await get("exportImage", { ...params, f: "image" }));
    assert.deepEqual(Array.from(viaHref.pixels[0]), Array.from(direct.pixels[0]));
    const slice = golden.slices.find((s) => s.index === 0)!;
    slice.values.forEach((want, i) => {
      if (want !== null) assert.ok(Math.abs(direct.pixels[0][i] - want) <= 0.01 + 1e-5, `cell ${i}`);
    });
  });

  it("a bad compressionTolerance or lercVersion is a 400 naming it", async () => {
    for (const [name, value] of [
      ["compressionTolerance", "-0.5"],
      ["lercVersion", "1"],
    ]) {
      const r = await server.call(`${SERVICE}/exportImage`, { ...wholeGrid, format: "lerc", [name]: value }, { method: "GET" });
      assert.equal(r.error?.code, 400, JSON.stringify(r));
      assert.match(r.error.details.join(" "), new RegExp(name));
    }
  });
});

/** ArcGIS's scale of a cell size in degrees (its WGS84 schemes: 39.37 inches a metre, 96 dpi). */
const degreeScale = (resolution: number) => resolution * 111319.49079327357 * 96 * 39.37;

describe("tiles", () => {
  it("the root announces a LERC tiling scheme in the service's own coordinates, from its extent's corner", async () => {
    const root = await server.call(SERVICE, {}, { method: "GET" });
    assert.equal(root.singleFusedMapCache, true);
    assert.equal(root.cacheType, "Raster");
    const t = root.tileInfo;
    assert.deepEqual([t.rows, t.cols, t.dpi, t.format], [256, 256, 96, "LERC"]);
    assert.deepEqual(t.origin, { x: root.extent.xmin, y: root.extent.ymax });
    assert.deepEqual(t.spatialReference, root.spatialReference);
    // 90 × 45 cells of 4° fit one tile: one level, at the grid's own cell size.
    assert.equal(t.lods.length, 1);
    assert.equal(t.lods[0].level, 0);
    assert.equal(t.lods[0].resolution, root.pixelSizeX);
    assert.ok(Math.abs(t.lods[0].scale / degreeScale(4) - 1) < 1e-9, `scale ${t.lods[0].scale}`);
    assert.deepEqual([root.minLOD, root.maxLOD, root.minScale, root.maxScale], [0, 0, 0, 0]);
  });

  it("tile/0/0/0 holds the slice's cells at the grid's own size, from the served extent's corner, the rest masked", async () => {
    const d = await decoded(await get("tile/0/0/0", { sliceId: "6" }));
    assert.deepEqual([d.width, d.height, d.pixelType], [256, 256, "F32"]);
    // The file's cells start at 19° east; the service serves them from -181°: served column
    // j is the file's column j - 50 (mod 90).
    const slice = golden.slices.find((s) => s.index === 6)!;
    const mask = d.mask ?? d.bandMasks![0];
    let compared = 0;
    for (let r = 0; r < 256; r++) {
      for (let c = 0; c < 256; c++) {
        const i = r * 256 + c;
        const want = r < slice.rows && c < slice.cols ? slice.values[r * slice.cols + ((c + 40) % 90)] : null;
        if (want === null) assert.equal(mask[i], 0, `pixel ${r},${c} has no value`);
        else {
          assert.equal(mask[i], 1, `pixel ${r},${c}`);
          assert.equal(d.pixels[0][i], Math.fround(want), `pixel ${r},${c}`);
          compared++;
        }
      }
    }
    assert.ok(compared > 1000, `${compared} ocean cells`);
  });

  it("sliceId, time and mosaicRule choose the slice; the same tile again is a 304 by its ETag", async () => {
    const md = await server.call(`${SERVICE}/multidimensionalInfo`, {}, { method: "GET" });
    const times = md.multidimensionalInfo.variables[0].dimensions[0].values as number[];
    const bytes = async (params: Record<string, string>) => new Uint8Array(await (await get("tile/0/0/0", params)).arrayBuffer());
    const july = await bytes({ sliceId: "6" });
    const january = await bytes({ sliceId: "0" });
    assert.notDeepEqual(july, january);
    assert.deepEqual(await bytes({ time: String(times[6]) }), july);
    const mosaicRule = JSON.stringify({
      multidimensionalDefinition: [{ variableName: "SST", dimensionName: "StdTime", values: [times[6]] }],
    });
    assert.deepEqual(await bytes({ mosaicRule }), july);
    const first = await get("tile/0/0/0", { sliceId: "6" });
    const etag = first.headers.get("etag")!;
    const again = await fetch(`${server.url}${SERVICE}/tile/0/0/0?sliceId=6`, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
  });

  it("a tile beyond the scheme is a 404, a malformed one a 400", async () => {
    for (const path of ["tile/1/0/0", "tile/0/1/0", "tile/0/0/1"]) {
      const r = await get(path, { sliceId: "0" });
      assert.equal(r.status, 404, path);
      await r.arrayBuffer();
    }
    const json = await server.call(`${SERVICE}/tile/0/0/1`, {}, { method: "GET" });
    assert.equal(json.error?.code, 404);
    assert.match(json.error.message, /Tile not found/);
    const bad = await get("tile/0/0/x");
    assert.equal(bad.status, 400);
    await bad.arrayBuffer();
  });
});
