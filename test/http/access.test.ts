/**
 * Ownership (SPEC §12): a second user can neither see, cancel nor read the first user's
 * jobs or private items; anonymous requests get 499 unless anonymous access was allowed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const TASK = "SubsetMultidimensionalRaster";
const JOBS = `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/jobs`;

describe("who may see what", () => {
  let server: TestServer;
  let ana: string;
  let ben: string;
  let viewer: string;
  let jobId: string;
  let itemId: string;

  before(async () => {
    server = await startTestServer();
    await server.addUser("ana", "publisher", "ana-password-1");
    await server.addUser("ben", "publisher", "ben-password-1");
    await server.addUser("val", "user", "val-password-1");
    [ana, ben, viewer] = await Promise.all([
      server.token("ana", "ana-password-1"),
      server.token("ben", "ben-password-1"),
      server.token("val", "val-password-1"),
    ]);
    const submitted = await server.call(
      `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/submitJob`,
      {
        inputMultidimensionalRaster: JSON.stringify({ url: `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer` }),
        outputName: JSON.stringify({ serviceProperties: { name: "ana_private" } }),
        dimensionDefinition: "BY_VALUE",
        dimensionValues: '[{"dimension":"StdTime","value":"Jan"}]',
      },
      { token: ana },
    );
    jobId = submitted.jobId;
    const job = await waitForJob(server, TASK, jobId, ana);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    itemId = (await server.call(`${JOBS}/${jobId}/results/outputMultidimensionalRaster`, {}, { token: ana })).value.itemId;
  });
  after(() => server.close());

  it("the owner sees the job, its results and its inputs", async () => {
    assert.equal((await server.call(`${JOBS}/${jobId}`, {}, { token: ana })).jobStatus, "esriJobSucceeded");
    assert.ok((await server.call(`${JOBS}/${jobId}/inputs/outputName`, {}, { token: ana })).value);
    assert.equal((await server.call(JOBS, {}, { token: ana })).jobs.length, 1);
  });

  for (const path of ["", "/results/outputMultidimensionalRaster", "/results", "/inputs", "/inputs/outputName", "/cancel"]) {
    it(`another user gets 403 for job${path || " status"}`, async () => {
      const r = await server.call(`${JOBS}/${jobId}${path}`, {}, { token: ben });
      assert.equal(r.error?.code, 403, JSON.stringify(r));
    });
  }

  it("another user's job list does not include it; an admin's does", async () => {
    assert.deepEqual((await server.call(JOBS, {}, { token: ben })).jobs, []);
    const admin = await server.token("admin", server.adminPassword);
    assert.equal((await server.call(JOBS, {}, { token: admin })).jobs.length, 1);
    assert.equal((await server.call(`${JOBS}/${jobId}`, {}, { token: admin })).jobStatus, "esriJobSucceeded");
  });

  it("a private output item and service are the owner's alone", async () => {
    assert.equal((await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: ana })).id, itemId);
    assert.equal((await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: ben })).error?.code, 403);
    assert.equal((await server.call("/rest/services/Hosted/ana_private/ImageServer", {}, { token: ben })).error?.code, 403);
    const hosted = await server.call("/rest/services/Hosted", {}, { token: ben });
    assert.ok(!hosted.services.some((s: { name: string }) => s.name === "Hosted/ana_private"));
    // Nor may another user use it as an input or replace it.
    const r = await server.call(
      `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/submitJob`,
      { inputMultidimensionalRaster: JSON.stringify({ itemId }), outputName: "ben_copy" },
      { token: ben },
    );
    assert.equal(r.error?.code, 403);
    const replace = await server.call(
      `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/submitJob`,
      {
        inputMultidimensionalRaster: JSON.stringify({ url: `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer` }),
        outputName: JSON.stringify({ itemId }),
      },
      { token: ben },
    );
    assert.equal(replace.error?.code, 403);
  });

  it("a user without the publisher role may not run analysis", async () => {
    const r = await server.call(
      `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/submitJob`,
      { outputName: "x_x" },
      { token: viewer },
    );
    assert.equal(r.error?.code, 403);
  });

  it("anonymous requests get 499 when anonymous access is off", async () => {
    for (const path of [
      `${JOBS}/${jobId}`,
      JOBS,
      `/sharing/rest/content/items/${itemId}`,
      "/rest/services/Hosted/sst_climatology_4deg/ImageServer",
      "/rest/services/Hosted",
      `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/submitJob`,
    ]) {
      const r = await server.call(path, {});
      assert.equal(r.error?.code, 499, `${path}: ${JSON.stringify(r)}`);
    }
  });

  it("a bad or expired token is 498, by parameter or either header", async () => {
    assert.equal((await server.call(JOBS, {}, { token: "nonsense" })).error?.code, 498);
    for (const header of ["Authorization", "X-Esri-Authorization"]) {
      const r = await (await fetch(`${server.url}${JOBS}?f=json`, { headers: { [header]: "Bearer nonsense" } })).json();
      assert.equal(r.error?.code, 498);
      const ok = await (await fetch(`${server.url}${JOBS}?f=json`, { headers: { [header]: `Bearer ${ana}` } })).json();
      assert.equal(ok.jobs.length, 1, header);
    }
  });
});

describe("anonymous access allowed", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ "allow-anonymous": true });
  });
  after(() => server.close());

  it("reads public services without a token but still may not run jobs", async () => {
    const info = await server.call("/rest/services/Hosted/sst_climatology_4deg/ImageServer", {});
    assert.equal(info.name, "sst_climatology_4deg");
    const r = await server.call(`/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/submitJob`, { outputName: "x_x" });
    assert.equal(r.error?.code, 499);
  });
});
