/**
 * The job queue across processes (issue 13), the full deployment on one machine: two API
 * nodes (`strata serve --queue`) and three `strata worker` processes sharing one data
 * directory, one PostgreSQL, one Redis and one S3-compatible server (s3rver, in this
 * process), every one of them started with `--raster-store s3://rasters/cluster` and the AWS
 * environment (endpoint, test credentials) that startTestS3 sets and they inherit. A job's
 * output, downloaded from S3 once committed, equals the embedded engine's (`strata run`, to
 * local files) object for object, byte for byte; a worker killed with SIGKILL mid-shard costs
 * nothing but time; a cancel sent to the other API node stops the job everywhere and leaves
 * nothing; a burst of submissions over both nodes loses none; an API node killed and
 * restarted mid-job changes nothing for clients. After each: no dataset prefix on S3 without
 * its commit marker, nothing in the data directory's pending directory (nor any dataset kept
 * there), and the committed datasets are exactly those the items name.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, readdir, rm, mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { Redis } from "ioredis";
import pg from "pg";
import { s3Client } from "../../src/io/s3Client.js";
import { writeBigCube } from "../helpers/bigCube.js";
import { type TestPostgres, startPostgres } from "../helpers/postgres.js";
import { type TestRedis, startRedis } from "../helpers/redis.js";
import { type TestS3, startTestS3 } from "../helpers/s3Server.js";
import { type ServerProcess, startServerProcess } from "../helpers/serverProcess.js";
import { writeSmallCube } from "../helpers/smallCube.js";
import { type WorkerProcess, startWorkerProcess } from "../helpers/workerProcess.js";

const run = promisify(execFile);
const STRATA = fileURLToPath(new URL("../../bin/strata.js", import.meta.url));
const SUBSET = "/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster";
/** Submissions in the burst: the 1,000 (123 s on 2 cores with every output committed to s3rver, the whole file 2 min 40 s); STRATA_BURST_JOBS=n for fewer. */
const BURST = Number(process.env.STRATA_BURST_JOBS ?? 1000);
const SHARDS = 3;
const TERMINAL = ["esriJobSucceeded", "esriJobFailed", "esriJobTimedOut", "esriJobCancelled"];
const BUCKET = "rasters";
const PREFIX = "cluster";
const STORE = `s3://${BUCKET}/${PREFIX}`;
const COMMITS = `${PREFIX}/.commits/`;

let redis: TestRedis;
let postgres: TestPostgres;
let s3: TestS3;
let root: string;
let dataDir: string;
let inputs: string;
let env: Record<string, string>;
let apiFlags: string[];
let nodes: ServerProcess[] = [];
let workers: WorkerProcess[] = [];
let token: string;
let metadataUrl: string;
/** The embedded engine's output chunks, by path. */
let reference: Map<string, Buffer>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of every shape
async function call(node: ServerProcess, path: string, params: Record<string, string> = {}): Promise<any> {
  const body = new URLSearchParams({ f: "json", ...params, ...(token ? { token } : {}) });
  const response = await fetch(`${node.url}${path}`, { method: "POST", body });
  return response.json();
}

function submit(node: ServerProcess, input: string, name: string, extra: Record<string, string> = {}): Promise<{ jobId: string }> {
  return call(node, `${SUBSET}/submitJob`, {
    inputMultidimensionalRaster: JSON.stringify({ uri: `/fileShares/inputs/${input}` }),
    outputName: JSON.stringify({ serviceProperties: { name } }),
    dimensionDefinition: "ALL",
    ...extra,
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of every shape
async function waitFor(node: () => ServerProcess, jobId: string, until: (job: any) => boolean, timeoutMs = 120_000): Promise<any> {
  for (const end = Date.now() + timeoutMs; ;) {
    const job = await call(node(), `${SUBSET}/jobs/${jobId}`).catch(() => undefined);
    if (job && until(job)) return job;
    if (Date.now() > end) throw new Error(`job ${jobId} is still ${JSON.stringify(job?.jobStatus)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ended = (job: { jobStatus: string }): boolean => TERMINAL.includes(job.jobStatus);

async function startWorker(): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(
    dataDir,
    ["--workers", "1", "--jobs", "2", "--job-threads", String(SHARDS), "--raster-store", STORE, "--public-url", nodes[0].url],
    env,
  );
  workers.push(worker);
  return worker;
}

/** Every file of a Zarr store but its metadata documents, by path, as bytes. */
async function chunkFiles(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === "zarr.json") continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path));
  }
  return files;
}

/**
 * The keys under a prefix, through the S3 API: one page (s3rver cannot answer a listing of
 * more than 1,000 keys, since it makes its continuation tokens with DES, which Node 20's
 * OpenSSL 3 refuses; one dataset has far fewer).
 */
async function listS3(prefix: string): Promise<string[]> {
  const page = await s3Client().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  assert.ok(!page.IsTruncated, `more than one page of keys under ${prefix}`);
  return (page.Contents ?? []).map((o) => o.Key!);
}

const OBJECT = "._S3rver_object";

/**
 * The keys under a prefix, relative to it, as s3rver keeps them on disk (looked at behind its
 * API, which cannot list the burst's thousands of keys; see listS3).
 */
async function storedKeys(prefix: string): Promise<string[]> {
  const dir = join(s3.directory, BUCKET, prefix);
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [];
    throw e;
  });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(OBJECT))
    .map((e) => relative(dir, join(e.parentPath, e.name.slice(0, -OBJECT.length))));
}

async function getS3(key: string): Promise<Buffer> {
  const answer = await s3Client().send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

/**
 * The output dataset of a succeeded job on S3, through its item (whose dataset no reply
 * names): every object but its metadata documents, by key below the dataset, as bytes,
 * downloaded. The dataset is committed: its marker is there and counts all its objects.
 */
async function outputObjects(node: ServerProcess, jobId: string): Promise<Map<string, Buffer>> {
  const result = await call(node, `${SUBSET}/jobs/${jobId}/results/outputMultidimensionalRaster`);
  const [properties] = await itemProperties("WHERE id = $1", [result.value.itemId]);
  const id: string = properties.datasetId;
  const base = `${PREFIX}/${id}/`;
  const keys = await listS3(base);
  const marker = JSON.parse((await getS3(`${COMMITS}${id}`)).toString("utf8"));
  assert.equal(marker.objects, keys.length, `the commit marker of ${id} counts its ${keys.length} objects`);
  const chunks = keys.filter((key) => !key.endsWith("/zarr.json"));
  const objects = new Map<string, Buffer>();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < chunks.length) {
      const key = chunks[next++];
      objects.set(key.slice(base.length), await getS3(key));
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  return objects;
}

/** The same chunks as the embedded run's, byte for byte (so value for value). */
function assertSameAsEmbedded(objects: Map<string, Buffer>): void {
  assert.deepEqual([...objects.keys()].sort(), [...reference.keys()].sort(), "the same chunks as the embedded run's");
  for (const [path, bytes] of reference) assert.ok(objects.get(path)?.equals(bytes), `${path} differs from the embedded run's`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- item properties as stored
async function itemProperties(where: string, params: string[]): Promise<any[]> {
  const client = new pg.Client({ connectionString: metadataUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ properties: unknown }>(`SELECT properties FROM items ${where}`, params);
    return rows.map((r) => (typeof r.properties === "string" ? JSON.parse(r.properties) : r.properties));
  } finally {
    await client.end();
  }
}

/**
 * No partial dataset: nothing in the data directory's pending directory, no dataset kept in
 * the data directory, no dataset prefix on S3 without its commit marker (nor a marker without
 * its objects). No orphan: the committed datasets and the datasets items name are the same sets.
 */
async function assertNoLeftovers(): Promise<void> {
  const rasters = join(dataDir, "rasters");
  assert.deepEqual(await readdir(join(rasters, ".pending")), [], "no pending dataset is left in the data directory");
  assert.deepEqual(
    (await readdir(rasters)).filter((n) => !n.startsWith(".")),
    ["store.json"],
    "no dataset is kept in the data directory",
  );
  const committed = (await storedKeys(COMMITS)).sort();
  const prefixes = [...new Set((await storedKeys(PREFIX)).map((key) => key.split("/")[0]))].filter((id) => id !== ".commits").sort();
  assert.deepEqual(prefixes, committed, "every dataset prefix on S3 has its commit marker and every marker its objects");
  const named = (await itemProperties("", [])).map((p) => p.datasetId).sort();
  assert.deepEqual(named, committed, "every committed dataset has its item and every item its dataset");
}

before(async () => {
  // startTestS3 points this process's AWS environment at s3rver; the processes started below inherit it.
  [redis, postgres, s3] = await Promise.all([startRedis(), startPostgres(), startTestS3([BUCKET])]);
  metadataUrl = await postgres.createDatabase();
  root = await mkdtemp(join(tmpdir(), "strata-cluster-"));
  dataDir = join(root, "data");
  inputs = join(root, "inputs");
  await mkdir(inputs, { recursive: true });
  await writeBigCube(join(inputs, "cube.nc"), { times: 240, height: 180, width: 360 });
  await writeSmallCube(join(inputs, "small.nc"));
  // Secrets through the environment, as the flags' help advises.
  env = { STRATA_METADATA: metadataUrl, STRATA_QUEUE: redis.url };
  apiFlags = ["--no-samples", "--work-threads", "1", "--raster-store", STORE, "--store", `fileShare:inputs=${inputs}`];
  nodes = [await startServerProcess(dataDir, apiFlags, env)];
  nodes.push(await startServerProcess(dataDir, apiFlags, env));
  await Promise.all([startWorker(), startWorker(), startWorker()]);
  const password = (await readFile(join(dataDir, "initial-admin-password"), "utf8")).trim();
  token = (await call(nodes[0], "/sharing/rest/generateToken", { username: "admin", password, client: "requestip" })).token;
  assert.ok(token);
  // The embedded engine's output, shared over as many threads as the cluster's shards.
  const out = join(root, "reference.zarr");
  await run(process.execPath, [
    STRATA,
    "run",
    "SubsetMultidimensionalRaster",
    "--input",
    join(inputs, "cube.nc"),
    "--output",
    out,
    "--dimensionDefinition",
    "ALL",
    "--threads",
    String(SHARDS),
  ]);
  reference = await chunkFiles(out);
});

after(async () => {
  await Promise.all([...workers.map((w) => w.close()), ...nodes.map((n) => n.close())]);
  await Promise.all([redis?.stop(), postgres?.stop(), s3?.close()]);
  if (root) await rm(root, { recursive: true, force: true });
});

describe("jobs on a queue: 2 API nodes, 3 workers, PostgreSQL, Redis, rasters on S3", { timeout: 600_000 }, () => {
  it("runs a job submitted to one node to the output the embedded engine writes, reported by the other", async () => {
    const { jobId } = await submit(nodes[0], "cube.nc", "cluster_ok");
    const job = await waitFor(() => nodes[1], jobId, ended);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    assert.ok(
      job.messages.some((m: { description: string }) => m.description === `Working on ${SHARDS} threads.`),
      JSON.stringify(job.messages),
    );
    assert.deepEqual(JSON.parse(await readFile(join(dataDir, "rasters", "store.json"), "utf8")), { url: STORE });
    assertSameAsEmbedded(await outputObjects(nodes[1], jobId));
    await assertNoLeftovers();
  });

  it("survives a worker killed with SIGKILL mid-shard: the shard runs again elsewhere, same output, nothing left over", async () => {
    const watcher = new Redis(redis.url);
    try {
      const { jobId } = await submit(nodes[1], "cube.nc", "cluster_kill");
      // The worker running one of the job's shards, by the name the queue records (host:pid).
      let victim: WorkerProcess | undefined;
      for (const end = Date.now() + 60_000; !victim;) {
        assert.ok(Date.now() < end, "no shard of the job became active");
        for (const id of await watcher.lrange("strata:shards:active", 0, -1)) {
          if (!id.startsWith(jobId)) continue;
          const by = await watcher.hget(`strata:shards:${id}`, "pb");
          victim = workers.find((w) => by?.endsWith(`:${w.pid}`));
          if (victim) break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      await victim.kill();
      workers = workers.filter((w) => w !== victim);
      await startWorker();
      const job = await waitFor(() => nodes[0], jobId, ended, 180_000);
      assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
      assertSameAsEmbedded(await outputObjects(nodes[0], jobId));
      await assertNoLeftovers();
    } finally {
      watcher.disconnect();
    }
  });

  it("ends a job Cancelled everywhere when the other node is asked, leaving nothing", async () => {
    const watcher = new Redis(redis.url);
    try {
      const { jobId } = await submit(nodes[0], "cube.nc", "cluster_cancel");
      await waitFor(
        () => nodes[1],
        jobId,
        (job) => job.jobStatus === "esriJobExecuting" && (job.progress?.percentage ?? 0) > 0,
        60_000,
      );
      const cancelled = await call(nodes[1], `${SUBSET}/jobs/${jobId}/cancel`);
      assert.ok(["esriJobCancelling", "esriJobCancelled"].includes(cancelled.jobStatus), JSON.stringify(cancelled));
      const asked = Date.now();
      const job = await waitFor(() => nodes[0], jobId, ended, 30_000);
      assert.equal(job.jobStatus, "esriJobCancelled");
      assert.ok(Date.now() - asked < 10_000, `the cancel took ${Date.now() - asked} ms`);
      const active = (await watcher.lrange("strata:shards:active", 0, -1)).filter((id) => id.startsWith(jobId));
      assert.deepEqual(active, [], "no shard of the job still runs");
      const name = await call(nodes[0], "/sharing/rest/portals/self/isServiceNameAvailable", {
        name: "cluster_cancel",
        type: "Image Service",
      });
      assert.deepEqual(name, { available: true });
      await assertNoLeftovers();
    } finally {
      watcher.disconnect();
    }
  });

  it("changes nothing for clients when an API node is killed and restarted mid-job", async () => {
    const { jobId } = await submit(nodes[0], "cube.nc", "cluster_restart");
    await waitFor(
      () => nodes[1],
      jobId,
      (job) => job.jobStatus === "esriJobExecuting",
    );
    const killed = nodes[0];
    process.kill(killed.pid, "SIGKILL");
    await killed.close();
    nodes[0] = await startServerProcess(dataDir, apiFlags, env);
    const seenByB = await waitFor(() => nodes[1], jobId, ended, 180_000);
    assert.equal(seenByB.jobStatus, "esriJobSucceeded", JSON.stringify(seenByB.messages));
    const seenByA = await call(nodes[0], `${SUBSET}/jobs/${jobId}`);
    assert.equal(seenByA.jobStatus, "esriJobSucceeded");
    assert.deepEqual(seenByA.messages, seenByB.messages);
    assertSameAsEmbedded(await outputObjects(nodes[0], jobId));
    await assertNoLeftovers();
  });

  it(`loses none of a burst of ${BURST} submissions spread over both nodes, and every job ends`, async () => {
    const ids: string[] = [];
    let next = 0;
    const submitOne = async (): Promise<void> => {
      while (next < BURST) {
        const i = next++;
        // A tiny job: one thread, no shards.
        const answer = await submit(nodes[i % 2], "small.nc", `burst_${i}`, { context: JSON.stringify({ parallelProcessingFactor: 1 }) });
        assert.ok(answer.jobId, JSON.stringify(answer));
        ids.push(answer.jobId);
      }
    };
    await Promise.all(Array.from({ length: 16 }, submitOne));
    assert.equal(new Set(ids).size, BURST);
    const open = new Set(ids);
    const statuses = new Map<string, string>();
    for (const end = Date.now() + 240_000; open.size > 0;) {
      assert.ok(Date.now() < end, `${open.size} jobs did not end`);
      const batch = [...open].slice(0, 100);
      await Promise.all(
        batch.map(async (id, i) => {
          const job = await call(nodes[i % 2], `${SUBSET}/jobs/${id}`);
          if (ended(job)) {
            open.delete(id);
            statuses.set(id, job.jobStatus);
          }
        }),
      );
      if (open.size > 0) await new Promise((r) => setTimeout(r, 500));
    }
    const counts: Record<string, number> = {};
    for (const status of statuses.values()) counts[status] = (counts[status] ?? 0) + 1;
    assert.deepEqual(counts, { esriJobSucceeded: BURST });
    await assertNoLeftovers();
  });

  it("never showed the Redis or database password, the S3 secret key, nor a stack trace, in any process's output", () => {
    for (const p of [...nodes, ...workers]) {
      assert.ok(!p.output().includes(postgres.password), p.output());
      assert.ok(!p.output().includes("S3RVER"), p.output());
      assert.doesNotMatch(p.output(), /\n\s+at .+:\d+:\d+/);
    }
  });
});
