/**
 * Two API nodes on one PostgreSQL metadata database (issue 13): two `strata serve`
 * processes, each with its own data directory, started at the same moment on one throwaway
 * PostgreSQL. Either answers for what the other did: a token, an item, a held service name,
 * a job's record. Jobs still run on the threads of the node that took them (the queue is
 * later work), so for a job this checks the record every node reads: its status, messages
 * and results, and the item it published.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { type ServerProcess, startServerProcess } from "../helpers/serverProcess.js";
import { type TestPostgres, startPostgres } from "../helpers/postgres.js";

const SAMPLES = fileURLToPath(new URL("../../samples/", import.meta.url));
const SUBSET = "/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster";

let pg: TestPostgres;
let dirs: string[] = [];
let a: ServerProcess;
let b: ServerProcess;
let token: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of every shape
async function call(node: ServerProcess, path: string, params: Record<string, string> = {}): Promise<any> {
  const body = new URLSearchParams({ f: "json", ...params, ...(token ? { token } : {}) });
  const response = await fetch(`${node.url}${path}`, { method: "POST", body });
  return response.json();
}

before(async () => {
  pg = await startPostgres();
  const url = await pg.createDatabase();
  dirs = [await mkdtemp(join(tmpdir(), "strata-node-a-")), await mkdtemp(join(tmpdir(), "strata-node-b-"))];
  const flags = ["--no-samples", "--workers", "1", "--work-threads", "1", "--store", `fileShare:samples=${SAMPLES}`];
  // At once: both migrate and both look for a first admin; the locks make one of each.
  [a, b] = await Promise.all(dirs.map((dir) => startServerProcess(dir, flags, { STRATA_METADATA: url })));
});

after(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await pg?.stop();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("two API nodes on one PostgreSQL", () => {
  it("started at once, they made one admin, and a token from node A works on node B", async () => {
    const files = dirs.map((dir) => join(dir, "initial-admin-password")).filter((file) => existsSync(file));
    assert.equal(files.length, 1, "exactly one node created the admin");
    const password = (await readFile(files[0], "utf8")).trim();
    const issued = await call(a, "/sharing/rest/generateToken", { username: "admin", password, client: "requestip" });
    assert.ok(issued.token, JSON.stringify(issued));
    token = issued.token;
    assert.equal((await call(b, "/sharing/rest/community/self")).username, "admin");
    // A server token asked of B for A's portal token (what ArcGIS clients do) is the same token.
    assert.equal((await call(b, "/sharing/rest/generateToken", { token, serverUrl: b.url })).token, token);
  });

  it("lists on node B the item created on node A, and B knows its service name is taken", async () => {
    const created = await call(a, "/sharing/rest/content/users/admin/createService", {
      createParameters: JSON.stringify({ name: "made_on_a" }),
      outputType: "imageService",
    });
    assert.equal(created.success, true, JSON.stringify(created));
    const content = await call(b, "/sharing/rest/content/users/admin");
    assert.deepEqual(
      content.items.map((i: { id: string; name: string }) => [i.id, i.name]),
      [[created.itemId, "made_on_a"]],
    );
    assert.equal((await call(b, `/sharing/rest/content/items/${created.itemId}`)).name, "made_on_a");
    const available = await call(b, "/sharing/rest/portals/self/isServiceNameAvailable", { name: "MADE_ON_A", type: "Image Service" });
    assert.deepEqual(available, { available: false });
    const again = await call(b, "/sharing/rest/content/users/admin/createService", {
      createParameters: JSON.stringify({ name: "Made_On_A" }),
      outputType: "imageService",
    });
    assert.equal(again.error?.code, 400, JSON.stringify(again));
  });

  it("shows on node B the job submitted to node A, through to its results and published item", { timeout: 120_000 }, async () => {
    const submitted = await call(a, `${SUBSET}/submitJob`, {
      inputMultidimensionalRaster: JSON.stringify({ uri: "/fileShares/samples/navy_winds_10deg.nc" }),
      outputName: JSON.stringify({ serviceProperties: { name: "subset_on_a" } }),
      variables: "UWND",
      dimensionDefinition: "ALL",
    });
    assert.ok(submitted.jobId, JSON.stringify(submitted));
    const seen = await call(b, `${SUBSET}/jobs/${submitted.jobId}`);
    assert.equal(seen.jobId, submitted.jobId);
    assert.ok(
      ["esriJobWaiting", "esriJobExecuting", "esriJobSucceeded"].includes(seen.jobStatus),
      `node B sees the job as ${seen.jobStatus}`,
    );
    const listed = await call(b, `${SUBSET}/jobs`);
    assert.ok(
      listed.jobs.some((j: { jobId: string }) => j.jobId === submitted.jobId),
      JSON.stringify(listed),
    );
    let job = seen;
    for (const end = Date.now() + 100_000; !["esriJobSucceeded", "esriJobFailed"].includes(job.jobStatus);) {
      if (Date.now() > end) throw new Error(`job still ${job.jobStatus}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      job = await call(b, `${SUBSET}/jobs/${submitted.jobId}`);
    }
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const result = await call(b, `${SUBSET}/jobs/${submitted.jobId}/results/outputMultidimensionalRaster`);
    assert.match(result.value.url, /\/Hosted\/subset_on_a\/ImageServer$/);
    const item = await call(b, `/sharing/rest/content/items/${result.value.itemId}`);
    assert.equal(item.name, "subset_on_a");
    assert.equal(item.properties.jobId, submitted.jobId, "the item says which job made it");
  });

  it("never wrote the database password to either node's output", () => {
    for (const node of [a, b]) assert.ok(!node.output().includes(pg.password), node.output());
  });
});
