/**
 * The job queue with rasters on S3 (issue 13): an API node started with `--queue` and
 * `--raster-store s3://...` binds the data directory to the store (`rasters/store.json`), so
 * the job threads of a `strata worker` commit a queued job's output to S3, where the API node
 * serves it from; a worker started with another store than the directory's is refused at
 * start, naming --raster-store. The queued job service's stats() are the queue's numbers.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { s3Client } from "../../src/io/s3Client.js";
import { writeBigCube } from "../helpers/bigCube.js";
import { type TestRedis, startRedis } from "../helpers/redis.js";
import { type TestS3, startTestS3 } from "../helpers/s3Server.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";
import { type WorkerProcess, startWorkerProcess } from "../helpers/workerProcess.js";

const TASK = "SubsetMultidimensionalRaster";
const STORE = "s3://rasters/cluster";

let redis: TestRedis;
let s3: TestS3;
let root: string;
let api: TestServer;
let token: string;
const workers: WorkerProcess[] = [];

before(async () => {
  [redis, s3] = await Promise.all([startRedis(), startTestS3(["rasters"])]);
  root = await mkdtemp(join(tmpdir(), "strata-queue-s3-"));
  const inputs = join(root, "inputs");
  await mkdir(inputs, { recursive: true });
  // Big enough that its run is seen running (a second or so), small enough to be quick.
  await writeBigCube(join(inputs, "cube.nc"), { times: 48, height: 90, width: 180 });
  const dataDir = join(root, "data");
  await mkdir(dataDir);
  api = await startTestServer(
    { queue: redis.url, "raster-store": STORE, "no-samples": true, "work-threads": "1", store: [`fileShare:inputs=${inputs}`] },
    dataDir,
  );
  token = await api.token("admin", api.adminPassword);
});

after(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await api?.close();
  await Promise.all([redis?.stop(), s3?.close()]);
  if (root) await rm(root, { recursive: true, force: true });
});

function startWorker(flags: string[]): Promise<WorkerProcess> {
  return startWorkerProcess(api.dataDir, ["--workers", "1", "--jobs", "1", "--job-threads", "1", "--public-url", api.url, ...flags], {
    STRATA_QUEUE: redis.url,
  });
}

async function s3Keys(prefix: string): Promise<string[]> {
  const page = await s3Client().send(new ListObjectsV2Command({ Bucket: "rasters", Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!);
}

describe("a queued job with rasters on S3", { timeout: 180_000 }, () => {
  it("binds the data directory to the store when the API node starts with a queue", async () => {
    const binding = JSON.parse(await readFile(join(api.dataDir, "rasters", "store.json"), "utf8"));
    assert.deepEqual(binding, { url: STORE });
  });

  let jobId: string;

  it("counts a job waiting in the queue, and no worker, before any worker starts", async () => {
    assert.deepEqual(await api.strata.jobs.stats(), { queued: 0, running: 0, workers: 0 });
    const submitted = await api.call(
      `${api.tools.slice(api.url.length)}/${TASK}/submitJob`,
      {
        inputMultidimensionalRaster: JSON.stringify({ uri: "/fileShares/inputs/cube.nc" }),
        outputName: JSON.stringify({ serviceProperties: { name: "queued_on_s3" } }),
        dimensionDefinition: "ALL",
      },
      { token },
    );
    assert.ok(submitted.jobId, JSON.stringify(submitted));
    jobId = submitted.jobId;
    assert.deepEqual(await api.strata.jobs.stats(), { queued: 1, running: 0, workers: 0 });
  });

  it("runs it on a worker started with the same --raster-store, its output committed to S3 and served from there", async () => {
    const before = await api.strata.store.list();
    workers.push(await startWorker(["--raster-store", STORE]));
    let sawRunning = false;
    let stats: Awaited<ReturnType<typeof api.strata.jobs.stats>>;
    for (const end = Date.now() + 120_000; ;) {
      stats = await api.strata.jobs.stats();
      assert.equal(stats.workers, 1, JSON.stringify(stats));
      if (stats.running === 1) sawRunning = true;
      const job = await api.strata.jobs.get(jobId);
      if (job && ["esriJobSucceeded", "esriJobFailed", "esriJobCancelled", "esriJobTimedOut"].includes(job.status)) break;
      assert.ok(Date.now() < end, "the job did not end");
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(sawRunning, "stats() never showed the job running");
    const job = await waitForJob(api, TASK, jobId, token);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    // The queue's job completes just after its record (the record is its last step).
    for (const end = Date.now() + 10_000; (stats = await api.strata.jobs.stats()).running > 0 && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(stats, { queued: 0, running: 0, workers: 1 });

    const added = (await api.strata.store.list()).filter((id) => !before.includes(id));
    assert.equal(added.length, 1, "one dataset was committed to the API node's store");
    const [id] = added;
    assert.equal(await api.strata.store.resolve(id), `${STORE}/${id}`);
    assert.deepEqual(await s3Keys(`cluster/.commits/${id}`), [`cluster/.commits/${id}`]);
    assert.ok((await s3Keys(`cluster/${id}/`)).includes(`cluster/${id}/zarr.json`));
    const local = (await readdir(join(api.dataDir, "rasters"))).filter((n) => !n.startsWith("."));
    assert.deepEqual(local, ["store.json"], "no dataset is kept in the data directory");
    assert.deepEqual(await readdir(join(api.dataDir, "rasters", ".pending")), []);

    const service = await api.call("/rest/services/Hosted/queued_on_s3/ImageServer", {}, { token });
    assert.equal(service.error, undefined, JSON.stringify(service));
    assert.equal(service.name, "queued_on_s3");
  });

  it("refuses to start a worker with another store than the data directory's, naming --raster-store", async () => {
    await assert.rejects(startWorker(["--raster-store", "s3://rasters/elsewhere"]), (e: Error) => {
      assert.match(
        e.message,
        /--raster-store s3:\/\/rasters\/elsewhere: the data directory's rasters are on s3:\/\/rasters\/cluster \(.*store\.json\), not on s3:\/\/rasters\/elsewhere\. Start every API node and worker sharing this data directory with --raster-store s3:\/\/rasters\/cluster/,
      );
      assert.doesNotMatch(e.message, /\n\s+at .+:\d+:\d+/);
      assert.doesNotMatch(e.message, /S3RVER/);
      return true;
    });
    await assert.rejects(startWorker([]), /--raster-store is not set: the data directory's rasters are on s3:\/\/rasters\/cluster/);
    // The record is as the cluster made it.
    assert.deepEqual(JSON.parse(await readFile(join(api.dataDir, "rasters", "store.json"), "utf8")), { url: STORE });
    assert.equal((await api.strata.jobs.stats()).workers, 1);
  });
});
