/**
 * The image service resources the Maps SDK reads when it loads a layer (SPEC §11):
 * `statistics` and `histograms` (all of a variable's values, one entry per band), the root's
 * `hasHistograms`, and the capabilities. The sample sst_climatology_4deg's statistics and
 * histogram are checked against numpy's (test/golden/export/sst_climatology_statistics.json,
 * scripts/goldens/make_statistics_goldens.py); a trend raster's per-band ones against a
 * hand-made cube whose every pixel is an exact line, so each band's values are known. Every
 * capability the root advertises has each of its operations answer; the ArcGIS operations of
 * the capabilities Strata does not advertise do not exist.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";
import { interceptA, slopeA, slopeB, validA, writeTrendLines } from "../helpers/trendLines.js";

const SAMPLE = "/rest/services/Hosted/sst_climatology_4deg/ImageServer";
const TREND = "/rest/services/Hosted/resources_trend/ImageServer";
const GOLDEN = new URL("../golden/export/sst_climatology_statistics.json", import.meta.url);
const dir = join(tmpdir(), `strata-service-resources-${process.pid}`);

interface Golden {
  min: number;
  max: number;
  mean: number;
  standardDeviation: number;
  count: number;
  size: number;
  counts: number[];
  nearEdge: number[];
}

let server: TestServer;
let token: string;

before(async () => {
  await mkdir(dir, { recursive: true });
  await writeTrendLines(join(dir, "lines.nc"));
  server = await startTestServer({ store: [`fileShare:work=${dir}`], "allow-anonymous": true });
  await server.addUser("rita", "publisher", "rita-password-1");
  token = await server.token("rita", "rita-password-1");
  const tools = "/rest/services/System/RasterAnalysisTools/GPServer/GenerateTrendRaster";
  const submitted = await server.call(
    `${tools}/submitJob`,
    {
      inputMultidimensionalRaster: '{"uri":"/fileShares/work/lines.nc"}',
      outputName: "resources_trend",
      dimension: "StdTime",
      trendLineType: "LINEAR",
      rmse: "true",
      r2: "true",
    },
    { token },
  );
  const job = await waitForJob(server, "GenerateTrendRaster", submitted.jobId, token);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
});
after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const call = (service: string, path: string, params: Record<string, string> = {}) =>
  server.call(`${service}${path}`, params, { token, method: "GET" });

function close(actual: number, expected: number, what: string, tolerance = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: ${actual}, expected ${expected}`);
}

describe("statistics and histograms of the sample", () => {
  it("statistics are numpy's of every valid value, and the root's", async () => {
    const golden = JSON.parse(await readFile(GOLDEN, "utf8")) as Golden;
    const { statistics } = await call(SAMPLE, "/statistics");
    assert.equal(statistics.length, 1);
    const [s] = statistics;
    assert.equal(s.min, golden.min);
    assert.equal(s.max, golden.max);
    assert.equal(s.count, golden.count);
    close(s.mean, golden.mean, "mean");
    close(s.standardDeviation, golden.standardDeviation, "standardDeviation");
    // Asked by variable, the same; the root describes the same (first) variable.
    assert.deepEqual((await call(SAMPLE, "/statistics", { variable: "SST" })).statistics, statistics);
    const root = await call(SAMPLE, "");
    assert.deepEqual(
      [root.minValues[0], root.maxValues[0], root.meanValues[0], root.stdvValues[0]],
      [s.min, s.max, s.mean, s.standardDeviation],
    );
  });

  it("the histogram is numpy's 256 bins over [min, max], each value at most 1/8 bin away", async () => {
    const golden = JSON.parse(await readFile(GOLDEN, "utf8")) as Golden;
    const root = await call(SAMPLE, "");
    assert.equal(root.hasHistograms, true);
    const { histograms } = await call(SAMPLE, "/histograms", { variable: "SST" });
    assert.equal(histograms.length, 1);
    const [h] = histograms;
    assert.deepEqual([h.size, h.min, h.max, h.counts.length], [256, golden.min, golden.max, 256]);
    let mine = 0;
    let numpys = 0;
    for (let k = 1; k < 256; k++) {
      mine += h.counts[k - 1];
      numpys += golden.counts[k - 1];
      assert.ok(Math.abs(mine - numpys) <= golden.nearEdge[k - 1], `below edge ${k}: ${mine} values, numpy ${numpys}`);
    }
    assert.equal(mine + h.counts[255], golden.count);
  });

  it("the root's page links both, and each answers as a page too", async () => {
    const page = await (await fetch(`${server.url}${SAMPLE}?f=html`)).text();
    for (const resource of ["statistics", "histograms"]) {
      assert.ok(page.includes(`${SAMPLE}/${resource}"`), `the root's page links ${resource}`);
      const own = await fetch(`${server.url}${SAMPLE}/${resource}?f=html`);
      assert.equal(own.status, 200);
      assert.match(own.headers.get("content-type") ?? "", /text\/html/);
    }
  });

  it("an unknown variable or a renderingRule that changes values is a 400 naming it; the None function is fine", async () => {
    for (const path of ["/statistics", "/histograms"]) {
      const unknown = await call(SAMPLE, path, { variable: "salinity" });
      assert.equal(unknown.error?.code, 400);
      assert.match(unknown.error.details.join(" "), /variable "salinity".*SST/);
      const rule = await call(SAMPLE, path, { renderingRule: '{"rasterFunction":"Stretch","rasterFunctionArguments":{"StretchType":5}}' });
      assert.equal(rule.error?.code, 400);
      assert.match(rule.error.details.join(" "), /^renderingRule/);
      assert.equal((await call(SAMPLE, path, { renderingRule: "{oops" })).error?.code, 400);
      const none = await call(SAMPLE, path, { renderingRule: '{"rasterFunction":"None"}' });
      assert.equal(none.error, undefined, JSON.stringify(none.error));
    }
  });
});

describe("statistics and histograms of a trend raster, band by band", () => {
  const BANDS = ["Slope", "Intercept", "RMSE", "R2"];
  // Variable a's valid pixels (test/helpers/trendLines.ts): slopes 1, 3, 1, 2, 3; intercepts 0, 2, 10, 11, 12.
  const slopes = validA.map(([r, c]) => slopeA(r, c));
  const intercepts = validA.map(([r, c]) => interceptA(r, c));
  const moments = (xs: number[]) => {
    const mean = xs.reduce((p, q) => p + q, 0) / xs.length;
    return { mean, sd: Math.sqrt(xs.reduce((p, q) => p + (q - mean) ** 2, 0) / xs.length) };
  };

  it("one statistics entry per band, in band order; the default variable is the first", async () => {
    const { statistics } = await call(TREND, "/statistics");
    assert.deepEqual((await call(TREND, "")).bandNames, BANDS);
    assert.equal(statistics.length, 4);
    const [slope, intercept, rmse, r2] = statistics;
    for (const [got, xs, what] of [
      [slope, slopes, "Slope"],
      [intercept, intercepts, "Intercept"],
    ] as const) {
      assert.equal(got.count, 5, what);
      close(got.min, Math.min(...xs), `${what} min`);
      close(got.max, Math.max(...xs), `${what} max`);
      close(got.mean, moments([...xs]).mean, `${what} mean`);
      close(got.standardDeviation, moments([...xs]).sd, `${what} standardDeviation`);
    }
    close(rmse.max, 0, "RMSE max", 1e-9);
    close(r2.min, 1, "R2 min", 1e-9);
    assert.deepEqual((await call(TREND, "/statistics", { variable: "a" })).statistics, statistics);
  });

  it("a second variable's bands: b's slopes are -0.5 at the first level and -1 at the second", async () => {
    const { statistics } = await call(TREND, "/statistics", { variable: "b" });
    assert.equal(statistics.length, 4);
    const slope = statistics[0];
    assert.equal(slope.count, 12);
    close(slope.min, slopeB(1), "min");
    close(slope.max, slopeB(0), "max");
    close(slope.mean, -0.75, "mean");
    close(slope.standardDeviation, 0.25, "standardDeviation");
  });

  it("one histogram per band over the band's range: the values' bins worked by hand", async () => {
    assert.equal((await call(TREND, "")).hasHistograms, true);
    const { histograms } = await call(TREND, "/histograms", { variable: "a" });
    assert.equal(histograms.length, 4);
    const nonZero = (counts: number[]) => Object.fromEntries(counts.flatMap((c, i) => (c ? [[i, c]] : [])));
    // Slope over [1, 3], bins 2/256 wide: 1 → bin 0 (twice), 2 → bin 128, 3 → the last bin (twice).
    assert.deepEqual([histograms[0].min, histograms[0].max], [1, 3]);
    assert.deepEqual(nonZero(histograms[0].counts), { 0: 2, 128: 1, 255: 2 });
    // Intercept over [0, 12], bins 12/256 wide: 0 → 0, 2 → 42.7, 10 → 213.3, 11 → 234.7, 12 → the last.
    assert.deepEqual([histograms[1].min, histograms[1].max], [0, 12]);
    assert.deepEqual(nonZero(histograms[1].counts), { 0: 1, 42: 1, 213: 1, 234: 1, 255: 1 });
    for (const h of histograms)
      assert.equal(
        h.counts.reduce((p: number, q: number) => p + q, 0),
        5,
      );
  });
});

/**
 * Each capability's operations (ArcGIS's names), with parameters that make each answer; a
 * capability advertised but not in this table fails the test, so none is claimed untested.
 */
const OPERATIONS: Readonly<Record<string, Record<string, Record<string, string>>>> = {
  image: {
    "": {},
    exportImage: { bbox: "-180,-90,180,90", bboxSR: "4326", size: "90,45", format: "png" },
    identify: { geometry: '{"x":-150,"y":0,"spatialReference":{"wkid":4326}}', geometryType: "esriGeometryPoint" },
    getSamples: { geometry: '{"x":-150,"y":0,"spatialReference":{"wkid":4326}}', geometryType: "esriGeometryPoint" },
    computeStatisticsHistograms: {
      geometry: '{"xmin":-180,"ymin":-60,"xmax":180,"ymax":60,"spatialReference":{"wkid":4326}}',
      geometryType: "esriGeometryEnvelope",
    },
    statistics: {},
    histograms: {},
    keyProperties: {},
  },
  multidimensional: { multidimensionalInfo: {}, slices: {} },
};

describe("capabilities", () => {
  it("every advertised capability's operations answer", async () => {
    const root = await call(SAMPLE, "");
    const advertised = String(root.capabilities)
      .split(",")
      .map((c) => c.trim().toLowerCase());
    assert.ok(advertised.includes("image"));
    for (const capability of advertised) {
      const operations = OPERATIONS[capability];
      assert.ok(operations, `capability ${capability} is advertised but none of its operations is known to this test`);
      for (const [operation, params] of Object.entries(operations)) {
        const url = `${server.url}${SAMPLE}${operation ? `/${operation}` : ""}?${new URLSearchParams({ f: "json", ...params })}`;
        const response = await fetch(url);
        const body = (await response.json()) as { error?: unknown };
        assert.equal(response.status, 200, `${capability}: ${operation}`);
        assert.equal(body.error, undefined, `${capability}: ${operation} answered ${JSON.stringify(body.error)}`);
      }
    }
  });

  it("the operations of Catalog, Metadata, Mensuration and ArcGIS's Download do not exist, and are not advertised", async () => {
    const root = await call(SAMPLE, "");
    for (const capability of ["catalog", "metadata", "mensuration", "download"]) {
      assert.ok(!String(root.capabilities).toLowerCase().split(",").includes(capability), capability);
    }
    for (const operation of ["query", "info/metadata", "measure", "file"]) {
      // ArcGIS's envelope: an error's code is in the JSON (the HTTP status is 200 for f=json).
      const body = (await (await fetch(`${server.url}${SAMPLE}/${operation}?f=json`)).json()) as { error?: { code: number } };
      assert.equal(body.error?.code, 404, operation);
    }
  });
});
