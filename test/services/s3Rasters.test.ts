/**
 * A Strata server with its rasters on S3 (`--raster-store`, against s3rver) answers like one
 * on local files: the samples it publishes at first start and the output of a Subset job are
 * committed to S3 (nothing left in the data directory), and exportImage (float GeoTIFF) and
 * identify give the same values as the same requests to a server on the local store.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { fromArrayBuffer } from "geotiff";
import { s3Client } from "../../src/io/s3Client.js";
import { type TestS3, startTestS3 } from "../helpers/s3Server.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const TASK = "SubsetMultidimensionalRaster";
let s3: TestS3;
let local: TestServer;
let remote: TestServer;

before(async () => {
  s3 = await startTestS3(["rasters"]);
  local = await startTestServer({ "allow-anonymous": true });
  remote = await startTestServer({ "allow-anonymous": true, "raster-store": "s3://rasters/strata" });
});
after(async () => {
  await remote?.close();
  await local?.close();
  await s3?.close();
});

async function subset(server: TestServer): Promise<{ service: string; token: string }> {
  const token = await server.token("admin", server.adminPassword);
  const submitted = await server.call(
    `${server.tools.slice(server.url.length)}/${TASK}/submitJob`,
    {
      inputMultidimensionalRaster: JSON.stringify({ url: `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer` }),
      outputName: "sst_jan_jul",
      dimensionDefinition: "BY_VALUE",
      dimensionValues: '[{"dimension":"StdTime","value":"Jan"},{"dimension":"StdTime","value":"Jul"}]',
    },
    { token },
  );
  assert.ok(submitted.jobId, JSON.stringify(submitted));
  const job = await waitForJob(server, TASK, submitted.jobId, token, 120_000);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
  return { service: "/rest/services/Hosted/sst_jan_jul/ImageServer", token };
}

async function exportValues(server: TestServer, service: string, params: Record<string, string>, token?: string): Promise<Float32Array> {
  const query = new URLSearchParams({
    bbox: "19,-91,379,89",
    bboxSR: "4326",
    size: "90,45",
    format: "tiff",
    f: "image",
    ...params,
    ...(token ? { token } : {}),
  });
  const response = await fetch(`${server.url}${service}/exportImage?${query}`);
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("content-type"), "image/tiff", await response.clone().text());
  const image = await (await fromArrayBuffer(await response.arrayBuffer())).getImage();
  return ((await image.readRasters()) as unknown as Float32Array[])[0];
}

async function s3Keys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3Client().send(new ListObjectsV2Command({ Bucket: "rasters", Prefix: prefix, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

describe("rasters on S3", () => {
  it("publishes the samples to S3 and keeps no dataset in the data directory", async () => {
    const markers = (await s3Keys("strata/.commits/")).length;
    assert.equal(markers, (await remote.strata.store.list()).length);
    assert.ok(markers >= 2, `${markers} committed datasets`);
    const left = (await readdir(join(remote.dataDir, "rasters"))).filter((n) => !n.startsWith("."));
    assert.deepEqual(left, ["store.json"]);
    assert.deepEqual(await readdir(join(remote.dataDir, "rasters", ".pending")), []);
  });

  it("answers exportImage and identify on a sample and on a job's output as the local store does", { timeout: 240_000 }, async () => {
    const sample = "/rest/services/Hosted/sst_climatology_4deg/ImageServer";
    for (const sliceId of ["0", "6"]) {
      assert.deepEqual(await exportValues(remote, sample, { sliceId }), await exportValues(local, sample, { sliceId }));
    }
    const [{ service, token: remoteToken }, { service: same, token: localToken }] = await Promise.all([subset(remote), subset(local)]);
    assert.equal(service, same);
    assert.equal((await remote.strata.store.list()).length, (await s3Keys("strata/.commits/")).length);
    for (const sliceId of ["0", "1"]) {
      const fromS3 = await exportValues(remote, service, { sliceId }, remoteToken);
      assert.deepEqual(fromS3, await exportValues(local, service, { sliceId }, localToken));
      assert.ok(fromS3.some((v) => Number.isFinite(v) && v > 0));
    }
    for (const [x, y] of [
      [-150, 10],
      [30, -40],
      [170, 60],
    ]) {
      const params = {
        geometry: JSON.stringify({ x, y, spatialReference: { wkid: 4326 } }),
        geometryType: "esriGeometryPoint",
        processAsMultidimensional: "true",
      };
      const a = await remote.call(`${service}/identify`, params, { method: "GET", token: remoteToken });
      const b = await local.call(`${service}/identify`, params, { method: "GET", token: localToken });
      assert.ok(a.value !== undefined && !a.error, JSON.stringify(a));
      assert.deepEqual({ ...a, objectId: undefined }, { ...b, objectId: undefined });
    }
    // The output went to S3 too: the data directory holds no dataset.
    assert.deepEqual(
      (await readdir(join(remote.dataDir, "rasters"))).filter((n) => !n.startsWith(".")),
      ["store.json"],
    );
  });
});
