/**
 * A seeded, bounded fuzz of the whole HTTP surface (issue 10, "Also"): a few hundred
 * requests over every endpoint family, GET and POST (form, JSON, multipart), with valid
 * requests mutated (wrong types, huge and non-finite numbers, empty, unicode, long strings,
 * nested JSON, traversal in path segments), as anonymous, a publisher and the admin.
 * Asserts: no HTTP 5xx but 503 busy (with Retry-After), no envelope code 500, no server path,
 * no stack trace, and the server still answers. A failure prints the seed and the request.
 * Replay one seed with STRATA_FUZZ_SEED=<n>.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer } from "../helpers/server.js";

const SEED = Number(process.env.STRATA_FUZZ_SEED ?? 20261125);
const REQUESTS = 420;

let server: TestServer;
let publisher = "";
let admin = "";
let navyItem = "";
let jobId = "";

before(async () => {
  server = await startTestServer({});
  await server.addUser("fuzz", "publisher", "fuzz-password-1");
  publisher = await server.token("fuzz", "fuzz-password-1");
  admin = await server.token("admin", server.adminPassword);
  navyItem = (await server.call("/sharing/rest/search", { q: "navy_winds_10deg" }, { token: admin })).results[0].id;
  const job = await server.call(
    "/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster/submitJob",
    { inputMultidimensionalRaster: JSON.stringify({ itemId: navyItem }), outputName: "fuzz_subset" },
    { token: publisher },
  );
  jobId = job.jobId;
});
after(async () => {
  await server.close();
});

/** mulberry32: small, seedable, good enough to pick mutations. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const GP = "/rest/services/System/RasterAnalysisTools/GPServer";
const TASKS = ["SubsetMultidimensionalRaster", "GenerateMultidimensionalAnomaly", "GenerateTrendRaster", "PredictUsingTrendRaster"];
const IMAGE = "/rest/services/Hosted/navy_winds_10deg/ImageServer";

/** Odd values a parameter may be given. */
const ODD = [
  "",
  " ",
  "1e309",
  "-1e309",
  "NaN",
  "-0",
  "99999999999999999999999",
  "-5",
  "2.5",
  "true",
  "null",
  "[]",
  "{}",
  "[[[[[[[[[[1]]]]]]]]]]",
  '{"a":{"b":{"c":{"d":{"e":{}}}}}}',
  "x".repeat(5000),
  "é漢字🙂\u0000\u202e",
  "../../../../etc/passwd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "/fileShares/../../etc",
  "<script>alert(1)</script>",
  "0,0,0,0",
  "1,2",
  '{"xmin":"a"}',
  '{"itemId":"' + "0".repeat(32) + '"}',
  '{"url":"http://169.254.169.254/latest/meta-data"}',
  '{"uri":"/fileShares/nope/x.nc"}',
  '{"serviceProperties":{"name":"bad name!"}}',
  "1,2,3,4,5,6,7,8,9",
];

interface Case {
  method: "GET" | "POST";
  path: string;
  params: Record<string, string>;
  token?: string;
  body?: "form" | "json" | "multipart" | "raw";
}

/** Valid requests of every family, to be mutated. */
function baseCases(): Case[] {
  const item = navyItem;
  const cases: Case[] = [
    { method: "GET", path: "/rest/info", params: {} },
    { method: "GET", path: "/rest/services", params: {} },
    { method: "GET", path: "/rest/services/Hosted", params: {} },
    { method: "GET", path: GP, params: {} },
    { method: "POST", path: "/sharing/rest/generateToken", params: { username: "fuzz", password: "fuzz-password-1", client: "requestip" } },
    { method: "GET", path: "/sharing/rest/portals/self", params: {} },
    { method: "GET", path: "/sharing/rest/community/self", params: {} },
    { method: "GET", path: "/sharing/rest/community/users/fuzz", params: {} },
    { method: "GET", path: "/sharing/rest/search", params: { q: "navy", num: "10", start: "1" } },
    { method: "GET", path: `/sharing/rest/content/items/${item}`, params: {} },
    { method: "GET", path: "/sharing/rest/content/users/fuzz", params: {} },
    { method: "POST", path: "/sharing/rest/content/users/fuzz/createFolder", params: { title: "folder" } },
    { method: "POST", path: `/sharing/rest/content/users/admin/items/${item}/share`, params: { everyone: "true" } },
    { method: "POST", path: "/sharing/rest/content/users/fuzz/addItem", params: { filename: "x.nc", title: "x" }, body: "multipart" },
    { method: "POST", path: "/sharing/rest/content/users/fuzz/publish", params: { itemId: item, publishParameters: '{"name":"p"}' } },
    { method: "GET", path: IMAGE, params: {} },
    { method: "GET", path: `${IMAGE}/multidimensionalInfo`, params: {} },
    { method: "GET", path: `${IMAGE}/keyProperties`, params: {} },
    { method: "GET", path: `${IMAGE}/slices`, params: {} },
    {
      method: "GET",
      path: `${IMAGE}/exportImage`,
      params: { bbox: "-180,-90,180,90", size: "64,32", format: "png", time: "400000000000" },
    },
    { method: "GET", path: `${IMAGE}/identify`, params: { geometry: '{"x":10,"y":10}', geometryType: "esriGeometryPoint" } },
    { method: "GET", path: `${IMAGE}/getSamples`, params: { geometry: '{"x":10,"y":10}', geometryType: "esriGeometryPoint" } },
    { method: "GET", path: `${IMAGE}/computeStatisticsHistograms`, params: { geometry: '{"xmin":0,"ymin":0,"xmax":40,"ymax":40}' } },
    { method: "GET", path: `${IMAGE}/download`, params: { variables: "UWND", time: "400000000000" } },
    { method: "GET", path: `${IMAGE}/output/abc.png`, params: {} },
    { method: "GET", path: "/", params: {} },
    { method: "GET", path: "/assets/index.js", params: {} },
  ];
  for (const task of TASKS) {
    cases.push({ method: "GET", path: `${GP}/${task}`, params: {} });
    cases.push({ method: "GET", path: `${GP}/${task}/jobs`, params: { start: "1", num: "5" } });
    cases.push({
      method: "POST",
      path: `${GP}/${task}/submitJob`,
      params: {
        inputMultidimensionalRaster: JSON.stringify({ itemId: item }),
        outputName: `o_${task.length}`,
        variables: "UWND",
        dimension: "StdTime",
        method: "Z_SCORE",
        calculationInterval: "ALL",
        trendLineType: "LINEAR",
        dimensionValues: "2000-01-01",
        context: '{"extent":{"xmin":0,"ymin":0,"xmax":40,"ymax":40,"spatialReference":{"wkid":4326}}}',
      },
    });
    for (const tail of ["", "/results", "/results/outputMultidimensionalRaster", "/inputs", "/inputs/outputName", "/cancel"]) {
      cases.push({ method: "GET", path: `${GP}/${task}/jobs/${jobId}${tail}`, params: {} });
    }
  }
  return cases;
}

/** One mutation of a valid case. */
function mutate(c: Case, rnd: () => number): Case {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const params = { ...c.params };
  const keys = Object.keys(params);
  const out: Case = { ...c, params };
  switch (Math.floor(rnd() * 9)) {
    case 0: // an odd value for a parameter
    case 1:
      if (keys.length) params[pick(keys)] = pick(ODD);
      else params[pick(["f", "bbox", "q", "time"])] = pick(ODD);
      break;
    case 2: // an odd value for every parameter
      for (const k of keys) params[k] = pick(ODD);
      break;
    case 3: // parameters left out
      for (const k of keys) if (rnd() < 0.5) delete params[k];
      break;
    case 4: // a path segment replaced
      out.path = c.path
        .split("/")
        .map((s, i) => (i > 1 && rnd() < 0.3 ? encodeURIComponent(pick(ODD)).slice(0, 200) || "x" : s))
        .join("/");
      break;
    case 5: // another body type
      out.method = "POST";
      out.body = pick(["json", "multipart", "raw"] as const);
      break;
    case 6: // f in odd forms
      params.f = pick(["pjson", "html", "image", "kmz", "JSON", "", "x".repeat(300)]);
      break;
    case 7: // a parameter twice, in another case
      if (keys.length) params[pick(keys).toUpperCase()] = pick(ODD);
      break;
    default: // unknown parameters
      params[pick(ODD).slice(0, 40) || "k"] = pick(ODD);
  }
  out.token = pick([undefined, publisher, admin, "not-a-token", ""]);
  return out;
}

async function send(c: Case): Promise<Response> {
  const params = { f: "json", ...c.params, ...(c.token !== undefined ? { token: c.token } : {}) };
  const url = `${server.url}${c.path}`;
  if (c.method === "GET") return fetch(`${url}?${new URLSearchParams(params)}`);
  switch (c.body) {
    case "json":
      return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) });
    case "raw":
      return fetch(url, { method: "POST", headers: { "content-type": "application/octet-stream" }, body: "\u0000\u00ff garbage" });
    case "multipart": {
      const form = new FormData();
      for (const [k, v] of Object.entries(params)) form.set(k, v);
      form.set("file", new Blob([NAVY_HEAD]), "x.nc");
      return fetch(url, { method: "POST", body: form });
    }
    default:
      return fetch(url, { method: "POST", body: new URLSearchParams(params) });
  }
}

/** The start of a real NetCDF file: an upload that is cut short. */
let NAVY_HEAD = new Uint8Array(0);

/** What no answer may hold: the server's directories, source files, stack frames. */
function leaks(text: string): string | undefined {
  // Echoing what the client sent (a "../../etc/passwd" it gave) is fine; the file's content is not.
  const places = [server.dataDir, tmpdir(), process.cwd(), "/work/", "/home/", "node_modules"];
  for (const p of places) if (p && text.includes(p)) return `a server path (${p})`;
  if (text.includes("root:x:0:0")) return "a file of the server";
  if (/\.ts:\d+/.test(text) || /\n\s+at .+\(/.test(text) || /\bat (async )?[\w.<>]+ \(/.test(text)) return "a stack trace";
  return undefined;
}

describe("fuzz", () => {
  it(`${REQUESTS} mutated requests (seed ${SEED}): no 5xx but busy, no envelope 500, no server path, no stack trace`, async () => {
    NAVY_HEAD = new Uint8Array(await readFile(new URL("../../samples/navy_winds_10deg.nc", import.meta.url))).subarray(0, 600);
    const rnd = random(SEED);
    const cases = baseCases();
    const failures: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const c = mutate(cases[Math.floor(rnd() * cases.length)], rnd);
      const r = await send(c);
      const body = Buffer.from(await r.arrayBuffer()).toString("latin1");
      const what = `#${i} ${c.method} ${c.path} ${JSON.stringify(c.params).slice(0, 300)} body=${c.body ?? "form"} -> ${r.status} ${body.slice(0, 300)}`;
      if (r.status >= 500 && !(r.status === 503 && r.headers.get("retry-after"))) failures.push(`HTTP ${r.status}: ${what}`);
      if (/"code"\s*:\s*500\b/.test(body)) failures.push(`envelope 500: ${what}`);
      const leak = leaks(body);
      if (leak) failures.push(`${leak}: ${what}`);
    }
    const info = await fetch(`${server.url}/rest/info?f=json`);
    assert.equal(info.status, 200, "the server still answers");
    assert.deepEqual(failures, [], `seed ${SEED}:\n${failures.join("\n")}`);
  });
});
