/**
 * GenerateMultidimensionalAnomaly through a real server: submitJob with a file-share input
 * and reference, the job runs in a worker thread, the output is published as a hosted image
 * service with the input's slices and float32 anomalies; a bad request is a 400 at submit.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const TASK = "GenerateMultidimensionalAnomaly";
const GP = `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}`;
const REAL = fileURLToPath(new URL("../fixtures/real/", import.meta.url)).replace(/\/$/, "");
let server: TestServer;
let token: string;

before(async () => {
  server = await startTestServer({ store: [`fileShare:real=${REAL}`] });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
});
after(() => server.close());

describe("GenerateMultidimensionalAnomaly over HTTP", () => {
  it("the task is listed and described from its parameter table", async () => {
    const d = await server.call(GP, {});
    assert.equal(d.name, TASK);
    const method = d.parameters.find((p: { name: string }) => p.name === "method");
    assert.equal(method.choiceList.length, 7);
    assert.equal(method.defaultValue, "DIFFERENCE_FROM_MEAN");
  });

  it("a job publishes monthly anomalies with the input's slices", { timeout: 60_000 }, async () => {
    const submitted = await server.call(
      `${GP}/submitJob`,
      {
        inputMultidimensionalRaster: JSON.stringify({ uri: "/fileShares/real/monthly_navy_winds.cdf" }),
        outputName: JSON.stringify({ serviceProperties: { name: "navy_anomaly" } }),
        variables: "UWND",
        calculationInterval: "RECURRING_MONTHLY",
        ignoreNoData: "DATA",
      },
      { token },
    );
    assert.ok(submitted.jobId, JSON.stringify(submitted));
    const job = await waitForJob(server, TASK, submitted.jobId, token);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const md = await server.call("/rest/services/Hosted/navy_anomaly/ImageServer/multidimensionalInfo", {}, { token });
    const variables = md.multidimensionalInfo.variables;
    assert.deepEqual(
      variables.map((v: { name: string }) => v.name),
      ["UWND"],
    );
    assert.equal(variables[0].dimensions[0].name, "StdTime");
    assert.equal(variables[0].dimensions[0].values.length, 132);
    const info = await server.call("/rest/services/Hosted/navy_anomaly/ImageServer", {}, { token });
    assert.equal(info.pixelType, "F32");
  });

  it("an EXTERNAL_RASTER reference on another grid is a 400 at submit naming the parameter", async () => {
    const r = await server.call(
      `${GP}/submitJob`,
      {
        inputMultidimensionalRaster: JSON.stringify({ uri: "/fileShares/real/monthly_navy_winds.cdf" }),
        outputName: JSON.stringify({ serviceProperties: { name: "never" } }),
        calculationInterval: "EXTERNAL_RASTER",
        referenceMeanRaster: JSON.stringify({ uri: "/fileShares/real/coads_climatology.cdf" }),
      },
      { token },
    );
    assert.equal(r.error?.code, 400, JSON.stringify(r));
    assert.match(JSON.stringify(r.error), /referenceMeanRaster/);
  });
});
