/**
 * Every bad Subset request is a synchronous 400 that names the parameter and the reason,
 * creates no job and changes nothing in the raster store.
 */
import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer } from "../helpers/server.js";

const TASK = "SubsetMultidimensionalRaster";
let server: TestServer;
let token: string;
let share: string;

before(async () => {
  const base = await import("node:os").then((os) => os.tmpdir());
  share = join(base, `strata-share-${process.pid}`);
  await mkdir(share, { recursive: true });
  await writeFile(join(share, "notes.txt"), "not a raster");
  server = await startTestServer({ store: [`fileShare:climate=${share}`] });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
});
after(() => server.close());

const winds = () => JSON.stringify({ url: `${server.url}/rest/services/Hosted/navy_winds_10deg/ImageServer` });
const good = () => ({ inputMultidimensionalRaster: winds(), outputName: JSON.stringify({ serviceProperties: { name: "fresh_output" } }) });

type Case = [name: string, params: () => Record<string, string>, parameter: string, reason: RegExp];

const CASES: Case[] = [
  ["missing input", () => ({ outputName: "x_out" }), "inputMultidimensionalRaster", /required/],
  ["missing output name", () => ({ inputMultidimensionalRaster: winds() }), "outputName", /required/],
  ["malformed JSON", () => ({ ...good(), inputMultidimensionalRaster: '{"url": ' }), "inputMultidimensionalRaster", /not valid JSON/],
  ["input not an object", () => ({ ...good(), inputMultidimensionalRaster: "[1,2]" }), "inputMultidimensionalRaster", /JSON object/],
  [
    "unknown keyword",
    () => ({ ...good(), dimensionDefinition: "BY_MAGIC" }),
    "dimensionDefinition",
    /one of ALL, BY_VALUE, BY_RANGES, BY_ITERATION/,
  ],
  ["unknown variable", () => ({ ...good(), variables: "UWND,TEMP" }), "variables", /"TEMP" is not in the input/],
  ["variables of the wrong type", () => ({ ...good(), variables: '{"a":1}' }), "variables", /list of names/],
  [
    "unknown dimension",
    () => ({ ...good(), dimensionDefinition: "BY_RANGES", dimensionRanges: '[{"dimension":"StdZ","minValue":0,"maxValue":1}]' }),
    "dimensionRanges",
    /dimension "StdZ"/,
  ],
  [
    "nonexistent item",
    () => ({ ...good(), inputMultidimensionalRaster: '{"itemId":"0123456789abcdef0123456789abcdef"}' }),
    "inputMultidimensionalRaster",
    /no item/,
  ],
  [
    "nonexistent service url",
    () => ({
      ...good(),
      inputMultidimensionalRaster: JSON.stringify({ url: `${server.url}/rest/services/Hosted/nothing_here/ImageServer` }),
    }),
    "inputMultidimensionalRaster",
    /no hosted image service named nothing_here/,
  ],
  [
    "nonexistent uri",
    () => ({ ...good(), inputMultidimensionalRaster: '{"uri":"/fileShares/climate/missing.nc"}' }),
    "inputMultidimensionalRaster",
    /missing\.nc/,
  ],
  [
    "unregistered share",
    () => ({ ...good(), inputMultidimensionalRaster: '{"uri":"/fileShares/elsewhere/a.nc"}' }),
    "inputMultidimensionalRaster",
    /elsewhere/,
  ],
  [
    "traversal uri",
    () => ({ ...good(), inputMultidimensionalRaster: '{"uri":"/fileShares/climate/../../etc/passwd"}' }),
    "inputMultidimensionalRaster",
    /\.\./,
  ],
  [
    "encoded traversal uri",
    () => ({ ...good(), inputMultidimensionalRaster: '{"uri":"/fileShares/climate/%2e%2e/%2e%2e/etc/passwd"}' }),
    "inputMultidimensionalRaster",
    /escape|\.\./i,
  ],
  [
    "not a raster",
    () => ({ ...good(), inputMultidimensionalRaster: '{"uri":"/fileShares/climate/notes.txt"}' }),
    "inputMultidimensionalRaster",
    /not a format Strata reads/,
  ],
  [
    "foreign URL",
    () => ({ ...good(), inputMultidimensionalRaster: '{"url":"https://example.com/data.zarr"}' }),
    "inputMultidimensionalRaster",
    /allow-list/,
  ],
  ["taken name", () => ({ ...good(), outputName: '{"serviceProperties":{"name":"navy_winds_10deg"}}' }), "outputName", /already taken/],
  [
    "bad service name",
    () => ({ ...good(), outputName: '{"serviceProperties":{"name":"bad name!"}}' }),
    "outputName",
    /not a valid service name/,
  ],
  ["over-long service name", () => ({ ...good(), outputName: "x".repeat(121) }), "outputName", /at most 120/],
  [
    "empty selection",
    () => ({
      ...good(),
      dimensionDefinition: "BY_RANGES",
      dimensionRanges: '[{"dimension":"StdTime","minValue":"2050-01-01","maxValue":"2050-12-31"}]',
    }),
    "dimensionRanges",
    /keeps no slice of StdTime/,
  ],
  [
    "not a time",
    () => ({ ...good(), dimensionDefinition: "BY_VALUE", dimensionValues: '[{"dimension":"StdTime","value":"soon"}]' }),
    "dimensionValues",
    /not a time/,
  ],
  [
    "step of the wrong type",
    () => ({
      ...good(),
      dimensionDefinition: "BY_ITERATION",
      dimension: "StdTime",
      startOfFirstIteration: "1982-01-01",
      endOfFirstIteration: "1982-01-31",
      iterationStep: "abc",
      iterationUnit: "MONTHS",
    }),
    "iterationStep",
    /must be a number/,
  ],
  [
    "absurd iteration (millions of windows)",
    () => ({
      ...good(),
      dimensionDefinition: "BY_ITERATION",
      dimension: "StdTime",
      startOfFirstIteration: "1982-01-01",
      endOfFirstIteration: "1982-01-01",
      iterationStep: "0.001",
      iterationUnit: "HOURS",
    }),
    "iterationStep",
    /more than a million windows/,
  ],
  ["unknown wkid in context", () => ({ ...good(), context: '{"outSR":{"wkid":99999}}' }), "context", /wkid 99999/],
  [
    "extent outside the raster",
    () => ({ ...good(), context: '{"extent":{"xmin":0,"ymin":100,"xmax":10,"ymax":110,"spatialReference":{"wkid":4326}}}' }),
    "context",
    /does not overlap/,
  ],
];

async function snapshot() {
  const rasters = join(server.dataDir, "rasters");
  const pending = await readdir(join(rasters, ".pending"));
  const committed = (await readdir(rasters)).filter((n) => !n.startsWith("."));
  const jobs = (await server.strata.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM jobs"))!.n;
  const items = (await server.strata.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM items"))!.n;
  return { pending, committed: committed.sort(), jobs, items };
}

describe("bad Subset requests", () => {
  for (const [name, params, parameter, reason] of CASES) {
    it(`${name}: 400 naming ${parameter}, no job, store unchanged`, async () => {
      const before = await snapshot();
      const r = await server.call(`/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/submitJob`, params(), { token });
      assert.ok(r.error, `expected an error, got ${JSON.stringify(r)}`);
      assert.equal(r.error.code, 400, JSON.stringify(r.error));
      const details = r.error.details.join(" ");
      assert.ok(details.includes(parameter), `details name ${parameter}: ${details}`);
      assert.match(details, reason);
      assert.deepEqual(await snapshot(), before);
    });
  }

  it("a body over the size limit is a 400, not a framework error", async () => {
    const body = new URLSearchParams({ ...good(), variables: "v,".repeat(5_000_000), f: "json", token });
    const r = await fetch(`${server.tools}/${TASK}/submitJob`, { method: "POST", body });
    assert.equal(r.status, 200);
    const json = await r.json();
    assert.equal(json.error.code, 400);
  });

  it("f=html shows the same error as a page with the HTTP status", async () => {
    const r = await fetch(`${server.tools}/${TASK}/submitJob?f=html&token=${token}&outputName=x_y`);
    assert.equal(r.status, 400);
    const html = await r.text();
    assert.match(html, /inputMultidimensionalRaster is required/);
    assert.doesNotMatch(html, /at .*\.ts:\d+/, "no stack trace");
  });
});
