/**
 * A seeded, bounded fuzz of the whole HTTP surface (issue 10, "Also").
 *
 * First every path segment of every endpoint family is replaced once by a traversal or odd
 * segment (sent as raw bytes: no URL normalisation between us and the server); then valid
 * requests of every family are mutated at random: wrong types, huge and non-finite numbers,
 * empty, unicode, very long strings, deeply nested JSON, duplicated parameters, malformed
 * encodings, GET and POST (form, JSON, multipart), malformed multipart bodies and hostile
 * files, as anonymous, a user, a publisher, the admin and with bad tokens (in the parameters
 * or in the Authorization headers). Then the jobs the fuzz created are read back.
 *
 * Asserted of every answer: no HTTP 5xx but 503 busy with Retry-After, no envelope code 500,
 * no server path (data dir, /tmp, /work, /home, node_modules, .ts file names), no stack trace,
 * no secret or server file, an answer within 30 s; at the end the server still answers
 * rest/info and no upload scratch file is left. A failure lists the seed and each request.
 * Replay with STRATA_FUZZ_SEED=<n> (and STRATA_FUZZ_REQUESTS=<n> for a longer run).
 */
import assert from "node:assert/strict";
import { Agent, request as httpRequest } from "node:http";
import { readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { zipSync } from "fflate";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const SEED = Number(process.env.STRATA_FUZZ_SEED ?? 20261125);
const REQUESTS = Number(process.env.STRATA_FUZZ_REQUESTS ?? 400);
const ANSWER_WITHIN_MS = 30_000;

const SAMPLES = fileURLToPath(new URL("../../samples/", import.meta.url));
const WEB_DIST = fileURLToPath(new URL("../../web/dist/", import.meta.url));
const GP = "/rest/services/System/RasterAnalysisTools/GPServer";
const TASKS = ["SubsetMultidimensionalRaster", "GenerateMultidimensionalAnomaly", "GenerateTrendRaster", "PredictUsingTrendRaster"];
const HOSTED = "/rest/services/Hosted";

/** Who sends a request. */
type Who = "anonymous" | "user" | "publisher" | "admin" | "bad" | "empty" | "expired-looking";
/** A parameter's value: text, or in JSON bodies a JSON literal of any type. */
type Value = string | { readonly json: string };

interface Req {
  readonly method: "GET" | "POST";
  /** Under the base path, sent byte for byte (`..`, `%2f` and `%00` reach the server). */
  readonly path: string;
  readonly params: readonly (readonly [string, Value])[];
  readonly body: "form" | "json" | "multipart";
  /** The file part of a multipart body. */
  readonly file?: { readonly name: string; readonly bytes: Uint8Array };
  /** A crafted body sent as is (parameters then go in the query string). */
  readonly raw?: { readonly what: string; readonly contentType?: string; readonly bytes: Buffer };
  /** Appended to the query string as is (malformed percent-encodings). */
  readonly rawQuery?: string;
  readonly who: Who;
  readonly tokenIn: "param" | "bearer" | "esri";
  readonly headers?: Readonly<Record<string, string>>;
  /** Values sent earlier that this answer may echo (a job's inputs echo its submit's). */
  readonly echoes?: readonly string[];
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

let server: TestServer;
const tokens: Partial<Record<Who, string>> = {};
const ids = { navy: "", sst: "", own: "", spare: "", folder: "", jobs: {} as Record<string, string>, trendItem: "", asset: "index.js" };
let navyBytes = new Uint8Array(0);
let sstBytes = new Uint8Array(0);
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

before(async () => {
  server = await startTestServer({ store: [`fileShare:demo=${SAMPLES}`] });
  await server.addUser("fuzz", "publisher", "fuzz-password-1");
  await server.addUser("reader", "user", "reader-password-1");
  tokens.publisher = await server.token("fuzz", "fuzz-password-1");
  tokens.user = await server.token("reader", "reader-password-1");
  tokens.admin = await server.token("admin", server.adminPassword);
  tokens.bad = "not-a-token";
  tokens.empty = "";
  tokens["expired-looking"] = "a".repeat(64);
  navyBytes = new Uint8Array(await readFile(join(SAMPLES, "navy_winds_10deg.nc")));
  sstBytes = new Uint8Array(await readFile(join(SAMPLES, "sst_climatology_4deg.nc")));
  const search = async (q: string) => (await server.call("/sharing/rest/search", { q }, { token: tokens.admin })).results[0].id as string;
  ids.navy = await search("navy_winds_10deg");
  ids.sst = await search("sst_climatology_4deg");
  const folder = await server.call("/sharing/rest/content/users/fuzz/createFolder", { title: "fuzzed" }, { token: tokens.publisher });
  ids.folder = folder.folder.id;
  const upload = async (title: string): Promise<string> => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ f: "json", token: tokens.publisher!, title, filename: "sst.nc" })) form.set(k, v);
    form.set("file", new Blob([sstBytes]), "sst.nc");
    const r = await (await fetch(`${server.url}/sharing/rest/content/users/fuzz/addItem`, { method: "POST", body: form })).json();
    assert.ok(r.id, JSON.stringify(r));
    return r.id;
  };
  ids.own = await upload("fuzz own");
  ids.spare = await upload("fuzz spare");
  const trend = await server.call(
    `${GP}/GenerateTrendRaster/submitJob`,
    {
      inputMultidimensionalRaster: JSON.stringify({ itemId: ids.navy }),
      outputName: "fuzz_trend",
      dimension: "StdTime",
      variables: "UWND",
    },
    { token: tokens.publisher },
  );
  ids.jobs.GenerateTrendRaster = trend.jobId;
  const done = await waitForJob(server, "GenerateTrendRaster", trend.jobId, tokens.publisher!);
  assert.equal(done.jobStatus, "esriJobSucceeded", JSON.stringify(done));
  const result = await server.call(
    `${GP}/GenerateTrendRaster/jobs/${trend.jobId}/results/outputMultidimensionalRaster`,
    {},
    {
      token: tokens.publisher,
      method: "GET",
    },
  );
  ids.trendItem = result.value.itemId;
  // A job of each task to read, cancel and ask results of (these run while the fuzz does).
  for (const [task, params] of [
    ["SubsetMultidimensionalRaster", { inputMultidimensionalRaster: JSON.stringify({ itemId: ids.navy }), outputName: "fuzz_subset" }],
    ["GenerateMultidimensionalAnomaly", { inputMultidimensionalRaster: JSON.stringify({ itemId: ids.own }), outputName: "fuzz_anomaly" }],
    [
      "PredictUsingTrendRaster",
      { inputMultidimensionalRaster: JSON.stringify({ itemId: ids.trendItem }), outputName: "fuzz_predict", dimensionValues: "2000-01-01" },
    ],
  ] as const) {
    const job = await server.call(`${GP}/${task}/submitJob`, params, { token: tokens.publisher });
    assert.ok(job.jobId, JSON.stringify(job));
    ids.jobs[task] = job.jobId;
  }
  ids.asset = (await readdir(join(WEB_DIST, "assets")).catch(() => [] as string[])).find((f) => f.endsWith(".js")) ?? "index.js";
});
after(async () => {
  agent.destroy();
  await server?.close();
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

const DEEP = "[".repeat(20_000) + "]".repeat(20_000);

/** Odd values a parameter may be given. */
const ODD: readonly string[] = [
  "",
  " ",
  "0",
  "-1",
  "2.5",
  "1e309",
  "-1e309",
  "1e-400",
  "NaN",
  "Infinity",
  "-0",
  "0x10",
  "99999999999999999999999",
  "9007199254740993",
  "true",
  "null",
  "undefined",
  "[]",
  "{}",
  "[null]",
  '[""]',
  ",,,",
  "[[[[[[[[[[1]]]]]]]]]]",
  '{"a":{"b":{"c":{"d":{"e":{"f":{"g":{}}}}}}}}',
  DEEP,
  '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}',
  "x".repeat(5000),
  "y".repeat(100_000),
  "é漢字🙂\u0000\u202e\ufeff",
  "\r\nSet-Cookie: x=1",
  "'; DROP TABLE items; --",
  "%_*\\",
  "${7*7}{{7*7}}",
  "<script>alert(1)</script>",
  "../../../../etc/passwd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "/etc/passwd",
  "file:///etc/passwd",
  "0,0,0,0",
  "1,2",
  "-180,-90,180,90",
  "1,2,3,4,5,6,7,8,9",
  "4100,15000",
  "0,0",
  "-5,-5",
  "102100",
  "999999",
  '{"wkt":"GARBAGE"}',
  "+proj=garbage",
  '{"xmin":"a"}',
  '{"x":1e309,"y":"NaN"}',
  '{"paths":[[[0,0]]],"spatialReference":{"wkid":4326}}',
  '{"rings":[[[0,0],[1,1]]]}',
  '{"points":[]}',
  "2050-01-01T00:00:00",
  "0001-01-01",
  "275760-09-13T00:00:00Z",
  "-8640000000000001",
  "null,1",
  "January",
  "BY_VALUE",
  "BY_ITERATION",
  "BY_INTERVAL",
  "EXTERNAL_RASTER",
  "SEASONAL-KENDALL",
  "HARMONIC",
  "POLYNOMIAL",
  "MONTHS",
  '[{"dimension":"StdTime","value":"x"}]',
  '[{"dimension":"StdTime","minValue":"1990","maxValue":"1980"}]',
  '[{"rasterFunction":"Stretch","rasterFunctionArguments":{"StretchType":99}}]',
  '{"rasterFunction":"Colormap","rasterFunctionArguments":{"colorRamp":"nope"}}',
  '{"multidimensionalDefinition":[{"variableName":"nope","dimensionName":"StdTime","values":[[1e309,-1e309]]}]}',
  '{"itemId":"' + "0".repeat(32) + '"}',
  '{"itemId":["a"]}',
  '{"url":"http://169.254.169.254/latest/meta-data"}',
  '{"url":"file:///etc/passwd"}',
  '{"url":"http://127.0.0.1:1/x.zarr"}',
  '{"uri":"/fileShares/nope/x.nc"}',
  '{"uri":"/fileShares/demo/../../../etc/passwd"}',
  '{"uri":"/fileShares/demo/%2e%2e/%2e%2e/etc/passwd"}',
  '{"uri":"/fileShares/demo/"}',
  '{"uri":"/fileShares/demo/navy_winds_10deg.nc"}',
  '{"uri":"/tmp/x.nc"}',
  '{"uri":"/cloudStores/nope/x.zarr"}',
  '{"folderId":"nope"}',
  '{"serviceProperties":{"name":"bad name!"}}',
  '{"serviceProperties":{"name":"navy_winds_10deg"}}',
  '{"itemId":"' + "f".repeat(32) + '"}',
];

/** Odd path segments, already percent-encoded where they need to be. */
const SEGMENTS: readonly string[] = [
  "..",
  ".",
  "%2e%2e",
  "%2E%2E%2F%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
  "..%2f..%2f..%2f..%2fetc%2fpasswd",
  "..%5c..%5c..%5cwindows%5cwin.ini",
  "%252e%252e%252fetc%252fpasswd",
  "....%2f%2f....%2f%2fetc",
  "%c0%ae%c0%ae%c0%af",
  "%00",
  "x%00.png",
  "%ff%fe",
  "%",
  "~root",
  "x".repeat(400),
  "%F0%9F%99%82%E2%80%AE",
  "..%2f..%2fmetadata.db",
  "%2fetc%2fpasswd",
  "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
  "__proto__",
  "constructor",
  "*",
  "%20",
];

/** Files an upload may carry. */
let filesMade: readonly { name: string; bytes: Uint8Array }[] | undefined;
function files(): readonly { name: string; bytes: Uint8Array }[] {
  filesMade ??= makeFiles();
  return filesMade;
}
function makeFiles(): readonly { name: string; bytes: Uint8Array }[] {
  const enc = new TextEncoder();
  const hdf5Junk = new Uint8Array(4096);
  hdf5Junk.set([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);
  hdf5Junk.fill(0xab, 8);
  const tiffJunk = new Uint8Array(2048).fill(0xcd);
  tiffJunk.set([0x49, 0x49, 0x2a, 0x00, 0xff, 0xff, 0xff, 0x7f]);
  return [
    { name: "cut.nc", bytes: navyBytes.subarray(0, 600) },
    { name: "cut.nc", bytes: navyBytes.subarray(0, navyBytes.length - 1000) },
    { name: "junk.nc", bytes: hdf5Junk },
    { name: "junk.tif", bytes: tiffJunk },
    { name: "empty.nc", bytes: new Uint8Array(0) },
    { name: "text.zip", bytes: enc.encode("PK\u0003\u0004 not a zip") },
    { name: "escape.zip", bytes: zipSync({ "../../escape.txt": enc.encode("x"), "store/zarr.json": enc.encode("{}") }) },
    {
      name: "garbage.zip",
      bytes: zipSync({
        "a/zarr.json": enc.encode('{"zarr_format":3,"node_type":"array","shape":[1e309],"data_type":"nope"}'),
        "a/.zgroup": enc.encode("{"),
      }),
    },
    { name: "../../../../tmp/evil.nc", bytes: sstBytes },
    { name: "x".repeat(300) + ".nc", bytes: navyBytes.subarray(0, 100) },
    { name: "sst.nc", bytes: sstBytes },
  ];
}

/** Crafted bodies: malformed multipart and other bodies that cannot be read. */
let rawMade: readonly NonNullable<Req["raw"]>[] | undefined;
function rawBodies(): readonly NonNullable<Req["raw"]>[] {
  rawMade ??= makeRawBodies();
  return rawMade;
}
function makeRawBodies(): readonly NonNullable<Req["raw"]>[] {
  const b = (s: string) => Buffer.from(s, "latin1");
  const part = (name: string, value: string, boundary = "XyZ") =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const filePart = (filename: string, content: string, boundary = "XyZ") =>
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/x-netcdf\r\n\r\n${content}\r\n`;
  const head = Buffer.from(navyBytes.subarray(0, 400)).toString("latin1");
  const mp = "multipart/form-data; boundary=XyZ";
  return [
    { what: "multipart without a boundary", contentType: "multipart/form-data", bytes: b(part("f", "json") + "--XyZ--\r\n") },
    { what: "multipart truncated", contentType: mp, bytes: b(part("f", "json") + filePart("x.nc", head).slice(0, 200)) },
    { what: "multipart truncated in a file", contentType: mp, bytes: b(part("f", "json") + filePart("x.nc", head).slice(0, -40)) },
    { what: "multipart with another boundary", contentType: mp, bytes: b(part("f", "json", "Other") + "--Other--\r\n") },
    { what: "multipart part without headers", contentType: mp, bytes: b("--XyZ\r\n\r\nvalue\r\n--XyZ--\r\n") },
    {
      what: "multipart part without a name",
      contentType: mp,
      bytes: b('--XyZ\r\nContent-Disposition: form-data; filename="x.nc"\r\n\r\nabc\r\n--XyZ--\r\n'),
    },
    {
      what: "multipart traversal filename",
      contentType: mp,
      bytes: b(part("f", "json") + filePart("../../../../etc/passwd", head) + "--XyZ--\r\n"),
    },
    { what: "multipart NUL filename", contentType: mp, bytes: b(part("f", "json") + filePart("a\u0000b.nc", head) + "--XyZ--\r\n") },
    {
      what: "multipart two files",
      contentType: mp,
      bytes: b(part("f", "json") + filePart("a.nc", head) + filePart("b.nc", head) + "--XyZ--\r\n"),
    },
    {
      what: "multipart 1200 fields",
      contentType: mp,
      bytes: b(Array.from({ length: 1200 }, (_, i) => part(`k${i}`, "v")).join("") + "--XyZ--\r\n"),
    },
    {
      what: "multipart field over 8 MB",
      contentType: mp,
      bytes: b(part("f", "json") + part("title", "t".repeat(8.5 * 1024 * 1024)) + "--XyZ--\r\n"),
    },
    {
      what: "multipart 300-character boundary",
      contentType: `multipart/form-data; boundary=${"B".repeat(300)}`,
      bytes: b(part("f", "json", "B".repeat(300)) + `--${"B".repeat(300)}--\r\n`),
    },
    { what: "multipart empty boundary", contentType: 'multipart/form-data; boundary=""', bytes: b(part("f", "json", "") + "----\r\n") },
    { what: "multipart empty body", contentType: mp, bytes: b("") },
    { what: "multipart/mixed", contentType: "multipart/mixed; boundary=XyZ", bytes: b(part("f", "json") + "--XyZ--\r\n") },
    {
      what: "multipart nested",
      contentType: mp,
      bytes: b(
        '--XyZ\r\nContent-Disposition: form-data; name="file"\r\nContent-Type: multipart/mixed; boundary=In\r\n\r\n--In\r\n\r\nx\r\n--In--\r\n\r\n--XyZ--\r\n',
      ),
    },
    {
      what: "multipart header injection",
      contentType: mp,
      bytes: b('--XyZ\r\nContent-Disposition: form-data; name="f\r\nX: y"\r\n\r\njson\r\n--XyZ--\r\n'),
    },
    { what: "JSON cut short", contentType: "application/json", bytes: b('{"f":"json","a":') },
    { what: "JSON array", contentType: "application/json", bytes: b("[1,2,3]") },
    { what: "JSON null", contentType: "application/json", bytes: b("null") },
    { what: "JSON string", contentType: "application/json", bytes: b('"f=json"') },
    { what: "JSON nested 50000 deep", contentType: "application/json", bytes: b('{"f":' + "[".repeat(50_000) + "]".repeat(50_000) + "}") },
    {
      what: "JSON with __proto__",
      contentType: "application/json",
      bytes: b('{"f":"json","__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'),
    },
    {
      what: "form with broken escapes",
      contentType: "application/x-www-form-urlencoded",
      bytes: b("f=json&%%%&&&===&a=%FF%FE&b=%zz&token=%"),
    },
    { what: "form, latin1 bytes", contentType: "application/x-www-form-urlencoded; charset=latin1", bytes: b("f=json&title=\u00e9\u00ff") },
    { what: "text/plain", contentType: "text/plain", bytes: b("f=json") },
    { what: "no content type", bytes: b("f=json&q=x") },
    { what: "octet-stream garbage", contentType: "application/octet-stream", bytes: Buffer.from([0, 0xff, 0xfe, 0x89, 0x48, 0x44, 0x46]) },
    { what: "body over 8 MB", contentType: "application/x-www-form-urlencoded", bytes: b("f=json&q=" + "q".repeat(8.5 * 1024 * 1024)) },
  ];
}

const get = (path: string, params: Record<string, string> = {}): Req => req("GET", path, params);
const post = (path: string, params: Record<string, string> = {}, body: Req["body"] = "form"): Req => req("POST", path, params, body);
function req(method: Req["method"], path: string, params: Record<string, string>, body: Req["body"] = "form"): Req {
  return { method, path, params: Object.entries(params), body, who: "publisher", tokenIn: "param" };
}

/** Valid requests of every family, to be mutated. */
function baseCases(): Req[] {
  const { navy, sst, own, spare, folder, jobs, trendItem } = ids;
  const item = (id: string) => JSON.stringify({ itemId: id });
  const extent = '{"extent":{"xmin":0,"ymin":0,"xmax":40,"ymax":40,"spatialReference":{"wkid":4326}},"cellSize":10}';
  const cases: Req[] = [
    get("/rest/info"),
    get("/rest/services"),
    get("/rest/services/Hosted"),
    get("/rest/services/System"),
    get("/sharing/rest"),
    get("/sharing/rest/info"),
    post("/sharing/rest/generateToken", { username: "fuzz", password: "fuzz-password-1", client: "requestip", expiration: "60" }),
    post("/sharing/rest/generateToken", { username: "fuzz", password: "wrong", client: "referer", referer: "http://x" }),
    get("/sharing/rest/generateToken", { username: "admin", password: "guess", client: "requestip" }),
    post("/sharing/rest/generateToken", { token: "", serverUrl: "http://127.0.0.1/arcgis/rest/services" }),
    get("/sharing/rest/generateToken/form"),
    get("/sharing/rest/portals/self"),
    get("/sharing/rest/portals/self/isServiceNameAvailable", { name: "x", type: "Image Service" }),
    get("/sharing/rest/community/self"),
    get("/sharing/rest/community/users/fuzz"),
    get("/sharing/rest/community/users/admin"),
    get("/sharing/rest/search", { q: "navy", num: "10", start: "1", sortField: "title" }),
    get(`/sharing/rest/content/items/${navy}`),
    get(`/sharing/rest/content/items/${own}`),
    get(`/sharing/rest/content/items/${sst}`),
    get(`/sharing/rest/content/items/${own}/data`),
    get("/sharing/rest/content/users/fuzz"),
    get(`/sharing/rest/content/users/fuzz/${folder}`),
    get("/sharing/rest/content/users/admin"),
    post("/sharing/rest/content/users/fuzz/createFolder", { title: "folder" }),
    post(`/sharing/rest/content/users/fuzz/folders/${folder}/delete`),
    post(`/sharing/rest/content/users/fuzz/items/${own}/share`, { everyone: "true", org: "false", groups: "" }),
    post(`/sharing/rest/content/users/fuzz/items/${own}/update`, { title: "renamed", tags: "a,b" }),
    post(`/sharing/rest/content/users/fuzz/items/${spare}/delete`),
    post(`/sharing/rest/content/users/fuzz/${folder}/items/${spare}/delete`),
    post(`/sharing/rest/content/users/admin/items/${spare}/delete`),
    post("/sharing/rest/content/users/fuzz/createService", { createParameters: '{"name":"fuzz_empty"}', outputType: "imageService" }),
    post(`/sharing/rest/content/users/fuzz/${folder}/createService`, {
      createParameters: '{"name":"fuzz_in_folder","capabilities":"Image, Metadata"}',
      outputType: "imageService",
      isView: "false",
      tags: "a,b",
    }),
    get("/sharing/rest/portals/strata/isServiceNameAvailable", { name: "fuzz_empty", type: "imageService" }),
    { ...post("/sharing/rest/content/users/fuzz/addItem", { filename: "cut.nc", title: "x", tags: "t" }, "multipart"), file: files()[0] },
    { ...post(`/sharing/rest/content/users/fuzz/${folder}/addItem`, { title: "y" }, "multipart"), file: files()[2] },
    post("/sharing/rest/content/users/fuzz/publish", { itemId: own, publishParameters: '{"name":"fuzz_published"}', fileType: "netCDF" }),
    get(GP),
    get(`${GP}/${TASKS[0]}/jobs/j${"0".repeat(32)}`),
    get(`${GP}/${TASKS[1]}/jobs/${"x".repeat(300)}/results/outputMultidimensionalRaster`),
    post(`${GP}/${TASKS[2]}/jobs/%2e%2e/cancel`),
    get(`${GP}/NoSuchTask/jobs`),
    get("/", {}),
    get("/index.html"),
    get(`/assets/${ids.asset}`),
    get("/assets/..%2f..%2f..%2fpackage.json"),
    get("/favicon.ico"),
  ];
  const taskParams: Record<string, Record<string, string>> = {
    SubsetMultidimensionalRaster: {
      inputMultidimensionalRaster: item(navy),
      outputName: JSON.stringify({ serviceProperties: { name: "fz_subset" }, itemProperties: { title: "t", folderId: folder } }),
      variables: "UWND",
      dimensionDefinition: "BY_RANGES",
      dimensionRanges: '[{"dimension":"StdTime","minValue":"1990-01-01","maxValue":"1990-12-31"}]',
      context: extent,
    },
    GenerateMultidimensionalAnomaly: {
      inputMultidimensionalRaster: '{"uri":"/fileShares/demo/sst_climatology_4deg.nc"}',
      outputName: "fz_anomaly",
      variables: '["sst"]',
      method: "Z_SCORE",
      calculationInterval: "RECURRING_MONTHLY",
      ignoreNodata: "true",
    },
    GenerateTrendRaster: {
      inputMultidimensionalRaster: item(navy),
      outputName: "fz_trend",
      dimension: "StdTime",
      variables: "UWND,VWND",
      trendLineType: "HARMONIC",
      frequency: "2",
      cycleLength: "1",
      cycleUnit: "YEARS",
      rmse: "true",
      r2: "true",
      slopePValue: "true",
    },
    PredictUsingTrendRaster: {
      inputMultidimensionalRaster: item(trendItem),
      outputName: "fz_predict",
      dimensionDefinition: "BY_INTERVAL",
      start: "2000-01-01",
      end: "2000-12-01",
      intervalValue: "1",
      intervalUnit: "MONTHS",
      context: '{"outSR":3857,"parallelProcessingFactor":"50%"}',
    },
  };
  for (const task of TASKS) {
    cases.push(get(`${GP}/${task}`));
    cases.push(get(`${GP}/${task}/jobs`, { start: "1", num: "5" }));
    cases.push(post(`${GP}/${task}/submitJob`, taskParams[task]));
    cases.push(get(`${GP}/${task}`, taskParams[task]));
    for (const tail of [
      "",
      "/results",
      "/results/outputMultidimensionalRaster",
      "/results/result",
      "/inputs",
      "/inputs/outputName",
      "/cancel",
    ]) {
      cases.push(get(`${GP}/${task}/jobs/${jobs[task]}${tail}`, tail === "" ? { returnMessages: "true" } : {}));
    }
  }
  const point = '{"x":10,"y":10,"spatialReference":{"wkid":4326}}';
  const envelope = '{"xmin":0,"ymin":0,"xmax":40,"ymax":40,"spatialReference":{"wkid":4326}}';
  const image = (service: string) => `${HOSTED}/${service}/ImageServer`;
  const queries = (service: string): Req[] => [
    get(`${image(service)}/exportImage`, {
      bbox: "-180,-90,180,90",
      bboxSR: "4326",
      imageSR: "3857",
      size: "64,32",
      format: "png",
      time: "400000000000",
      interpolation: "RSP_BilinearInterpolation",
      renderingRule: '{"rasterFunction":"Stretch","rasterFunctionArguments":{"StretchType":5}}',
    }),
    get(`${image(service)}/exportImage`, {
      bbox: envelope,
      size: "32,32",
      format: "tiff",
      pixelType: "F32",
      noData: "0",
      mosaicRule: '{"multidimensionalDefinition":[{"variableName":"UWND","dimensionName":"StdTime","values":[[0,1e13]]}]}',
      f: "image",
    }),
    get(`${image(service)}/identify`, { geometry: point, geometryType: "esriGeometryPoint", processAsMultidimensional: "true" }),
    get(`${image(service)}/getSamples`, {
      geometry: '{"paths":[[[0,0],[40,40]]],"spatialReference":{"wkid":4326}}',
      geometryType: "esriGeometryPolyline",
      sampleCount: "5",
      sliceId: "3",
    }),
    get(`${image(service)}/computeStatisticsHistograms`, { geometry: envelope, geometryType: "esriGeometryEnvelope" }),
    get(`${image(service)}/download`, { format: "netcdf", variables: "UWND", time: "400000000000,500000000000" }),
  ];
  for (const service of ["navy_winds_10deg", "fuzz_trend"]) {
    cases.push(
      get(image(service)),
      get(`${image(service)}/multidimensionalInfo`, { returnDimensionValues: "ifIrregular" }),
      get(`${image(service)}/keyProperties`),
      get(`${image(service)}/slices`),
      ...queries(service),
      ...queries(service),
    );
  }
  cases.push(
    ...queries("sst_climatology_4deg"),
    get(image("no_such_service")),
    get(`${image("no_such_service")}/exportImage`, { bbox: "0,0,1,1", size: "8,8" }),
    get(`${image("navy_winds_10deg")}/output/${"a".repeat(40)}.png`),
    // In SPEC §11 but not served (yet): 404s, never 500s.
    get(`${image("navy_winds_10deg")}/legend`, { bandIds: "0" }),
    get(`${image("navy_winds_10deg")}/statistics`),
    get(`${image("navy_winds_10deg")}/tile/0/0/0`, { sliceId: "0" }),
  );
  return cases;
}

const pick = <T>(xs: readonly T[], rnd: () => number): T => xs[Math.floor(rnd() * xs.length)];
const WHO: readonly Who[] = [
  "anonymous",
  "anonymous",
  "user",
  "publisher",
  "publisher",
  "publisher",
  "admin",
  "admin",
  "bad",
  "empty",
  "expired-looking",
];

/** One or two mutations of a valid request. */
function mutate(c: Req, rnd: () => number): Req {
  let out: Req = { ...c, who: pick(WHO, rnd), tokenIn: pick(["param", "param", "bearer", "esri"] as const, rnd) };
  const rounds = rnd() < 0.3 ? 2 : 1;
  for (let i = 0; i < rounds; i++) out = mutateOnce(out, rnd);
  return out;
}

function mutateOnce(c: Req, rnd: () => number): Req {
  const params = [...c.params];
  const keys = params.map(([k]) => k);
  const someKey = () => (keys.length ? pick(keys, rnd) : pick(["f", "q", "bbox", "geometry", "time", "itemId"], rnd));
  const set = (k: string, v: Value) => {
    const i = params.findIndex(([key]) => key === k);
    if (i >= 0) params[i] = [k, v];
    else params.push([k, v]);
  };
  switch (Math.floor(rnd() * 13)) {
    case 0: // an odd value for a parameter
    case 1:
    case 2:
      set(someKey(), pick(ODD, rnd));
      return { ...c, params };
    case 3: // an odd value for every parameter
      return { ...c, params: params.map(([k]) => [k, pick(ODD, rnd)] as const) };
    case 4: // parameters left out
      return { ...c, params: params.filter(() => rnd() < 0.5) };
    case 5: // a parameter twice, or in another case
      params.push([rnd() < 0.5 ? someKey() : someKey().toUpperCase(), pick(ODD, rnd)]);
      return { ...c, params };
    case 6: {
      // values of other JSON types, in a JSON body
      const literal = pick(
        ["1e400", "-1e400", "true", "null", "[]", "{}", "[1,[2,[3]]]", '{"x":{"y":[]}}', "12345678901234567890", DEEP, '"\\u0000"'],
        rnd,
      );
      set(someKey(), { json: literal });
      return { ...c, method: "POST", body: "json", params };
    }
    case 7: // another way to send it
      return rnd() < 0.3 ? { ...c, method: "GET" } : { ...c, method: "POST", body: pick(["form", "json", "multipart"] as const, rnd) };
    case 8: // f in odd forms
      set("f", pick(["pjson", "html", "image", "kmz", "JSON", "", "x".repeat(300), "json,html"], rnd));
      return { ...c, params };
    case 9: // unknown parameters, broken escapes in the query
      params.push([pick(ODD, rnd).slice(0, 40) || "k", pick(ODD, rnd)]);
      return { ...c, params, rawQuery: pick(["%", "%zz=1", "a=%FF%FE", "&&==&", "%00=%00", "__proto__[x]=1", "a[b][c]=1"], rnd) };
    case 10: // a file, or a crafted body
      if (rnd() < 0.5) return { ...c, method: "POST", body: "multipart", file: pick(files(), rnd) };
      return { ...c, method: "POST", raw: pick(rawBodies(), rnd) };
    case 11: {
      // a path segment replaced by an odd one
      const segments = c.path.split("/");
      const i = 1 + Math.floor(rnd() * (segments.length - 1));
      segments[i] = pick(SEGMENTS, rnd);
      return { ...c, path: segments.join("/") || "/" };
    }
    default: // odd headers
      return {
        ...c,
        headers: pick<Readonly<Record<string, string>>>(
          [
            { authorization: "Basic YWRtaW46YWRtaW4=" },
            { authorization: "Bearer " },
            { authorization: `Bearer ${"z".repeat(8000)}` },
            { "x-esri-authorization": "Bearer \u00ff" },
            { referer: "http://evil.example/" },
            { "x-forwarded-for": "1.2.3.4, ::1" },
            { "if-none-match": '"*"' },
            { range: "bytes=99999999-" },
            { "accept-encoding": "gzip, br, zstd" },
            { "content-encoding": "gzip" },
          ],
          rnd,
        ),
      };
  }
}

/** Every path segment of every family replaced once, by a segment picked with the seed. */
function segmentSweep(cases: readonly Req[], rnd: () => number): Req[] {
  const seen = new Set<string>();
  const out: Req[] = [];
  for (const c of cases) {
    const segments = c.path.split("/");
    for (let i = 1; i < segments.length; i++) {
      const key = segments.slice(0, i + 1).join("/");
      if (seen.has(key)) continue;
      seen.add(key);
      const copy = [...segments];
      copy[i] = pick(SEGMENTS, rnd);
      out.push({ ...c, path: copy.join("/"), who: pick(WHO, rnd) });
    }
  }
  // Whole paths that try to leave the base path or the web app's directory.
  for (const path of [
    "/../../../../etc/passwd",
    "/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json",
    "/assets/..%5c..%5c..%5cpackage.json",
    "/assets/.vite%2fmanifest.json",
    "//etc/passwd",
    "/rest/services/Hosted/..%2f..%2f..%2fmetadata.db/ImageServer",
    "/rest/services/Hosted/navy_winds_10deg/ImageServer/output/..%2f..%2f..%2fmetadata.db",
    "/rest/services/Hosted/navy_winds_10deg/ImageServer/output/%2e%2e%2finitial-admin-password",
    "/sharing/rest/content/users/..%2fadmin/items",
  ]) {
    out.push({ ...get(path), who: pick(WHO, rnd) });
  }
  return out;
}

const encode = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "\ufffd"));
const text = (v: Value) => (typeof v === "string" ? v : v.json);

/**
 * Send a request on a kept-alive socket; when that socket turns out closed (the server closes
 * the connection after refusing an oversized request, e.g. 431), once more on a fresh one.
 */
async function send(r: Req): Promise<Reply> {
  try {
    return await sendOn(r, agent);
  } catch (e) {
    if (!/ECONNRESET|EPIPE|socket hang up/.test((e as Error).message)) throw e;
    return sendOn(r, false);
  }
}

const quietSockets = new WeakSet<object>();

function sendOn(r: Req, via: Agent | false): Promise<Reply> {
  const base = new URL(server.url);
  const token = r.who === "anonymous" ? undefined : (tokens[r.who] ?? "");
  const headers: Record<string, string> = { ...r.headers };
  const params: (readonly [string, Value])[] = [["f", "json"], ...r.params];
  if (token !== undefined) {
    if (r.tokenIn === "param") params.push(["token", token]);
    else headers[r.tokenIn === "bearer" ? "authorization" : "x-esri-authorization"] = `Bearer ${token}`;
  }
  const form = params.map(([k, v]) => `${encode(k)}=${encode(text(v))}`).join("&");
  let query = "";
  let body: Buffer | undefined;
  if (r.raw) {
    query = form;
    body = r.raw.bytes;
    if (r.raw.contentType) headers["content-type"] = r.raw.contentType;
  } else if (r.method === "GET") {
    query = form;
  } else if (r.body === "json") {
    headers["content-type"] = "application/json";
    body = Buffer.from(
      `{${params.map(([k, v]) => `${JSON.stringify(k)}:${typeof v === "string" ? JSON.stringify(v) : v.json}`).join(",")}}`,
    );
  } else if (r.body === "multipart" || r.file) {
    const boundary = "----fuzz" + "7".repeat(16);
    headers["content-type"] = `multipart/form-data; boundary=${boundary}`;
    const chunks: Buffer[] = params.map(([k, v]) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k.replace(/["\r\n]/g, "_")}"\r\n\r\n${text(v)}\r\n`),
    );
    if (r.file) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${r.file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        Buffer.from(r.file.bytes),
        Buffer.from("\r\n"),
      );
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    body = Buffer.concat(chunks);
  } else {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = Buffer.from(form);
  }
  if (r.rawQuery) query = query ? `${query}&${r.rawQuery}` : r.rawQuery;
  const path = `${base.pathname}${r.path}${query ? `?${query}` : ""}`;
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { agent: via, host: base.hostname, port: base.port, method: r.method, path, headers, timeout: ANSWER_WITHIN_MS },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on("error", reject);
      },
    );
    // A server that refuses a request before reading all of its body closes the connection
    // while we still write it: that write fails after the answer came, on the socket alone.
    request.on("socket", (socket) => {
      if (quietSockets.has(socket)) return;
      quietSockets.add(socket);
      socket.on("error", () => undefined);
    });
    request.on("timeout", () => request.destroy(new Error(`no answer in ${ANSWER_WITHIN_MS / 1000} s`)));
    request.on("error", reject);
    request.end(body);
  });
}

/** What the client sent, in the forms a reply may echo it (raw, JSON-escaped, HTML-escaped, decoded). */
function sentTexts(r: Req): string[] {
  const out = new Set<string>();
  const add = (s: string) => {
    if (s.length < 3) return;
    out.add(s);
    out.add(JSON.stringify(s).slice(1, -1));
    out.add(s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!));
  };
  const leaves = (s: string) => {
    add(s);
    try {
      const walk = (x: unknown): void => {
        if (typeof x === "string") add(x);
        else if (x && typeof x === "object") Object.values(x).forEach(walk);
      };
      walk(JSON.parse(s));
    } catch {
      // not JSON
    }
    for (const piece of s.split(/[,\s"]+/)) add(piece);
  };
  for (const [k, v] of r.params) {
    leaves(k);
    leaves(text(v));
  }
  for (const segment of r.path.split("/")) {
    leaves(segment);
    try {
      leaves(decodeURIComponent(segment));
      leaves(decodeURIComponent(decodeURIComponent(segment)));
    } catch {
      // not decodable
    }
  }
  if (r.file) leaves(r.file.name);
  for (const e of r.echoes ?? []) leaves(e);
  return [...out].sort((a, b) => b.length - a.length);
}

/** What is wrong with an answer, if anything. */
function problems(r: Req, reply: Reply): string[] {
  const found: string[] = [];
  const type = String(reply.headers["content-type"] ?? "");
  const raw = reply.body.toString("latin1");
  const asText = /json|html|text|javascript|css|xml/.test(type) || type === "";
  const isAsset = /javascript|css/.test(type) || r.path.startsWith("/assets/");
  if (reply.status >= 500) {
    const busy = reply.status === 503 && reply.headers["retry-after"] !== undefined;
    // The web app's page while web/dist is (re)built by another process: not a server fault.
    const unbuilt = reply.status === 503 && raw.includes("web app is not built");
    if (!busy && !unbuilt) found.push(`HTTP ${reply.status}`);
  }
  if (/json/.test(type) && /"code"\s*:\s*500\b/.test(raw)) found.push("envelope code 500");
  // Errors are ArcGIS envelopes (SPEC §2), not the framework's own {statusCode, error, message}.
  if (/json/.test(type) && /^\{"error":"[^"]*"/.test(raw) && /"statusCode":\d+/.test(raw))
    found.push("an error outside the ArcGIS envelope");
  // The caller's token comes back only from generateToken (which answers tokens), and in
  // HTML pages' own links (the services directory's navigation keeps the query, as ArcGIS's does).
  const token = r.who === "user" || r.who === "publisher" || r.who === "admin" ? tokens[r.who] : undefined;
  if (token && /json/.test(type) && raw.includes(token) && !/generateToken/i.test(r.path)) found.push("the caller's token echoed");
  // Server files and secrets, whatever the client sent.
  for (const [marker, what] of [
    [server.dataDir, "the data dir"],
    [server.adminPassword, "the admin's password"],
    ["root:x:0:0", "/etc/passwd"],
    ["SQLite format 3", "the metadata database"],
    ['"devDependencies"', "package.json"],
  ] as const) {
    if (marker && raw.includes(marker)) found.push(`${what} in the body`);
  }
  // Server paths: what the client sent may be echoed, anything else may not.
  let scrubbed = raw;
  for (const s of sentTexts(r)) scrubbed = scrubbed.split(s).join("");
  const places = [`${tmpdir()}/`, "/work/", "/home/", "/root/", "node_modules", process.cwd(), "file://"];
  for (const p of places) if (scrubbed.includes(p)) found.push(`a server path (${p}) in the body`);
  if (asText && !isAsset) {
    const ts = scrubbed.match(/[\w.-]+\.(?:ts|tsx|mts|cts)\b(?![\w-])/);
    if (ts) found.push(`a source file name (${ts[0]}) in the body`);
    if (/^\s*at\s+\S.*(?::\d+:\d+\)?|\(native\)|\(<anonymous>\))\s*$/m.test(scrubbed) || /\n {4}at /.test(scrubbed))
      found.push("a stack trace");
    if (/Error:[^\n]*?[\w.-]+\.(?:ts|js|mjs|cjs):\d+/.test(scrubbed) || /[\w-]+\.(?:ts|js|mjs|cjs):\d+:\d+/.test(scrubbed))
      found.push("a file:line of the server");
  }
  return found;
}

function describeReq(i: number | string, r: Req): string {
  const params = r.params.map(([k, v]) => `${k}=${text(v).length > 80 ? `${text(v).slice(0, 60)}…(${text(v).length} chars)` : text(v)}`);
  const how = r.raw ? `raw body: ${r.raw.what}` : r.method === "GET" ? "query" : `${r.body} body`;
  return (
    `#${i} ${r.method} ${r.path.length > 200 ? `${r.path.slice(0, 200)}…` : r.path} as ${r.who} (token in ${r.tokenIn}), ${how}` +
    `${r.file ? `, file ${r.file.name.slice(0, 40)} (${r.file.bytes.length} bytes)` : ""}${r.rawQuery ? `, query + ${r.rawQuery}` : ""}` +
    `${r.headers ? `, headers ${JSON.stringify(r.headers).slice(0, 120)}` : ""} [${params.join(" & ")}]`
  );
}

/** How the answers went: HTTP status, or the envelope's code when JSON. */
const outcomes = new Map<string, number>();
const VERBOSE = Boolean(process.env.STRATA_FUZZ_VERBOSE);

async function check(i: number | string, r: Req, failures: string[]): Promise<Reply | undefined> {
  try {
    const reply = await send(r);
    const code = reply.body.toString("latin1", 0, 200).match(/^\{\s*"error"\s*:\s*\{\s*"code"\s*:\s*(\d+)/)?.[1];
    const outcome = code ? `error ${code}` : `HTTP ${reply.status}`;
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    if (VERBOSE) console.log(`${outcome}: ${describeReq(i, r).slice(0, 300)} -> ${reply.body.toString("latin1", 0, 200)}`);
    const found = problems(r, reply);
    if (found.length) {
      failures.push(`${found.join("; ")}: ${describeReq(i, r)}\n    -> ${reply.status} ${reply.body.toString("latin1").slice(0, 400)}`);
    }
    return reply;
  } catch (e) {
    failures.push(`${(e as Error).message}: ${describeReq(i, r)}`);
    return undefined;
  }
}

describe("fuzz", () => {
  it("its checks catch what they look for", () => {
    const r = get("/rest/info");
    const reply = (status: number, body: string, headers: Reply["headers"] = { "content-type": "application/json" }): Reply => ({
      status,
      headers,
      body: Buffer.from(body),
    });
    assert.deepEqual(problems(r, reply(200, '{"currentVersion":11.3}')), []);
    assert.deepEqual(problems(r, reply(503, '{"error":{"code":503}}', { "content-type": "application/json", "retry-after": "1" })), []);
    assert.deepEqual(problems(r, reply(502, "")), ["HTTP 502"]);
    assert.deepEqual(problems(r, reply(503, "{}")), ["HTTP 503"]);
    assert.deepEqual(problems(r, reply(200, '{"error":{"code":500,"message":"x"}}')), ["envelope code 500"]);
    assert.ok(problems(r, reply(200, `{"details":["${server.dataDir}/rasters/x"]}`)).includes("the data dir in the body"));
    assert.ok(problems(r, reply(200, '{"details":["cannot open /home/ana/x.nc"]}')).some((p) => p.includes("/home/")));
    assert.ok(problems(r, reply(200, '{"details":["in src/io/open.ts"]}')).some((p) => p.includes("open.ts")));
    assert.ok(problems(r, reply(200, "TypeError: x\n    at open (/app/dist/io/open.js:12:5)", {})).includes("a stack trace"));
    assert.ok(problems(r, reply(200, `{"password":"${server.adminPassword}"}`)).includes("the admin's password in the body"));
    assert.ok(problems(r, reply(400, '{"error":"Bad Request","code":"FST_ERR_X","message":"x","statusCode":400}')).length > 0);
    // What the client sent may come back.
    const echo = get("/rest/info", { uri: '{"uri":"/tmp/x.nc"}' });
    assert.deepEqual(problems(echo, reply(200, '{"details":["uri /tmp/x.nc is not under /fileShares"]}')), []);
  });

  it("refusals by the HTTP framework itself (bad URL encoding, an overlong path segment, oversized headers) are ArcGIS envelopes", async () => {
    const failures: string[] = [];
    for (const r of [
      { ...get("/rest/services/Hosted/%ff%fe/ImageServer"), who: "publisher" as const },
      {
        ...get(`/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster/jobs/${"x".repeat(101)}`),
        who: "publisher" as const,
      },
      { ...get("/rest/info", { q: "[".repeat(20_000) }), who: "anonymous" as const },
    ]) {
      await check("framework", r, failures);
    }
    assert.deepEqual(failures, [], failures.join("\n"));
  });

  it("a service name of 120 characters (the longest SPEC §5 allows) reaches the service's routes", async () => {
    // No such service: answered as any unknown service is, not refused by the router as too long.
    const reply = await send({ ...get(`${HOSTED}/${"n".repeat(120)}/ImageServer/exportImage`, { bbox: "0,0,1,1" }), who: "publisher" });
    assert.equal(reply.status, 200, reply.body.toString().slice(0, 300));
    assert.equal(JSON.parse(reply.body.toString()).error?.code, 404, reply.body.toString().slice(0, 300));
  });

  it("a job whose unknown parameter holds deeply nested JSON answers its inputs (found by seed 3 with 1500 requests)", async () => {
    const failures: string[] = [];
    const job = await server.call(
      `${GP}/GenerateMultidimensionalAnomaly/submitJob`,
      { inputMultidimensionalRaster: JSON.stringify({ itemId: ids.navy }), outputName: "fz_deep_inputs", extra: DEEP },
      { token: tokens.publisher },
    );
    assert.ok(job.jobId, JSON.stringify(job).slice(0, 300));
    for (const tail of ["/inputs", "/inputs/extra"]) {
      const r = { ...get(`${GP}/GenerateMultidimensionalAnomaly/jobs/${job.jobId}${tail}`), echoes: [DEEP] };
      await check("deep inputs", r, failures);
    }
    await server.call(`${GP}/GenerateMultidimensionalAnomaly/jobs/${job.jobId}/cancel`, {}, { token: tokens.publisher });
    assert.deepEqual(failures, [], failures.join("\n"));
  });

  it(`every path segment, ${REQUESTS} mutated requests and a tenth as many at once (seed ${SEED}): no 5xx but busy, no envelope 500, no server path, no stack trace`, async () => {
    const rnd = random(SEED);
    const cases = baseCases();
    const failures: string[] = [];
    const started = Date.now();
    const jobsNow = async (): Promise<{ task: string; jobId: string }[]> => {
      const out: { task: string; jobId: string }[] = [];
      for (const task of TASKS) {
        const list = await server.call(`${GP}/${task}/jobs`, { num: "1000" }, { token: tokens.admin, method: "GET" });
        for (const j of list.jobs ?? []) out.push({ task, jobId: j.jobId });
      }
      return out;
    };
    // The jobs this run makes are read back at the end; those made before are not its own.
    const before = new Set((await jobsNow()).map((j) => j.jobId));
    let sent = 0;

    for (const [i, r] of segmentSweep(cases, rnd).entries()) {
      await check(`s${i}`, r, failures);
      sent++;
    }
    // A fresh output name each time, so that submits the mutation left valid run as jobs.
    const fresh = (r: Req, i: number): Req => ({
      ...r,
      params: r.params.map(([k, v]) => [k, typeof v === "string" ? v.replace(/\bfz_(\w+)/, `fz_$1_${i}`) : v] as const),
    });
    for (let i = 0; i < REQUESTS; i++) {
      await check(i, fresh(mutate(pick(cases, rnd), rnd), i), failures);
      sent++;
    }
    // Then a tenth as many at once, 16 at a time: what shares a drawing, a cache or a job.
    const burst = Array.from({ length: Math.ceil(REQUESTS / 10) }, (_, j) => fresh(mutate(pick(cases, rnd), rnd), REQUESTS + j));
    for (let j = 0; j < burst.length; j += 16) {
      await Promise.all(burst.slice(j, j + 16).map((r, k) => check(`b${j + k}`, r, failures)));
      sent += burst.slice(j, j + 16).length;
    }

    // The jobs the fuzz created: their status, messages, inputs and results, once settled.
    const jobs = (await jobsNow()).filter((j) => !before.has(j.jobId));
    for (const { task, jobId } of jobs) {
      await waitForJob(server, task, jobId, tokens.admin!, 30_000).catch(() => undefined);
      for (const tail of ["", "/inputs", "/results/outputMultidimensionalRaster"]) {
        await check(`job ${jobId}`, { ...get(`${GP}/${task}/jobs/${jobId}${tail}`), who: "admin", echoes: ODD }, failures);
        sent++;
      }
    }

    const info = await fetch(`${server.url}/rest/info?f=json`);
    assert.equal(info.status, 200, "the server still answers rest/info");
    assert.ok((await info.json()).currentVersion, "rest/info answers its version");
    const scratch = await readdir(join(server.strata.scratchDir, "uploads")).catch(() => [] as string[]);
    assert.deepEqual(scratch, [], "no upload scratch file is left");
    const summary = [...outcomes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ×${n}`);
    console.log(
      `fuzz: ${sent} requests, ${jobs.length} jobs read back, ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}: ${summary.join(", ")}`,
    );
    assert.deepEqual(failures, [], `seed ${SEED} (replay: STRATA_FUZZ_SEED=${SEED}), ${failures.length} failures:\n${failures.join("\n")}`);
  });
});
