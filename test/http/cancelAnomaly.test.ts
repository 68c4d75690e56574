/**
 * Cancelling a running anomaly job stops it within one tile (progress does not move on
 * after the cancel takes effect) and leaves no service, item, dataset or pending data.
 */
import assert from "node:assert/strict";
import { readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { writeBigCube } from "../helpers/bigCube.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const TASK = "GenerateMultidimensionalAnomaly";
const GP = `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}`;
const dir = join(tmpdir(), `strata-cancel-anomaly-${process.pid}`);
let server: TestServer;
let token: string;

before(async () => {
  const { mkdir } = await import("node:fs/promises");
  await mkdir(dir, { recursive: true });
  // 400 daily slices of 360 x 720: many tiles, each a fraction of a second.
  await writeBigCube(join(dir, "daily.nc"), { times: 400, height: 360, width: 720 });
  server = await startTestServer({ store: [`fileShare:work=${dir}`] });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

it("a cancelled anomaly job stops within a tile and leaves nothing", { timeout: 120_000 }, async () => {
  const items = async () => (await server.strata.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM items"))!.n;
  const datasets = async () => (await readdir(join(server.dataDir, "rasters"))).filter((n) => !n.startsWith("."));
  const [itemsBefore, setsBefore] = [await items(), await datasets()];
  const submitted = await server.call(
    `${GP}/submitJob`,
    {
      inputMultidimensionalRaster: '{"uri":"/fileShares/work/daily.nc"}',
      outputName: "cancelled_anomaly",
      calculationInterval: "RECURRING_MONTHLY",
    },
    { token },
  );
  assert.ok(submitted.jobId, JSON.stringify(submitted));
  let progress: number;
  for (let i = 0; ; i++) {
    const job = await server.call(`${GP}/jobs/${submitted.jobId}`, {}, { token });
    progress = job.progress?.percentage ?? 0;
    if (job.jobStatus === "esriJobExecuting" && progress > 0) break;
    assert.ok(i < 1200, JSON.stringify(job));
    await new Promise((r) => setTimeout(r, 25));
  }
  const t0 = Date.now();
  await server.call(`${GP}/jobs/${submitted.jobId}/cancel`, {}, { token });
  const job = await waitForJob(server, TASK, submitted.jobId, token);
  const stopMs = Date.now() - t0;
  assert.equal(job.jobStatus, "esriJobCancelled");
  assert.ok(progress < 100, "cancelled before the end");
  // One tile of this cube takes well under a second; the worker's grace period is 5 s.
  assert.ok(stopMs < 4000, `stopped after ${stopMs} ms`);
  assert.equal(await items(), itemsBefore);
  assert.deepEqual(await datasets(), setsBefore);
  assert.deepEqual(await readdir(join(server.dataDir, "rasters", ".pending")), []);
});
