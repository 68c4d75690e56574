/**
 * kill -9 of the server while jobs wait and execute, then a restart on the same data: every
 * job reaches a terminal state or completes, and no partial dataset or orphan item remains.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import Database from "better-sqlite3";
import { writeBigCube } from "../helpers/bigCube.js";

const CLI = new URL("../../bin/strata.js", import.meta.url).pathname;
const TASK = "SubsetMultidimensionalRaster";
const TERMINAL = ["esriJobSucceeded", "esriJobFailed", "esriJobTimedOut", "esriJobCancelled"];
let dir: string;
let port: number;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-restart-"));
  // Big enough that one Subset takes seconds, so the kill lands mid-job.
  await writeBigCube(join(dir, "cube.nc"), { times: 240, height: 360, width: 720 });
  port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
});
after(() => rm(dir, { recursive: true, force: true }));

function serve(): Promise<{ child: ChildProcess; password?: string }> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      "serve",
      "--port",
      String(port),
      "--data-dir",
      join(dir, "data"),
      "--workers",
      "1",
      "--store",
      `fileShare:big=${dir}`,
      "--log-level",
      "warn",
      "--no-samples",
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes("Strata is serving")) {
        clearInterval(timer);
        // Not a terminal: the password is in a file only the server's user reads, never in the output.
        const file = join(dir, "data", "initial-admin-password");
        const password = existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
        if (password) {
          assert.equal(statSync(file).mode & 0o777, 0o600);
          assert.ok(!out.includes(password), "the password is not in the output");
        }
        resolve({ child, password });
      }
    }, 50);
    child.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
  });
}

async function call(path: string, params: Record<string, string>) {
  const r = await fetch(`http://127.0.0.1:${port}/arcgis${path}`, { method: "POST", body: new URLSearchParams({ f: "json", ...params }) });
  return r.json();
}

it("recovers every job after kill -9 and leaves nothing half-written", { timeout: 240_000 }, async () => {
  const first = await serve();
  const token = (await call("/sharing/rest/generateToken", { username: "admin", password: first.password!, client: "requestip" })).token;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await call(`/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/submitJob`, {
      token,
      inputMultidimensionalRaster: '{"uri":"/fileShares/big/cube.nc"}',
      outputName: `restart_${i}`,
    });
    assert.ok(r.jobId, JSON.stringify(r));
    ids.push(r.jobId);
  }
  // Wait until the first job is executing (the others wait behind it on the one worker).
  for (let i = 0; ; i++) {
    const job = await call(`/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/jobs/${ids[0]}`, { token });
    if (job.jobStatus === "esriJobExecuting" && job.progress?.percentage > 0) break;
    assert.ok(i < 400, `job never started: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  first.child.kill("SIGKILL");
  await new Promise((r) => first.child.once("exit", r));
  const pendingAtCrash = await readdir(join(dir, "data", "rasters", ".pending"));
  assert.ok(pendingAtCrash.length >= 1, "the kill left a half-written dataset behind to recover from");

  const second = await serve();
  try {
    const statuses: string[] = [];
    for (const id of ids) {
      for (let i = 0; ; i++) {
        const job = await call(`/rest/services/System/RasterAnalysisTools/GPServer/${TASK}/jobs/${id}`, { token });
        if (TERMINAL.includes(job.jobStatus)) {
          statuses.push(job.jobStatus);
          if (id === ids[0])
            assert.ok(
              job.messages.some((m: { description: string }) => /restart/i.test(m.description)),
              JSON.stringify(job.messages),
            );
          break;
        }
        assert.ok(i < 2400, `job ${id} stuck in ${job.jobStatus}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assert.deepEqual(statuses, ["esriJobSucceeded", "esriJobSucceeded", "esriJobSucceeded"]);
  } finally {
    second.child.kill("SIGTERM");
    await new Promise((r) => second.child.once("exit", r));
  }
  // Nothing half-written, no orphans: every dataset belongs to an item and every item has its dataset.
  const rasters = join(dir, "data", "rasters");
  assert.deepEqual(await readdir(join(rasters, ".pending")), []);
  const datasets = (await readdir(rasters)).filter((n) => !n.startsWith(".")).sort();
  const db = new Database(join(dir, "data", "strata.db"), { readonly: true });
  const items = db.prepare("SELECT service_name, properties FROM items").all() as { service_name: string; properties: string }[];
  db.close();
  assert.deepEqual(items.map((i) => i.service_name).sort(), ["restart_0", "restart_1", "restart_2"]);
  assert.deepEqual(items.map((i) => JSON.parse(i.properties).datasetId).sort(), datasets);
});
