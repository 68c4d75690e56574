/**
 * The ArcGIS API for Python's raster analysis flow against Strata, replayed request by request
 * as its sources send them (arcgis/_impl/tools.py `_RasterAnalysisTools`: `_set_output_raster`,
 * `_create_output_image_service`, `generate_multidimensional_anomaly`; arcgis/gis
 * `ContentManager.is_service_name_available` and `create_service`, `_portalpy.create_service`
 * and `update_item`; arcgis/geoprocessing/_support.py `_execute_gp_tool`,
 * `_analysis_job_status`, `_analysis_job_results`; _job.py `GPJob._process_ra`), with
 * the encoding of its connection (form POSTs, `f=json`, the token as a parameter, dicts and
 * booleans as JSON). The Python package itself is not needed.
 *
 * Success: isServiceNameAvailable → createService → item → item update → submitJob with
 * outputName {"serviceProperties":{"name","serviceUrl"},"itemProperties":{"itemId"}} → poll →
 * results → item → item update of properties with the job's URL and id; the output is the
 * pre-created item and service. Cancel: the client cancels, then deletes the pre-created item.
 */
import assert from "node:assert/strict";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeBigCube } from "../helpers/bigCube.js";
import { type TestServer, startTestServer } from "../helpers/server.js";

const ANOMALY = "GenerateMultidimensionalAnomaly";
const TREND = "GenerateTrendRaster";
let server: TestServer;
const bigCube = join(process.env.TMPDIR ?? "/tmp", `strata-python-flow-${process.pid}.nc`);

before(async () => {
  server = await startTestServer({ store: [`fileShare:work=${process.env.TMPDIR ?? "/tmp"}`] });
  await server.addUser("ana", "publisher", "ana-password-1");
  await server.addUser("bob", "publisher", "bob-password-1");
  await server.addUser("uma", "user", "uma-password-1");
});
after(async () => {
  await server.close();
  await rm(bigCube, { force: true });
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers of every shape

/** What the Python API's connection does with a request, and a log of what it sent. */
class PythonClient {
  readonly sent: string[] = [];
  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  /** `con.post(path, params)`: relative paths hang off <portal>/sharing/rest/. */
  async post(path: string, params: Record<string, unknown> = {}): Promise<Json> {
    const url = this.url(path);
    this.sent.push(`POST ${this.shortPath(url)}`);
    const response = await fetch(url, {
      method: "POST",
      body: this.form(params),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    return response.json() as Promise<Json>;
  }

  /** `con.get(path, params)`. */
  async get(path: string, params: Record<string, unknown> = {}): Promise<Json> {
    const url = this.url(path);
    this.sent.push(`GET ${this.shortPath(url)}`);
    return (await fetch(`${url}?${this.form(params)}`)).json() as Promise<Json>;
  }

  private url(path: string): string {
    return path.startsWith("http") ? path : `${this.base}/sharing/rest/${path}`;
  }

  private shortPath(url: string): string {
    return url
      .slice(this.base.length)
      .replace(/[0-9a-f]{32}/g, "<id>")
      .replace(/\/jobs\/[^/]+/, "/jobs/<job>");
  }

  /** Dicts, lists and booleans as JSON (json.dumps), None as "", then f=json and the token. */
  private form(params: Record<string, unknown>): URLSearchParams {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      body.set(k, v === null || v === undefined ? "" : typeof v === "object" || typeof v === "boolean" ? JSON.stringify(v) : String(v));
    }
    body.set("f", "json");
    body.set("token", this.token);
    return body;
  }
}

async function pythonClient(user: string): Promise<PythonClient> {
  return new PythonClient(server.url, await server.token(user, `${user}-password-1`));
}

/** arcgis.geoprocessing._tool._camelCase_to_underscore: how import_toolbox names keyword arguments. */
function camelToUnderscore(name: string): string {
  if (name === name.toUpperCase()) return name.toLowerCase();
  return name
    .replace(/(.)([A-Z][a-z]+)/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase();
}

/** `_create_output_image_service`: check the name, create the empty service, describe its item. */
async function createOutputImageService(py: PythonClient, name: string, task: string): Promise<Json> {
  const ok = await py.post("portals/self/isServiceNameAvailable", { name, type: "Image Service" });
  assert.equal(ok.available, true, JSON.stringify(ok));
  const createParameters = {
    name,
    description: "",
    capabilities: "Image, Metadata",
    properties: { path: "@", description: "", copyright: "" },
  };
  const created = await py.post("content/users/ana/createService", { createParameters, outputType: "imageService", isView: false });
  assert.equal(created.success, true, JSON.stringify(created));
  const item = await py.get(`content/items/${created.itemId}`); // Item(gis, itemid)
  const updated = await py.post(`content/users/${item.owner}/items/${item.id}/update`, {
    description: `Image Service generated from running the ${task} tool.`,
    tags: `Analysis Result, ${task}`,
    snippet: `Analysis Image Service generated from ${task}`,
  });
  assert.equal(updated.success, true, JSON.stringify(updated));
  return item;
}

/** `_analysis_job_status`: poll the job until it is no longer waiting or running. */
async function pollJob(py: PythonClient, taskUrl: string, jobId: string): Promise<Json> {
  for (let i = 0; ; i++) {
    const job = await py.get(`${taskUrl}/jobs/${jobId}`);
    if (!["esriJobSubmitted", "esriJobWaiting", "esriJobExecuting", "esriJobCancelling"].includes(job.jobStatus)) return job;
    assert.ok(i < 1200, `job still ${job.jobStatus}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function datasets(): Promise<string[]> {
  return (await readdir(join(server.dataDir, "rasters"))).filter((n) => !n.startsWith(".")).sort();
}

describe("the ArcGIS API for Python's raster analysis flow", () => {
  it("answers a GP service version whose parameters Strata takes in full", async () => {
    const py = await pythonClient("ana");
    const portal = await py.post("portals/self");
    const toolsUrl = portal.helperServices.rasterAnalytics.url as string;
    const service = await py.post(toolsUrl);
    // The API branches on this number (<= 10.8, 10.8.x, >= 10.9) and then passes keyword
    // arguments that import_toolbox derived from the task descriptions: every one of the
    // >= 10.9 branch must be a parameter of the task, or Python raises a TypeError.
    assert.equal(typeof service.currentVersion, "number");
    assert.ok(service.currentVersion >= 10.9);
    const sends: Record<string, string[]> = {
      [ANOMALY]: ["input_multidimensional_raster", "output_name", "variables", "method", "calculation_interval", "ignore_nodata"],
      [TREND]: ["input_multidimensional_raster", "output_name", "dimension", "variables", "trend_line_type", "frequency", "ignore_nodata"],
    };
    sends[ANOMALY].push("reference_mean_raster", "context");
    sends[TREND].push("cycle_length", "cycle_unit", "rmse", "r2", "slope_p_value", "seasonal_period", "context");
    for (const [task, keywords] of Object.entries(sends)) {
      const description = await py.get(`${toolsUrl}/${task}`);
      const names = (description.parameters as { name: string }[]).map((p) => camelToUnderscore(p.name));
      for (const k of keywords) assert.ok(names.includes(k), `${task} has no parameter for ${k}: ${names.join(", ")}`);
      const outputs = (description.parameters as { name: string; direction: string }[]).filter(
        (p) => p.direction === "esriGPParameterDirectionOutput",
      );
      assert.deepEqual(
        outputs.map((p) => camelToUnderscore(p.name)),
        ["output_multidimensional_raster"],
      );
    }
  });

  it("pre-creates the service, runs the job into it, and records the job on the item", { timeout: 120_000 }, async () => {
    const py = await pythonClient("ana");
    const name = "python_anomaly";
    const toolsUrl = (await py.post("portals/self")).helperServices.rasterAnalytics.url as string;
    const taskUrl = `${toolsUrl}/${ANOMALY}`;
    py.sent.length = 0;

    const service = await createOutputImageService(py, name, ANOMALY);
    assert.equal(service.name, name);
    assert.equal(service.type, "Image Service");
    assert.equal(service.url, `${server.url}/rest/services/Hosted/${name}/ImageServer`);

    // Meanwhile the empty service is taken and answers with a clear error, never a crash.
    assert.equal(
      (
        await server.call(
          "/sharing/rest/portals/self/isServiceNameAvailable",
          { name, type: "Image Service" },
          { token: await server.token("bob", "bob-password-1") },
        )
      ).available,
      false,
    );
    for (const resource of ["", "/multidimensionalInfo", "/exportImage", "/identify"]) {
      const r = await server.call(
        `/rest/services/Hosted/${name}/ImageServer${resource}`,
        { geometry: "0,0", bbox: "-180,-90,180,90" },
        { token: await server.token("ana", "ana-password-1") },
      );
      assert.equal(r.error?.code, 404, JSON.stringify(r));
      assert.match(r.error.message, /no data yet/);
    }
    const described = await server.call(
      `/sharing/rest/content/items/${service.id}`,
      {},
      { token: await server.token("ana", "ana-password-1") },
    );
    assert.deepEqual(described.tags, ["Analysis Result", ANOMALY]);
    assert.equal(described.snippet, `Analysis Image Service generated from ${ANOMALY}`);
    const sets = await datasets();

    // generate_multidimensional_anomaly(..., output_name=name): every parameter of the tool,
    // the ones not given as "" (None), through _execute_gp_tool.
    const outputName = JSON.stringify({
      serviceProperties: { name: service.name, serviceUrl: service.url },
      itemProperties: { itemId: service.id },
    });
    const submitted = await py.post(`${taskUrl}/submitJob`, {
      inputMultidimensionalRaster: { url: `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer` },
      outputName,
      variables: null,
      method: "DIFFERENCE_FROM_MEAN",
      calculationInterval: null,
      ignoreNodata: true,
      referenceMeanRaster: null,
      context: null,
    });
    assert.ok(submitted.jobId, JSON.stringify(submitted));
    const job = await pollJob(py, taskUrl, submitted.jobId);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const values: Record<string, Json> = {};
    for (const [key, { paramUrl }] of Object.entries(job.results as Record<string, { paramUrl: string }>)) {
      values[key] = (await py.get(`${taskUrl}/jobs/${submitted.jobId}/${paramUrl}`)).value;
    }
    const value = values.outputMultidimensionalRaster;
    assert.deepEqual(value, { url: service.url, itemId: service.id }, "the output is the pre-created item and service");

    // GPJob._process_ra: Item(gis, value["itemId"]) and its update with the job.
    const item = await py.get(`content/items/${value.itemId}`);
    const jobProperties = {
      jobUrl: `${taskUrl}/jobs/${submitted.jobId}`,
      jobType: "GPServer",
      jobId: submitted.jobId,
      jobStatus: "completed",
    };
    const recorded = await py.post(`content/users/${item.owner}/items/${item.id}/update`, { properties: jobProperties });
    assert.equal(recorded.success, true, JSON.stringify(recorded));

    assert.deepEqual(py.sent, [
      "POST /sharing/rest/portals/self/isServiceNameAvailable",
      "POST /sharing/rest/content/users/ana/createService",
      "GET /sharing/rest/content/items/<id>",
      "POST /sharing/rest/content/users/ana/items/<id>/update",
      `POST /rest/services/System/RasterAnalysisTools/GPServer/${ANOMALY}/submitJob`,
      ...py.sent
        .filter((s) => s.endsWith("/jobs/<job>"))
        .map(() => `GET /rest/services/System/RasterAnalysisTools/GPServer/${ANOMALY}/jobs/<job>`),
      `GET /rest/services/System/RasterAnalysisTools/GPServer/${ANOMALY}/jobs/<job>/results/outputMultidimensionalRaster`,
      `GET /rest/services/System/RasterAnalysisTools/GPServer/${ANOMALY}/jobs/<job>/results/result`,
      "GET /sharing/rest/content/items/<id>",
      "POST /sharing/rest/content/users/ana/items/<id>/update",
    ]);

    // The service now serves the job's output, and its item carries the job.
    const token = await server.token("ana", "ana-password-1");
    const info = await server.call(`/rest/services/Hosted/${name}/ImageServer`, {}, { token });
    assert.equal(info.hasMultidimensions, true, JSON.stringify(info));
    assert.equal(info.description, `Image Service generated from running the ${ANOMALY} tool.`);
    const md = await server.call(`/rest/services/Hosted/${name}/ImageServer/multidimensionalInfo`, {}, { token });
    assert.ok(md.multidimensionalInfo.variables[0].attributes["strata:anomaly"], JSON.stringify(md.multidimensionalInfo.variables[0]));
    const image = await fetch(`${service.url}/exportImage?bbox=-180,-90,180,90&size=64,32&format=png&f=image&token=${token}`);
    assert.equal(image.headers.get("content-type"), "image/png");
    assert.ok((await image.arrayBuffer()).byteLength > 100);
    const final = await server.call(`/sharing/rest/content/items/${service.id}`, {}, { token });
    assert.deepEqual(final.properties, jobProperties);
    assert.equal((await datasets()).length, sets.length + 1, "one dataset, the job's");
    assert.equal(
      (await server.call("/sharing/rest/portals/self/isServiceNameAvailable", { name, type: "Image Service" }, { token })).available,
      false,
    );
  });

  it("on a cancelled job the client deletes the pre-created item: nothing is left", { timeout: 180_000 }, async () => {
    await writeBigCube(bigCube, { times: 120, height: 360, width: 720 });
    const py = await pythonClient("ana");
    const name = "python_cancelled";
    const taskUrl = `${server.tools}/${ANOMALY}`;
    const [itemsBefore, setsBefore] = [(await server.strata.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM items"))!.n, await datasets()];
    py.sent.length = 0;
    const service = await createOutputImageService(py, name, ANOMALY);
    const submitted = await py.post(`${taskUrl}/submitJob`, {
      inputMultidimensionalRaster: { uri: `/fileShares/work/${bigCube.split("/").pop()}` },
      outputName: JSON.stringify({ serviceProperties: { name, serviceUrl: service.url }, itemProperties: { itemId: service.id } }),
      method: "Z_SCORE",
      ignoreNodata: true,
    });
    assert.ok(submitted.jobId, JSON.stringify(submitted));

    // A name a running job will create is not available either.
    const held = await server.call(
      `${server.tools}/${ANOMALY}/submitJob`,
      { inputMultidimensionalRaster: JSON.stringify({ uri: `/fileShares/work/${bigCube.split("/").pop()}` }), outputName: "held_by_job" },
      { token: await server.token("ana", "ana-password-1") },
    );
    assert.ok(held.jobId, JSON.stringify(held));
    assert.equal((await py.post("portals/self/isServiceNameAvailable", { name: "held_by_job", type: "Image Service" })).available, false);

    // GPJob.cancel, then the flow's failure path: the pre-created item is deleted.
    for (const jobId of [submitted.jobId, held.jobId]) {
      const cancelling = await py.post(`${taskUrl}/jobs/${jobId}/cancel`);
      assert.ok(["esriJobCancelling", "esriJobCancelled"].includes(cancelling.jobStatus), JSON.stringify(cancelling));
      assert.equal((await pollJob(py, taskUrl, jobId)).jobStatus, "esriJobCancelled");
    }
    const item = await py.get(`content/items/${service.id}`);
    const deleted = await py.post(`content/users/${item.owner}/items/${item.id}/delete`);
    assert.equal(deleted.success, true, JSON.stringify(deleted));

    const token = await server.token("ana", "ana-password-1");
    assert.equal((await server.call(`/rest/services/Hosted/${name}/ImageServer`, {}, { token })).error?.code, 404);
    assert.equal((await server.call(`/sharing/rest/content/items/${service.id}`, {}, { token })).error?.code, 404);
    for (const n of [name, "held_by_job"])
      assert.equal((await py.post("portals/self/isServiceNameAvailable", { name: n, type: "Image Service" })).available, true, n);
    assert.equal((await server.strata.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM items"))!.n, itemsBefore);
    assert.deepEqual(await datasets(), setsBefore);
    assert.deepEqual(await readdir(join(server.dataDir, "rasters", ".pending")), []);
  });
});
