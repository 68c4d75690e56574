/**
 * ArcGIS REST JS (the client ArcGIS web apps use) against a running Strata: sign in with a
 * token, submit Subset, wait, read the output, then read the image service it made. Also
 * the short form on the task URL by GET and a plain form POST to submitJob.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ArcGISIdentityManager, Job, request } from "@esri/arcgis-rest-request";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";
import { waitForRestJsJob } from "../helpers/restJsJob.js";

const TASK = "SubsetMultidimensionalRaster";
let server: TestServer;
let password: string;

before(async () => {
  server = await startTestServer();
  password = await server.addUser("ana", "publisher");
});
after(() => server.close());

const winds = () => JSON.stringify({ url: `${server.url}/rest/services/Hosted/navy_winds_10deg/ImageServer` });
const RANGE_1990 = JSON.stringify([{ dimension: "StdTime", minValue: "1990-01-01", maxValue: "1990-12-31" }]);

async function checkService(url: string, authentication: ArcGISIdentityManager | string, months: number) {
  const auth = typeof authentication === "string" ? { params: { token: authentication } } : { authentication };
  const info = await request(url, { httpMethod: "GET", ...auth });
  assert.equal(info.serviceDataType, "esriImageServiceDataTypeScientific");
  assert.equal(info.hasMultidimensions, true);
  const md = await request(`${url}/multidimensionalInfo`, { httpMethod: "GET", ...auth });
  const vars = md.multidimensionalInfo.variables;
  assert.deepEqual(
    vars.map((v: { name: string }) => v.name),
    ["UWND"],
  );
  const time = vars[0].dimensions.find((d: { name: string }) => d.name === "StdTime");
  assert.equal(time.values.length, months);
  for (const t of time.values) assert.equal(new Date(t).getUTCFullYear(), 1990);
}

describe("ArcGIS REST JS against Strata", () => {
  it("signs in, submits Subset, waits and reads the output service", { timeout: 120_000 }, async ({ signal }) => {
    const authentication = await ArcGISIdentityManager.signIn({ username: "ana", password, portal: `${server.url}/sharing/rest` });
    const job = await Job.submitJob({
      url: `${server.tools}/${TASK}`,
      params: {
        inputMultidimensionalRaster: winds(),
        outputName: JSON.stringify({ serviceProperties: { name: "rest_js_subset" } }),
        variables: "UWND",
        dimensionDefinition: "BY_RANGES",
        dimensionRanges: RANGE_1990,
      },
      authentication,
      pollingRate: 200,
    });
    // Not job.waitForCompletion(): it polls on after this test has timed out (restJsJob.ts).
    await waitForRestJsJob(job, { signal, deadlineMs: 100_000 });
    const result = await job.getResult("outputMultidimensionalRaster");
    assert.equal(result.paramName, "outputMultidimensionalRaster");
    assert.equal(result.value.url, `${server.url}/rest/services/Hosted/rest_js_subset/ImageServer`);
    assert.match(result.value.itemId, /^[0-9a-f]{32}$/);
    const alias = await job.getResult("result");
    assert.deepEqual(alias.value, result.value);
    await checkService(result.value.url, authentication, 12);
  });

  it("accepts the short form: a GET on the task URL with task parameters", { timeout: 120_000 }, async () => {
    const token = await server.token("ana", password);
    const params = new URLSearchParams({
      f: "json",
      token,
      inputMultidimensionalRaster: winds(),
      outputName: JSON.stringify({ serviceProperties: { name: "short_form_subset" } }),
      variables: '["UWND"]',
      dimensionDefinition: "by_ranges",
      dimensionRanges: RANGE_1990,
    });
    const submitted = await (await fetch(`${server.tools}/${TASK}?${params}`)).json();
    assert.match(submitted.jobId, /^j[0-9a-f]{32}$/);
    const job = await waitForJob(server, TASK, submitted.jobId, token);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const out = await server.call(
      `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/jobs/${submitted.jobId}/results/outputMultidimensionalRaster`,
      {},
      { token },
    );
    await checkService(out.value.url, token, 12);
  });

  it("accepts a plain form POST to submitJob", { timeout: 120_000 }, async () => {
    const token = await server.token("ana", password);
    const body = new URLSearchParams({
      f: "json",
      token,
      inputMultidimensionalRaster: winds(),
      outputName: "form_post_subset",
      variables: "UWND",
      dimensionDefinition: "BY_VALUE",
      dimensionValues: JSON.stringify([{ dimension: "StdTime", value: "1990-07-18T11:00:00" }]),
    });
    const submitted = await (await fetch(`${server.tools}/${TASK}/submitJob`, { method: "POST", body })).json();
    const job = await waitForJob(server, TASK, submitted.jobId, token);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const md = await server.call(`/rest/services/Hosted/form_post_subset/ImageServer/multidimensionalInfo`, {}, { token });
    assert.deepEqual(md.multidimensionalInfo.variables[0].dimensions[0].values, [Date.UTC(1990, 6, 18, 11)]);
  });
});
