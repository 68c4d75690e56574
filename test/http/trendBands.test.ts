/**
 * A trend raster is served multiband (SPEC §8, §11): a LINEAR trend with RMSE and R2 of a
 * hand-made cube whose every pixel is an exact line, so each band's value is known without
 * Strata: Slope = c + 1 per day and Intercept = 10·r + c for variable `a` (stored row r,
 * column c), RMSE 0, R2 1; variable `b` has a `level` dimension (two levels k) with Slope
 * −(k + 1)/2 and Intercept 100·k + 10·r + c. The service shows 4 named bands, no `Band`
 * dimension, and every query answers every band (or the bands `bandIds` chooses).
 */
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { decodePng } from "../helpers/pngDecode.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";
import { tiffBands } from "../helpers/tiffBands.js";
import { interceptA, interceptB, isHole, slopeA, slopeB, validA, writeTrendLines } from "../helpers/trendLines.js";
import { xarrayView } from "../helpers/xarray.js";

const TASK = "GenerateTrendRaster";
const GP = `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}`;
const SERVICE = "/rest/services/Hosted/trend_bands/ImageServer";
const BANDS = ["Slope", "Intercept", "RMSE", "R2"];
const dir = join(tmpdir(), `strata-trend-bands-${process.pid}`);
let server: TestServer;
let token: string;
/** The service's name of the level dimension (as the reader named it). */
let levelName = "";

before(async () => {
  await mkdir(dir, { recursive: true });
  await writeTrendLines(join(dir, "lines.nc"));
  server = await startTestServer({ store: [`fileShare:work=${dir}`], "allow-anonymous": true });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
  const submitted = await server.call(
    `${GP}/submitJob`,
    {
      inputMultidimensionalRaster: '{"uri":"/fileShares/work/lines.nc"}',
      outputName: "trend_bands",
      dimension: "StdTime",
      trendLineType: "LINEAR",
      rmse: "true",
      r2: "true",
    },
    { token },
  );
  const job = await waitForJob(server, TASK, submitted.jobId, token);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
  const md = (await call("/multidimensionalInfo")).multidimensionalInfo;
  levelName = md.variables.find((v: { name: string }) => v.name === "b").dimensions[0].name;
});
after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const call = (path: string, params: Record<string, string> = {}) => server.call(`${SERVICE}${path}`, params, { token, method: "GET" });
const get = (path: string, params: Record<string, string>) =>
  fetch(`${server.url}${SERVICE}/${path}?${new URLSearchParams({ ...params, token })}`);

/** Numbers of a space-separated band text. */
const numbers = (text: string) => text.split(" ").map(Number);

function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual}, expected ${expected}`);
}

function closeAll(actual: readonly number[], expected: readonly number[], what: string): void {
  assert.equal(actual.length, expected.length, `${what}: ${JSON.stringify(actual)}`);
  actual.forEach((a, i) => close(a, expected[i], `${what}[${i}]`));
}

describe("the service's bands", () => {
  it("the root counts and names the bands, with each band's statistics", async () => {
    const info = await call("");
    assert.equal(info.bandCount, 4);
    assert.deepEqual(info.bandNames, BANDS);
    assert.equal(info.pixelType, "F64");
    const slopes = validA.map(([r, c]) => slopeA(r, c));
    const intercepts = validA.map(([r, c]) => interceptA(r, c));
    closeAll(info.minValues, [Math.min(...slopes), Math.min(...intercepts), 0, 1], "minValues");
    closeAll(info.maxValues, [Math.max(...slopes), Math.max(...intercepts), 0, 1], "maxValues");
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    closeAll(info.meanValues.slice(0, 2), [mean(slopes), mean(intercepts)], "meanValues");
  });

  it("keyProperties names each band", async () => {
    const keys = await call("/keyProperties");
    assert.deepEqual(
      keys.BandProperties,
      BANDS.map((BandName) => ({ BandName })),
    );
  });

  it("multidimensionalInfo lists no Band dimension, and one statistics entry per band", async () => {
    const md = (await call("/multidimensionalInfo")).multidimensionalInfo;
    const byName = Object.fromEntries(md.variables.map((v: { name: string }) => [v.name, v]));
    assert.deepEqual(Object.keys(byName).sort(), ["a", "b"]);
    assert.deepEqual(byName.a.dimensions, []);
    assert.equal(byName.b.dimensions.length, 1);
    assert.notEqual(byName.b.dimensions[0].name, "Band");
    assert.deepEqual(byName.b.dimensions[0].values, [1, 2]);
    assert.equal(byName.a.statistics.length, 4);
    close(byName.b.statistics[0].min, slopeB(1), "b Slope min");
    close(byName.b.statistics[0].max, slopeB(0), "b Slope max");
    assert.deepEqual(byName.b.attributes["strata:trend"].bands, BANDS);
  });

  it("slices vary along the other dimensions only; a Band in a mosaic rule is a 400 pointing to bandIds", async () => {
    const { slices } = await call("/slices");
    assert.equal(slices.length, 3); // a; b at two levels
    for (const s of slices) for (const d of s.multidimensionalDefinition) assert.notEqual(d.dimensionName, "Band");
    const bad = await call("/identify", {
      geometry: "0,0",
      mosaicRule: JSON.stringify({ multidimensionalDefinition: [{ variableName: "a", dimensionName: "Band", values: [1] }] }),
    });
    assert.equal(bad.error?.code, 400);
    assert.match(JSON.stringify(bad.error), /bandIds/);
  });
});

describe("queries answer every band", () => {
  it("identify: the bands' values separated by spaces; NoData at a nodata pixel", async () => {
    // lon 10, lat 5: stored row 1, column 2.
    const at = await call("/identify", { geometry: '{"x":10,"y":5,"spatialReference":{"wkid":4326}}' });
    closeAll(numbers(at.value), [slopeA(1, 2), interceptA(1, 2), 0, 1], "identify a");
    const hole = await call("/identify", { geometry: '{"x":0,"y":-5,"spatialReference":{"wkid":4326}}' });
    assert.equal(hole.value, "NoData");
  });

  it("identify with processAsMultidimensional: each slice's bands, in Values and dataSeries", async () => {
    const r = await call("/identify", {
      geometry: '{"x":-10,"y":-5,"spatialReference":{"wkid":4326}}',
      processAsMultidimensional: "true",
      mosaicRule: JSON.stringify({ multidimensionalDefinition: [{ variableName: "b" }] }),
    });
    assert.equal(r.properties.Values.length, 2);
    assert.equal(r.dataSeries.length, 2);
    for (const k of [0, 1]) {
      const expected = [slopeB(k), interceptB(k, 0, 0), 0, 1];
      closeAll(numbers(r.properties.Values[k]), expected, `Values[${k}]`);
      closeAll(r.dataSeries[k].value, expected, `dataSeries[${k}]`);
      assert.deepEqual(
        r.dataSeries[k].multidimensionalDefinition.map((d: { dimensionName: string; values: number[] }) => [d.dimensionName, d.values]),
        [[levelName, [k + 1]]],
      );
    }
    closeAll(numbers(r.value), [slopeB(0), interceptB(0, 0, 0), 0, 1], "value (first level)");
  });

  it("getSamples: every band of each sample", async () => {
    const r = await call("/getSamples", {
      geometry: '{"points":[[-10,5],[0,5]],"spatialReference":{"wkid":4326}}',
      geometryType: "esriGeometryMultipoint",
    });
    assert.equal(r.samples.length, 2);
    closeAll(numbers(r.samples[0].value), [slopeA(1, 0), interceptA(1, 0), 0, 1], "sample 0");
    closeAll(numbers(r.samples[1].value), [slopeA(1, 1), interceptA(1, 1), 0, 1], "sample 1");
  });

  it("computeStatisticsHistograms: statistics and a histogram per band", async () => {
    const r = await call("/computeStatisticsHistograms", {
      geometry: '{"xmin":-15,"ymin":-10,"xmax":15,"ymax":10,"spatialReference":{"wkid":4326}}',
      geometryType: "esriGeometryEnvelope",
    });
    assert.equal(r.statistics.length, 4);
    assert.equal(r.histograms.length, 4);
    const slopes = validA.map(([row, c]) => slopeA(row, c));
    const intercepts = validA.map(([row, c]) => interceptA(row, c));
    assert.equal(r.statistics[0].count, 5);
    closeAll([r.statistics[0].min, r.statistics[0].max], [Math.min(...slopes), Math.max(...slopes)], "Slope");
    closeAll([r.statistics[1].min, r.statistics[1].max], [Math.min(...intercepts), Math.max(...intercepts)], "Intercept");
    for (const h of r.histograms)
      assert.equal(
        h.counts.reduce((s: number, x: number) => s + x, 0),
        5,
      );
  });
});

describe("exportImage chooses bands with bandIds", () => {
  const whole = { bbox: "-15,-10,15,10", bboxSR: "4326", size: "3,2", interpolation: "RSP_NearestNeighbor" };

  async function tiff(params: Record<string, string>): Promise<Float32Array[]> {
    const r = await get("exportImage", { ...whole, format: "tiff", f: "image", ...params });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "image/tiff");
    return (await tiffBands(await r.arrayBuffer())).bands;
  }

  /** North-up pixel order of a hand function of (stored row, column). */
  const northUp = (f: (r: number, c: number) => number) =>
    [1, 0].flatMap((r) => [0, 1, 2].map((c) => (r === 0 && c === 1 ? NaN : f(r, c))));

  it("a tiff holds every band by default, and the bands asked for in their order", async () => {
    const all = await tiff({});
    assert.equal(all.length, 4);
    const expectSame = (got: Float32Array, want: number[], what: string) =>
      want.forEach((w, i) => (Number.isNaN(w) ? assert.ok(Number.isNaN(got[i]), what) : close(got[i], w, `${what}[${i}]`)));
    expectSame(all[0], northUp(slopeA), "Slope");
    expectSame(all[1], northUp(interceptA), "Intercept");
    const [intercept, slope] = await tiff({ bandIds: "1,0" });
    expectSame(intercept, northUp(interceptA), "bandIds 1,0 first");
    expectSame(slope, northUp(slopeA), "bandIds 1,0 second");
  });

  it("one band is drawn with the colormap over its own range; three bands as RGB", async () => {
    const png = async (params: Record<string, string>) => {
      const r = await get("exportImage", { ...whole, format: "png32", f: "image", ...params });
      assert.equal(r.status, 200);
      return decodePng(new Uint8Array(await r.arrayBuffer()));
    };
    const slope = await png({ bandIds: "0" });
    const intercept = await png({ bandIds: "1" });
    assert.notDeepEqual(Array.from(slope.rgba), Array.from(intercept.rgba));
    assert.deepEqual(Array.from((await png({})).rgba), Array.from(slope.rgba)); // the first band by default
    // RGB: red = Slope stretched over its range [1, 3], green = Intercept over [0, 12] (min-max
    // onto 0..255: index floor(256·(v − min)/(max − min)), the top value 255), blue = RMSE.
    const rgb = await png({ bandIds: "0,1,2", renderingRule: '{"rasterFunction":"Stretch","rasterFunctionArguments":{"StretchType":5}}' });
    const px = (x: number, y: number) => Array.from(rgb.rgba.slice((y * 3 + x) * 4, (y * 3 + x) * 4 + 4));
    const [r0, g0, , a0] = px(0, 0); // stored row 1, column 0: Slope 1, Intercept 10
    assert.deepEqual([r0, g0, a0], [0, Math.floor((256 * 10) / 12), 255]);
    const [r2, g2, , a2] = px(2, 0); // Slope 3, Intercept 12
    assert.deepEqual([r2, g2, a2], [255, 255, 255]);
    assert.equal(px(1, 1)[3], 0); // the nodata pixel is transparent
    const defaultRgb = await png({ bandIds: "0,1,2" }); // no rule: min-max per band as well
    assert.deepEqual(Array.from(defaultRgb.rgba.slice(0, 2)), [0, Math.floor((256 * 10) / 12)]);
  });

  it("bad bandIds are 400s naming bandIds", async () => {
    for (const bandIds of ["4", "-1", "0,1", "x", "[0,"]) {
      const r = (await (await get("exportImage", { ...whole, format: "png", f: "json", bandIds })).json()) as {
        error?: { code: number; message: string };
      };
      assert.equal(r.error?.code, 400, bandIds);
      assert.match(JSON.stringify(r.error), /bandIds/, bandIds);
    }
    const colormap = (await (
      await get("exportImage", {
        ...whole,
        format: "png",
        f: "json",
        bandIds: "0,1,2",
        renderingRule: '{"rasterFunction":"Colormap","rasterFunctionArguments":{"ColormapName":"viridis"}}',
      })
    ).json()) as { error?: { code: number; message: string } };
    assert.equal(colormap.error?.code, 400);
  });
});

describe("download", () => {
  it("the NetCDF file has the bands as its `band` dimension, values as the bands are", async () => {
    const r = await get("download", { format: "netcdf", variables: "a" });
    assert.equal(r.status, 200);
    const file = join(dir, "trend.nc");
    await writeFile(file, new Uint8Array(await r.arrayBuffer()));
    const x = xarrayView(file);
    const a = x.variables.a;
    assert.equal(a.dims[0], "band");
    assert.deepEqual(a.shape, [4, 2, 3]);
    assert.deepEqual(x.coords.band.values, [1, 2, 3, 4]);
    // Band 1 (Slope), north-up rows: stored row 1 first.
    const slopeValues = a.values.slice(0, 6);
    [1, 0]
      .flatMap((row) => [0, 1, 2].map((c) => [row, c] as const))
      .forEach(([row, c], i) => {
        if (isHole(row, c)) assert.equal(slopeValues[i], null);
        else close(slopeValues[i] as number, slopeA(row, c), `download Slope ${row},${c}`);
      });
    assert.ok(JSON.stringify(a.attrs).includes("Slope"), JSON.stringify(a.attrs));
  });
});
