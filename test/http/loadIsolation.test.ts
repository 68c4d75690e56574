/**
 * No request stalls the server (issue 10 §2), measured on a server in its own process:
 * - while one maximal export (4100×15000, the advertised maximum) is drawn, small requests
 *   (rest/info, a 256² export) answer in under 1 s at the 99th percentile;
 * - 200 concurrent 1024² exports all succeed, and the server's memory is back within
 *   300 MB of its resting level within 60 s;
 * - a 1 GiB upload raises the server's memory by under 100 MB (it streams to disk).
 * Figures are printed for the note (node --test shows diagnostics).
 */
import assert from "node:assert/strict";
import { openAsBlob } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { strata } from "../helpers/cli.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";
import { type ServerProcess, startServerProcess } from "../helpers/serverProcess.js";

let dir = "";
let server: ServerProcess;
let token = "";
let restMb = 0;
const SST = () => `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-load-"));
  server = await startServerProcess(join(dir, "data"), ["--work-threads", "2"]);
  const added = await strata("user", "add", "ana", "--role", "publisher", "--password", "ana-password-1", "--data-dir", join(dir, "data"));
  assert.equal(added.code, 0, added.stderr);
  const body = new URLSearchParams({ username: "ana", password: "ana-password-1", client: "requestip", f: "json" });
  token = ((await (await fetch(`${server.url}/sharing/rest/generateToken`, { method: "POST", body })).json()) as { token: string }).token;
  // Resting level: started, one small export drawn (a thread warm), settled.
  assert.equal((await exportImage(256, 0)).status, 200);
  await sleep(2000);
  restMb = await server.rssMb();
});
after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** An exportImage of the SST sample, shifted by `shift` degrees so no two are the same image. */
function exportImage(size: number, shift: number, height = size): Promise<Response> {
  const bbox = [-180 + shift, -90, 180 + shift, 90].join(",");
  return fetch(`${SST()}/exportImage?bbox=${bbox}&bboxSR=4326&size=${size},${height}&format=png&f=image&token=${token}`);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe("load isolation", () => {
  it("answers small requests in under 1 s (p99) while a maximal export is drawn", async () => {
    const started = Date.now();
    const big = exportImage(4100, 0, 15000).then(async (r) => ({ status: r.status, type: r.headers.get("content-type"), end: Date.now() }));
    await sleep(500);
    const latencies: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      const r = i % 2 ? await exportImage(256, 0.01 * i) : await fetch(`${server.url}/rest/info?f=json`);
      await r.arrayBuffer();
      assert.equal(r.status, 200);
      latencies.push(performance.now() - t0);
    }
    const smallDone = Date.now();
    const done = await big;
    assert.equal(done.status, 200);
    assert.equal(done.type, "image/png");
    // Otherwise the small requests were not measured against a running export.
    assert.ok(done.end > smallDone, `the maximal export ended (${done.end - started} ms) before the small requests did`);
    const p99 = percentile(latencies, 99);
    console.log(
      `maximal export ${done.end - started} ms; small requests meanwhile: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`,
    );
    assert.ok(p99 < 1000, `p99 ${p99.toFixed(0)} ms`);
  });

  it("ends 200 concurrent 1024² exports with no error, and memory returns within 300 MB of rest in 60 s", async () => {
    const t0 = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        exportImage(1024, 0.001 * (i + 1)).then(async (r) => ({ status: r.status, bytes: (await r.arrayBuffer()).byteLength })),
      ),
    );
    const failed = answers.filter((a) => a.status !== 200 || a.bytes === 0);
    assert.equal(failed.length, 0, JSON.stringify(failed.slice(0, 5)));
    const peak = await server.rssMb();
    const burstMs = Date.now() - t0;
    let now = peak;
    const settleStart = Date.now();
    while (Date.now() - settleStart < 60_000) {
      now = await server.rssMb();
      if (now - restMb < 300) break;
      await sleep(2000);
    }
    console.log(
      `200 exports in ${burstMs} ms; rest ${restMb.toFixed(0)} MB, after burst ${peak.toFixed(0)} MB, ${((Date.now() - settleStart) / 1000).toFixed(0)} s later ${now.toFixed(0)} MB`,
    );
    assert.ok(now - restMb < 300, `memory ${now.toFixed(0)} MB vs rest ${restMb.toFixed(0)} MB`);
  });

  it("streams a 1 GiB upload to disk: the server's memory rises by under 100 MB", async () => {
    const path = join(dir, "big.nc");
    const width = 1024;
    const record = new Float32Array(width * width).fill(1.5);
    await writeNetcdf3(path, {
      dims: [
        { name: "time", size: 256, record: true },
        { name: "lat", size: width },
        { name: "lon", size: width },
      ],
      vars: [
        { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: (r) => [r] },
        { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: latitudes(width) },
        { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: longitudes(width) },
        { name: "v", dims: ["time", "lat", "lon"], type: "float", data: () => record },
      ],
    });
    const before = await server.rssMb();
    let peak = before;
    let uploading = true;
    const watch = (async () => {
      while (uploading) {
        peak = Math.max(peak, await server.rssMb());
        await sleep(50);
      }
    })();
    const form = new FormData();
    form.set("f", "json");
    form.set("token", token);
    form.set("title", "One gibibyte");
    form.set("file", await openAsBlob(path), "big.nc");
    const t0 = Date.now();
    const answer = (await (await fetch(`${server.url}/sharing/rest/content/users/ana/addItem`, { method: "POST", body: form })).json()) as {
      success?: boolean;
    };
    uploading = false;
    await watch;
    console.log(`1 GiB upload in ${Date.now() - t0} ms; server memory ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at most`);
    assert.equal(answer.success, true, JSON.stringify(answer));
    assert.ok(peak - before < 100, `memory rose by ${(peak - before).toFixed(0)} MB`);
  });
});

function latitudes(n: number): number[] {
  return Array.from({ length: n }, (_, i) => 90 - (180 * (i + 0.5)) / n);
}
function longitudes(n: number): number[] {
  return Array.from({ length: n }, (_, i) => -180 + (360 * (i + 0.5)) / n);
}
