/**
 * Publication (SPEC §5): updating an existing service keeps its item and URL and swaps its
 * data; the item records what its dataset takes; a cancelled job leaves nothing behind;
 * deleting an item removes its service and data.
 */
import assert from "node:assert/strict";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { getItem } from "../../src/portal/items.js";
import { datasetIdOf } from "../../src/services/publish.js";
import { directorySize } from "../../src/store/diskUsage.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";
import { writeBigCube } from "../helpers/bigCube.js";

const TASK = "SubsetMultidimensionalRaster";
const GP = `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}`;
let server: TestServer;
let token: string;

before(async () => {
  server = await startTestServer({ store: [`fileShare:work=${process.env.TMPDIR ?? "/tmp"}`] });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
});
const bigCube = join(process.env.TMPDIR ?? "/tmp", `strata-cancel-${process.pid}.nc`);
after(async () => {
  await server.close();
  await rm(bigCube, { force: true });
});

const sst = () => JSON.stringify({ url: `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer` });

async function run(params: Record<string, string>) {
  const submitted = await server.call(`${GP}/submitJob`, params, { token });
  assert.ok(submitted.jobId, JSON.stringify(submitted));
  const job = await waitForJob(server, TASK, submitted.jobId, token);
  return { id: submitted.jobId as string, job };
}

async function datasets(): Promise<string[]> {
  return (await readdir(join(server.dataDir, "rasters"))).filter((n) => !n.startsWith(".")).sort();
}

describe("publication", () => {
  it("updates an existing service in place: same item and URL, new data, old dataset removed", { timeout: 60_000 }, async () => {
    const { id, job } = await run({
      inputMultidimensionalRaster: sst(),
      outputName: "sst_months",
      dimensionDefinition: "BY_VALUE",
      dimensionValues: '[{"dimension":"StdTime","value":"Jan"}]',
    });
    assert.equal(job.jobStatus, "esriJobSucceeded");
    const first = (await server.call(`${GP}/jobs/${id}/results/outputMultidimensionalRaster`, {}, { token })).value;
    const before = await datasets();
    for (const outputName of [JSON.stringify({ itemId: first.itemId }), JSON.stringify({ url: first.url })]) {
      const second = await run({
        inputMultidimensionalRaster: sst(),
        outputName,
        dimensionDefinition: "BY_VALUE",
        dimensionValues: '[{"dimension":"StdTime","value":"Jul"},{"dimension":"StdTime","value":"Aug"}]',
      });
      assert.equal(second.job.jobStatus, "esriJobSucceeded", JSON.stringify(second.job.messages));
      const value = (await server.call(`${GP}/jobs/${second.id}/results/outputMultidimensionalRaster`, {}, { token })).value;
      assert.deepEqual(value, first, "same item id and URL");
      const md = await server.call("/rest/services/Hosted/sst_months/ImageServer/multidimensionalInfo", {}, { token });
      const months = md.multidimensionalInfo.variables[0].dimensions[0].values.map((t: number) => new Date(t).getUTCMonth() + 1);
      assert.deepEqual(months, [7, 8]);
      assert.equal((await datasets()).length, before.length, "the old dataset is gone, the new one in its place");
    }
  });

  it("records on the item the bytes its dataset takes, as the job's thread measured them", { timeout: 60_000 }, async () => {
    const { id, job } = await run({ inputMultidimensionalRaster: sst(), outputName: "sst_bytes" });
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const { itemId } = (await server.call(`${GP}/jobs/${id}/results/outputMultidimensionalRaster`, {}, { token })).value;
    const item = (await getItem(server.strata.db, itemId))!;
    const onDisk = await directorySize(await server.strata.store.resolve(datasetIdOf(item)!));
    assert.ok(onDisk > 0);
    assert.equal(item.properties.bytes, onDisk);
  });

  it("a cancelled job leaves no service, item or dataset", { timeout: 120_000 }, async () => {
    const path = bigCube;
    await writeBigCube(path, { times: 200, height: 360, width: 720 });
    const items = async () => (await server.strata.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM items"))!.n;
    const [beforeItems, beforeSets] = [await items(), await datasets()];
    const submitted = await server.call(
      `${GP}/submitJob`,
      { inputMultidimensionalRaster: JSON.stringify({ uri: `/fileShares/work/${path.split("/").pop()}` }), outputName: "never_published" },
      { token },
    );
    for (let i = 0; ; i++) {
      const job = await server.call(`${GP}/jobs/${submitted.jobId}`, {}, { token });
      if (job.jobStatus === "esriJobExecuting" && job.progress?.percentage > 0) break;
      assert.ok(i < 600, JSON.stringify(job));
      await new Promise((r) => setTimeout(r, 50));
    }
    const cancelling = await server.call(`${GP}/jobs/${submitted.jobId}/cancel`, {}, { token });
    assert.ok(["esriJobCancelling", "esriJobCancelled"].includes(cancelling.jobStatus));
    const job = await waitForJob(server, TASK, submitted.jobId, token);
    assert.equal(job.jobStatus, "esriJobCancelled");
    const result = await server.call(`${GP}/jobs/${submitted.jobId}/results/outputMultidimensionalRaster`, {}, { token });
    assert.equal(result.error?.code, 400, "no results for a cancelled job");
    assert.equal(await items(), beforeItems);
    assert.deepEqual(await datasets(), beforeSets);
    assert.deepEqual(await readdir(join(server.dataDir, "rasters", ".pending")), []);
    assert.equal((await server.call("/rest/services/Hosted/never_published/ImageServer", {}, { token })).error?.code, 404);
  });

  it("deleting an item removes its service and its dataset", { timeout: 60_000 }, async () => {
    const { id } = await run({ inputMultidimensionalRaster: sst(), outputName: "to_delete" });
    const { itemId } = (await server.call(`${GP}/jobs/${id}/results/outputMultidimensionalRaster`, {}, { token })).value;
    const before = await datasets();
    const r = await server.call(`/sharing/rest/content/users/ana/items/${itemId}/delete`, {}, { token });
    assert.equal(r.success, true);
    assert.equal((await server.call("/rest/services/Hosted/to_delete/ImageServer", {}, { token })).error?.code, 404);
    assert.equal((await datasets()).length, before.length - 1);
  });
});

describe("folder inputs", () => {
  it("stacks a folder's rasters along their shared dimension, sorted, and refuses mixed grids", { timeout: 120_000 }, async () => {
    const folder = (await server.call("/sharing/rest/content/users/ana/createFolder", { title: "months" }, { token })).folder.id;
    for (const month of ["Mar", "Jan", "Feb"]) {
      const { job } = await run({
        inputMultidimensionalRaster: sst(),
        outputName: JSON.stringify({ serviceProperties: { name: `sst_${month}` }, itemProperties: { folderId: folder } }),
        dimensionDefinition: "BY_VALUE",
        dimensionValues: JSON.stringify([{ dimension: "StdTime", value: month }]),
      });
      assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    }
    const { job } = await run({ inputMultidimensionalRaster: JSON.stringify({ folderId: folder }), outputName: "sst_q1" });
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const md = await server.call("/rest/services/Hosted/sst_q1/ImageServer/multidimensionalInfo", {}, { token });
    const months = md.multidimensionalInfo.variables[0].dimensions[0].values.map((t: number) => new Date(t).getUTCMonth() + 1);
    assert.deepEqual(months, [1, 2, 3]);

    const other = await run({
      inputMultidimensionalRaster: JSON.stringify({ url: `${server.url}/rest/services/Hosted/navy_winds_10deg/ImageServer` }),
      outputName: JSON.stringify({ serviceProperties: { name: "winds_in_folder" }, itemProperties: { folderId: folder } }),
      dimensionDefinition: "BY_VALUE",
      dimensionValues: '[{"dimension":"StdTime","value":"1990-07-18T11:00:00"}]',
    });
    assert.equal(other.job.jobStatus, "esriJobSucceeded");
    const mixed = await server.call(
      `${GP}/submitJob`,
      { inputMultidimensionalRaster: JSON.stringify({ folderId: folder }), outputName: "mixed" },
      { token },
    );
    assert.equal(mixed.error?.code, 400);
    assert.match(mixed.error.details.join(" "), /inputMultidimensionalRaster: .*different grid/);
  });
});
