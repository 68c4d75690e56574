/**
 * The rest of the protocol: discovery, formats (json, pjson, html pages with forms),
 * multipart POST, returnMessages, job lists with paging, warnings for ignored keys, 404s.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const TASK = "SubsetMultidimensionalRaster";
const GP = `/rest/services/System/RasterAnalysisTools/GPServer`;
let server: TestServer;
let token: string;

before(async () => {
  server = await startTestServer();
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
});
after(() => server.close());

const sst = () => JSON.stringify({ url: `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer` });

describe("protocol", () => {
  it("discovery: portals/self names the tools URL; rest/info names the portal", async () => {
    const self = await server.call("/sharing/rest/portals/self", {}, { token });
    assert.equal(self.helperServices.rasterAnalytics.url, `${server.url}${GP}`);
    assert.equal(self.user.username, "ana");
    const info = await server.call("/rest/info", {});
    assert.equal(info.owningSystemUrl, server.url);
    assert.equal(info.authInfo.tokenServicesUrl, `${server.url}/sharing/rest/generateToken`);
    const tools = await server.call(GP, {});
    assert.deepEqual(tools.tasks, [
      "SubsetMultidimensionalRaster",
      "GenerateMultidimensionalAnomaly",
      "GenerateTrendRaster",
      "PredictUsingTrendRaster",
    ]);
    assert.equal(tools.executionType, "esriExecutionTypeAsynchronous");
  });

  it("the task description comes from the parameter table", async () => {
    const d = await server.call(`${GP}/${TASK}`, {});
    assert.equal(d.name, TASK);
    const def = d.parameters.find((p: { name: string }) => p.name === "dimensionDefinition");
    assert.deepEqual(def.choiceList, ["ALL", "BY_VALUE", "BY_RANGES", "BY_ITERATION"]);
    assert.equal(def.defaultValue, "ALL");
    assert.equal(
      d.parameters.find((p: { name: string }) => p.name === "inputMultidimensionalRaster").parameterType,
      "esriGPParameterTypeRequired",
    );
  });

  it("every task description lists its output, last, as ArcGIS's do (clients read result names from it)", async () => {
    for (const task of [
      "SubsetMultidimensionalRaster",
      "GenerateMultidimensionalAnomaly",
      "GenerateTrendRaster",
      "PredictUsingTrendRaster",
    ]) {
      const d = await server.call(`${GP}/${task}`, {});
      const outputs = d.parameters.filter((p: { direction: string }) => p.direction === "esriGPParameterDirectionOutput");
      assert.deepEqual(
        outputs.map((p: { name: string; dataType: string }) => [p.name, p.dataType]),
        [["outputMultidimensionalRaster", "GPString"]],
        task,
      );
      assert.equal(d.parameters.at(-1).name, "outputMultidimensionalRaster");
    }
  });

  it("pjson is indented JSON; html is a page; html is the default", async () => {
    const pjson = await (await fetch(`${server.url}${GP}?f=pjson`)).text();
    assert.match(pjson, /^\{\n {2}"currentVersion"/);
    for (const url of [`${server.url}${GP}`, `${server.url}${GP}?f=html`]) {
      const r = await fetch(url);
      assert.match(r.headers.get("content-type") ?? "", /text\/html/);
      assert.match(await r.text(), /<a href="[^"]*SubsetMultidimensionalRaster">SubsetMultidimensionalRaster<\/a>/);
    }
    const task = await (await fetch(`${server.url}${GP}/${TASK}`)).text();
    assert.match(task, /<form action="[^"]*submitJob" method="POST">/);
    assert.match(task, /<select id="f_dimensionDefinition" name="dimensionDefinition"/);
    assert.match(await (await fetch(`${server.url}/rest/services`)).text(), /Hosted/);
  });

  it("a multipart POST is the same as a form POST; ignored keys and parameters become warnings", { timeout: 60_000 }, async () => {
    const form = new FormData();
    form.set("f", "json");
    form.set("token", token);
    form.set("inputMultidimensionalRaster", JSON.stringify({ url: JSON.parse(sst()).url, uri: "/fileShares/none/x.nc" }));
    form.set("outputName", "multipart_out");
    form.set("bogusParameter", "1");
    const submitted = await (await fetch(`${server.url}${GP}/${TASK}/submitJob`, { method: "POST", body: form })).json();
    const job = await waitForJob(server, TASK, submitted.jobId, token);
    assert.equal(job.jobStatus, "esriJobSucceeded");
    const warnings = job.messages
      .filter((m: { type: string }) => m.type === "esriJobMessageTypeWarning")
      .map((m: { description: string }) => m.description);
    assert.ok(
      warnings.some((w: string) => /url was used; uri ignored/.test(w)),
      warnings.join("; "),
    );
    assert.ok(
      warnings.some((w: string) => /bogusParameter is not a parameter/.test(w)),
      warnings.join("; "),
    );
    const quiet = await server.call(`${GP}/${TASK}/jobs/${submitted.jobId}`, { returnMessages: "false" }, { token });
    assert.equal(quiet.messages, undefined);
    const input = await server.call(`${GP}/${TASK}/jobs/${submitted.jobId}/inputs/inputMultidimensionalRaster`, {}, { token });
    assert.equal(input.value.url, JSON.parse(sst()).url, "JSON inputs echoed parsed");
    const inputs = await server.call(`${GP}/${TASK}/jobs/${submitted.jobId}/inputs`, {}, { token });
    assert.ok(!inputs.inputs.some((i: { paramName: string }) => i.paramName === "token"), "tokens are never echoed");
    const data = await server.call(`${GP}/${TASK}/jobs/${submitted.jobId}/results/result`, { returnType: "data" }, { token });
    assert.equal(data.paramName, "result");
    assert.match(data.value.url, /multipart_out\/ImageServer$/);
  });

  it("lists the caller's jobs newest first, paged", { timeout: 60_000 }, async () => {
    const ids: string[] = [];
    for (const name of ["page_a", "page_b", "page_c"]) {
      ids.push((await server.call(`${GP}/${TASK}/submitJob`, { inputMultidimensionalRaster: sst(), outputName: name }, { token })).jobId);
    }
    const first = await server.call(`${GP}/${TASK}/jobs`, { num: "2" }, { token });
    assert.equal(first.jobs.length, 2);
    assert.equal(first.jobs[0].jobId, ids[2]);
    assert.equal(first.nextStart, 3);
    const rest = await server.call(`${GP}/${TASK}/jobs`, { start: String(first.nextStart), num: "2" }, { token });
    assert.ok(rest.jobs.some((j: { jobId: string }) => j.jobId === ids[0]));
    for (const id of ids) await waitForJob(server, TASK, id, token);
  });

  it("unknown tasks, jobs, results and routes are 404s in the envelope", async () => {
    for (const path of [
      `${GP}/NoSuchTask`,
      `${GP}/${TASK}/jobs/j00000000000000000000000000000000`,
      "/rest/services/Hosted/nope/ImageServer",
      "/no/such/route",
    ]) {
      const r = await server.call(path, {}, { token });
      assert.equal(r.error?.code, 404, `${path}: ${JSON.stringify(r)}`);
    }
  });
});
