/**
 * The hosted image service's drawing and taking-away endpoints on the published sample
 * sst_climatology_4deg (COADS SST, 12 months, 4°): exportImage as a float GeoTIFF equals the
 * slice as xarray reads it (golden), PNG draws land (nodata) transparent and ocean opaque,
 * slices by sliceId, time and mosaicRule agree, f=json gives an href, ETags answer 304,
 * every bad parameter is a 400 naming it; download gives a NetCDF-4 file that xarray reads
 * with the same values, coordinates, units and time axis as the source.
 */
import assert from "node:assert/strict";
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fromArrayBuffer } from "geotiff";
import { decodePng } from "../helpers/pngDecode.js";
import { type TestServer, startTestServer } from "../helpers/server.js";
import { type GoldenSlice, SST_SERVICE as SERVICE, sstGoldenSlices } from "../helpers/sstGolden.js";
import { xarrayView } from "../helpers/xarray.js";

let server: TestServer;
let golden: { slices: GoldenSlice[] };
let info: { extent: { xmin: number; ymin: number; xmax: number; ymax: number } };
let times: number[];

before(async () => {
  server = await startTestServer({ "allow-anonymous": true });
  golden = { slices: await sstGoldenSlices() };
  const root = await server.call(SERVICE, {}, { method: "GET" });
  // The file's 4° cells span 19..379 east (centres 21..377); the service reports them from the
  // cell edge just west of -180, as map clients expect (servedExtent.ts). These tests draw
  // the grid as stored, so that its cells come in the file's order.
  assert.deepEqual([root.extent.xmin, root.extent.ymin, root.extent.xmax, root.extent.ymax], [-181, -91, 179, 89]);
  info = { extent: { xmin: 19, ymin: -91, xmax: 379, ymax: 89 } };
  const md = await server.call(`${SERVICE}/multidimensionalInfo`, {}, { method: "GET" });
  times = md.multidimensionalInfo.variables[0].dimensions[0].values as number[];
});
after(async () => {
  await server.close();
});

async function get(path: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${SERVICE}/${path}?${new URLSearchParams(params)}`, { headers });
}

/** The whole grid at its own cells: the export is the slice itself. */
function wholeGrid(): Record<string, string> {
  const e = info.extent;
  return { bbox: `${e.xmin},${e.ymin},${e.xmax},${e.ymax}`, bboxSR: "4326", size: "90,45", interpolation: "RSP_NearestNeighbor" };
}

async function tiffValues(
  response: Response,
): Promise<{ values: Float32Array; width: number; height: number; nodata: number | null; origin: number[]; resolution: number[] }> {
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "image/tiff");
  const tiff = await fromArrayBuffer(await response.arrayBuffer());
  const image = await tiff.getImage();
  const [band] = (await image.readRasters()) as unknown as Float32Array[];
  return {
    values: band,
    width: image.getWidth(),
    height: image.getHeight(),
    nodata: image.getGDALNoData(),
    origin: image.getOrigin(),
    resolution: image.getResolution(),
  };
}

describe("multidimensionalInfo", () => {
  it("returnDimensionValues: always by default, never leaves them out, a bad value is a 400", async () => {
    const dims = async (v?: string) => {
      const r = await server.call(`${SERVICE}/multidimensionalInfo`, v === undefined ? {} : { returnDimensionValues: v }, {
        method: "GET",
      });
      return r.multidimensionalInfo?.variables[0].dimensions[0] ?? r;
    };
    assert.equal((await dims()).values.length, 12);
    assert.equal((await dims("never")).values, undefined);
    assert.equal((await dims("always")).values.length, 12);
    assert.equal((await dims("sometimes")).error.code, 400);
  });
});

describe("exportImage", () => {
  for (const index of [0, 6]) {
    it(`format=tiff of slice ${index} equals xarray's values of that slice`, async () => {
      const slice = golden.slices.find((s) => s.index === index)!;
      const t = await tiffValues(await get("exportImage", { ...wholeGrid(), format: "tiff", sliceId: String(index), f: "image" }));
      assert.deepEqual([t.width, t.height], [slice.cols, slice.rows]);
      assert.deepEqual(t.origin.slice(0, 2), [info.extent.xmin, info.extent.ymax]);
      assert.deepEqual(t.resolution.slice(0, 2), [4, -4]);
      // No data is the lowest float32, as ArcGIS marks it (NaN is not masked by the Maps SDK).
      assert.equal(t.nodata, -3.4028234663852886e38);
      let land = 0;
      slice.values.forEach((want, i) => {
        if (want === null) {
          land++;
          assert.equal(t.values[i], t.nodata, `cell ${i}: ${t.values[i]} where xarray has NaN`);
        } else assert.equal(t.values[i], Math.fround(want), `cell ${i}`);
      });
      assert.ok(land > 500 && land < 3000, `${land} land cells`);
    });
  }

  it("time (an instant or a range) and mosaicRule pick the same slice as sliceId", async () => {
    const bySlice = await tiffValues(await get("exportImage", { ...wholeGrid(), format: "tiff", sliceId: "6" }));
    const definition = [{ variableName: "SST", dimensionName: "StdTime", values: [times[6]] }];
    for (const params of [
      { time: String(times[6]) } as Record<string, string>,
      { time: String(times[6] + 3_600_000) }, // an hour later: July is still the slice in effect
      { time: `${times[5] + 1},${times[6]}` },
      { mosaicRule: JSON.stringify({ multidimensionalDefinition: definition }) },
    ]) {
      const other = await tiffValues(await get("exportImage", { ...wholeGrid(), format: "tiff", ...params }));
      assert.deepEqual(Buffer.from(other.values.buffer), Buffer.from(bySlice.values.buffer), JSON.stringify(params));
    }
    const january = await tiffValues(await get("exportImage", { ...wholeGrid(), format: "tiff", time: String(times[0]) }));
    assert.notDeepEqual(Buffer.from(january.values.buffer), Buffer.from(bySlice.values.buffer));
  });

  it("PNG: land (nodata) is transparent, ocean opaque; in Web Mercator too", async () => {
    const slice = golden.slices.find((s) => s.index === 0)!;
    for (const format of ["png", "png8", "png32"]) {
      const r = await get("exportImage", { ...wholeGrid(), format, sliceId: "0" });
      assert.equal(r.headers.get("content-type"), "image/png");
      const png = decodePng(new Uint8Array(await r.arrayBuffer()));
      assert.deepEqual([png.width, png.height], [90, 45]);
      slice.values.forEach((want, i) => assert.equal(png.rgba[4 * i + 3], want === null ? 0 : 255, `${format} cell ${i}`));
    }
    // Web Mercator, the world between ±60°: a cell in the central Pacific is ocean, one in central Africa land.
    const R = 6378137;
    const y60 = R * Math.log(Math.tan(Math.PI / 4 + Math.PI / 6));
    const r = await get("exportImage", {
      bbox: `${-Math.PI * R},${-y60},${Math.PI * R},${y60}`,
      bboxSR: "102100",
      imageSR: "102100",
      size: "360,200",
      format: "png32",
    });
    const png = decodePng(new Uint8Array(await r.arrayBuffer()));
    const alphaAt = (lon: number, lat: number) => {
      const x = (R * (lon * Math.PI)) / 180;
      const y = R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
      const col = Math.floor(((x + Math.PI * R) / (2 * Math.PI * R)) * 360);
      const row = Math.floor(((y60 - y) / (2 * y60)) * 200);
      return png.rgba[4 * (row * 360 + col) + 3];
    };
    assert.equal(alphaAt(-150, 0), 255, "central Pacific");
    assert.equal(alphaAt(22, 5), 0, "central Africa");
  });

  it("takes bbox corners in either order (esri-leaflet sends ymax first) and parameter names in any case", async () => {
    const e = info.extent;
    const same = async (params: Record<string, string>) => Buffer.from(await (await get("exportImage", params)).arrayBuffer());
    const base = await same({ ...wholeGrid(), format: "png32", sliceId: "1" });
    assert.ok(base.equals(await same({ ...wholeGrid(), bbox: `${e.xmin},${e.ymax},${e.xmax},${e.ymin}`, format: "png32", sliceId: "1" })));
    const upper = Object.fromEntries(
      Object.entries({ ...wholeGrid(), format: "png32", sliceId: "1" }).map(([k, v]) => [k.toUpperCase(), v]),
    );
    assert.ok(base.equals(await same(upper)));
  });

  it("f=json gives an href to the same image, with the extent drawn", async () => {
    const params = { ...wholeGrid(), format: "png32", sliceId: "3" };
    const json = (await (await get("exportImage", { ...params, f: "json" })).json()) as {
      href: string;
      width: number;
      height: number;
      extent: { xmin: number; spatialReference: { wkid: number } };
    };
    assert.equal(json.width, 90);
    assert.equal(json.height, 45);
    assert.equal(json.extent.xmin, info.extent.xmin);
    assert.equal(json.extent.spatialReference.wkid, 4326);
    const viaHref = Buffer.from(await (await fetch(json.href)).arrayBuffer());
    const direct = Buffer.from(await (await get("exportImage", { ...params, f: "image" })).arrayBuffer());
    assert.ok(viaHref.equals(direct));
  });

  it("answers a repeated request with 304 from its ETag", async () => {
    const params = { ...wholeGrid(), format: "png", sliceId: "2" };
    const first = await get("exportImage", params);
    const etag = first.headers.get("etag");
    assert.ok(etag);
    assert.match(first.headers.get("cache-control") ?? "", /public, max-age=\d+/);
    const again = await get("exportImage", params, { "If-None-Match": etag });
    assert.equal(again.status, 304);
    const other = await get("exportImage", { ...params, sliceId: "3" }, { "If-None-Match": etag });
    assert.equal(other.status, 200);
  });

  it("a renderingRule changes the colours; the default is viridis over the statistics", async () => {
    const png = async (extra: Record<string, string>) =>
      decodePng(new Uint8Array(await (await get("exportImage", { ...wholeGrid(), format: "png32", sliceId: "0", ...extra })).arrayBuffer()))
        .rgba;
    const viridis = await png({});
    const gray = await png({ renderingRule: JSON.stringify({ rasterFunction: "Stretch", rasterFunctionArguments: { StretchType: 5 } }) });
    const slice = golden.slices.find((s) => s.index === 0)!;
    const ocean = slice.values.findIndex((v) => v !== null);
    assert.equal(gray[4 * ocean], gray[4 * ocean + 1]);
    assert.equal(gray[4 * ocean + 1], gray[4 * ocean + 2]);
    assert.notDeepEqual([...viridis.slice(4 * ocean, 4 * ocean + 3)], [...gray.slice(4 * ocean, 4 * ocean + 3)]);
    // The warmest ocean cell of the slice is near viridis' top (#fde725), the coldest near its bottom (#440154).
    const valid = slice.values.map((v, i) => [v, i] as const).filter(([v]) => v !== null) as [number, number][];
    const warm = valid.reduce((a, b) => (b[0] > a[0] ? b : a))[1];
    const cold = valid.reduce((a, b) => (b[0] < a[0] ? b : a))[1];
    assert.ok(viridis[4 * warm + 1] > 150 && viridis[4 * warm + 2] < 150, `warm ${viridis.slice(4 * warm, 4 * warm + 3).join(",")}`);
    assert.ok(viridis[4 * cold] < 120 && viridis[4 * cold + 1] < 80, `cold ${viridis.slice(4 * cold, 4 * cold + 3).join(",")}`);
  });

  for (const [params, parameter] of [
    [{ size: "5000,5000" }, "size"],
    [{ size: "a,b" }, "size"],
    [{ format: "gif" }, "format"],
    [{ bbox: "1,2,3" }, "bbox"],
    [{ bbox: "10,0,10,10" }, "bbox"],
    [{ imageSR: "999999" }, "imageSR"],
    [{ bboxSR: "{bad json" }, "bboxSR"],
    [{ time: "yesterday" }, "time"],
    [{ sliceId: "12" }, "sliceId"],
    [{ mosaicRule: '{"multidimensionalDefinition":[{"variableName":"T2M"}]}' }, "mosaicRule"],
    [{ mosaicRule: '{"multidimensionalDefinition":[{"variableName":"SST","dimensionName":"StdZ","values":[0]}]}' }, "mosaicRule"],
    [{ renderingRule: '{"rasterFunction":"Hillshade"}' }, "renderingRule"],
    [{ interpolation: "RSP_Lanczos" }, "interpolation"],
    [{ pixelType: "C64", format: "tiff" }, "pixelType"],
    [{ pixelType: "U8", format: "tiff", noData: "300" }, "noData"],
    [{ format: "png", noData: "NaN" }, "noData"],
    [{ adjustAspectRatio: "maybe" }, "adjustAspectRatio"],
  ] as const) {
    it(`400 naming ${parameter} for ${JSON.stringify(params)}`, async () => {
      const r = (await (await get("exportImage", { ...params, f: "json" })).json()) as { error?: { code: number; details: string[] } };
      assert.equal(r.error?.code, 400, JSON.stringify(r));
      assert.match(r.error!.details.join(" "), new RegExp(parameter));
    });
  }
});

describe("identify, getSamples, computeStatisticsHistograms over HTTP", () => {
  /** The centre of grid cell (row, col), north-up, in the service's coordinates. */
  const centre = (row: number, col: number) => ({ x: info.extent.xmin + 4 * col + 2, y: info.extent.ymax - 4 * row - 2 });
  const slice = (index: number) => golden.slices.find((s) => s.index === index)!;
  const query = async (path: string, params: Record<string, string>) =>
    (await (await get(path, { ...params, f: "json" })).json()) as Record<string, unknown>;

  it("identify with processAsMultidimensional gives every month's value at a cell, as xarray reads them", async () => {
    const cell = slice(0).values.findIndex((v, i) => v !== null && slice(6).values[i] !== null && i > 45 * 20);
    const [row, col] = [Math.floor(cell / 90), cell % 90];
    const p = centre(row, col);
    const r = await query("identify", {
      geometry: JSON.stringify({ ...p, spatialReference: { wkid: 4326 } }),
      geometryType: "esriGeometryPoint",
      sliceId: "6",
      processAsMultidimensional: "true",
    });
    assert.equal(Math.fround(Number(r.value)), Math.fround(slice(6).values[cell]!));
    const series = r.dataSeries as { value: (number | null)[]; multidimensionalDefinition: { values: number[] }[] }[];
    assert.equal(series.length, 12);
    assert.equal(series[0].value[0], Math.fround(slice(0).values[cell]!));
    assert.equal(series[6].value[0], Math.fround(slice(6).values[cell]!));
    assert.deepEqual(
      series.map((s) => s.multidimensionalDefinition[0].values[0]),
      times,
    );
  });

  it("getSamples along a line and statistics over the whole grid agree with xarray's slice", async () => {
    const values = slice(0).values;
    const valid = values.filter((v): v is number => v !== null).map(Math.fround);
    const e = info.extent;
    const stats = await query("computeStatisticsHistograms", {
      geometry: JSON.stringify({ xmin: e.xmin, ymin: e.ymin, xmax: e.xmax, ymax: e.ymax, spatialReference: { wkid: 4326 } }),
      geometryType: "esriGeometryEnvelope",
      sliceId: "0",
    });
    const s = (stats.statistics as { min: number; max: number; mean: number; count: number }[])[0];
    assert.equal(s.count, valid.length);
    assert.equal(s.min, Math.min(...valid));
    assert.equal(s.max, Math.max(...valid));
    assert.ok(Math.abs(s.mean - valid.reduce((a, b) => a + b, 0) / valid.length) < 1e-9);
    const [a, b] = [centre(20, 10), centre(20, 30)];
    const samples = await query("getSamples", {
      geometry: JSON.stringify({
        paths: [
          [
            [a.x, a.y],
            [b.x, b.y],
          ],
        ],
        spatialReference: { wkid: 4326 },
      }),
      geometryType: "esriGeometryPolyline",
      sampleCount: "21",
      sliceId: "0",
    });
    const got = (samples.samples as { value: string }[]).map((x) => x.value);
    assert.equal(got.length, 21);
    got.forEach((v, k) => {
      const want = values[20 * 90 + 10 + k];
      // Values come as the shortest text of their float32.
      assert.equal(v === "NoData" ? null : Math.fround(Number(v)), want === null ? null : Math.fround(want), `sample ${k}`);
    });
  });
});

describe("download", () => {
  it("the service as NetCDF-4 opens in xarray with the source's values, coordinates, units and time axis", async () => {
    // navy_winds_10deg: its time axis is one xarray decodes (the SST climatology's counts from year 0).
    const winds = "/rest/services/Hosted/navy_winds_10deg/ImageServer";
    const md = await server.call(`${winds}/multidimensionalInfo`, {}, { method: "GET" });
    const t = md.multidimensionalInfo.variables[0].dimensions[0].values as number[];
    const r = await fetch(
      `${server.url}${winds}/download?${new URLSearchParams({ format: "netcdf", variables: "UWND", time: `${t[10]},${t[13]}` })}`,
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/x-netcdf");
    assert.match(r.headers.get("content-disposition") ?? "", /attachment; filename="navy_winds_10deg\.nc"/);
    const file = join(server.dataDir, "downloaded.nc");
    await writeFile(file, Buffer.from(await r.arrayBuffer()));
    const got = xarrayView(file);
    const source = xarrayView(new URL("../../samples/navy_winds_10deg.nc", import.meta.url).pathname, { time: [10, 11, 12, 13] });
    assert.deepEqual(Object.keys(got.variables).sort(), ["UWND", "spatial_ref"]); // and the CF grid mapping
    const u = got.variables.UWND;
    assert.deepEqual(u.dims, ["time", "lat", "lon"]);
    assert.deepEqual(u.shape, [4, 19, 36]);
    assert.equal(u.attrs.units, source.variables.UWND.attrs.units);
    // The download is north-up, the source south-up: compare rows flipped.
    const src = source.variables.UWND.values;
    let valid = 0;
    for (let k = 0; k < 4; k++)
      for (let row = 0; row < 19; row++)
        for (let col = 0; col < 36; col++) {
          const a = u.values[(k * 19 + row) * 36 + col];
          const b = src[(k * 19 + (18 - row)) * 36 + col];
          assert.equal(a, b, `time ${k} row ${row} col ${col}`);
          if (a !== null) valid++;
        }
    assert.ok(valid > 100, `${valid} valid values`);
    assert.deepEqual(got.coords.lat.values, [...source.coords.lat.values].reverse());
    assert.deepEqual(got.coords.lon.values, source.coords.lon.values);
    assert.equal(got.coords.lat.attrs.units, "degrees_north");
    assert.equal(got.coords.lon.attrs.units, "degrees_east");
    assert.deepEqual(got.coords.time.values, source.coords.time.values);
    assert.match(String(got.coords.time.values[0]), /^1982-11-/); // the 11th month of the record
  });

  it("refuses unknown variables and empty selections naming the parameter, leaving no scratch file", async () => {
    for (const [params, parameter] of [
      [{ variables: "T2M" }, "variables"],
      [{ time: "0,1" }, "time"],
      [{ format: "grib" }, "format"],
    ] as const) {
      const r = (await (await get("download", { ...params, f: "json" })).json()) as { error?: { code: number; details: string[] } };
      assert.equal(r.error?.code, 400, JSON.stringify(r));
      assert.match(r.error!.details.join(" "), new RegExp(parameter));
    }
    const scratch = await readdir(server.strata.scratchDir).catch(() => []);
    assert.deepEqual(scratch, []);
  });
});

after(async () => {
  await rm(join(server.dataDir, "downloaded.nc"), { force: true });
});
