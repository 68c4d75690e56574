/**
 * A NetCDF download of a tiny cube is quick after the server has been idle (issue 15): the
 * writer lane keeps a thread with h5wasm loaded, where a download used to start a thread and
 * load h5wasm each time (3-3.5 s, the server at 914 MB, when run from TypeScript sources).
 * Measured on a server in its own process; the file is checked to be NetCDF-4 (HDF5).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { strata } from "../helpers/cli.js";
import { type ServerProcess, startServerProcess } from "../helpers/serverProcess.js";

let dir = "";
let server: ServerProcess;
let token = "";
/** Past the work pool's idle time (10 s), after which idle threads exit. */
const IDLE_MS = 11_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-download-warm-"));
  server = await startServerProcess(join(dir, "data"), ["--work-threads", "2"]);
  const added = await strata("user", "add", "ana", "--role", "publisher", "--password", "ana-password-1", "--data-dir", join(dir, "data"));
  assert.equal(added.code, 0, added.stderr);
  const body = new URLSearchParams({ username: "ana", password: "ana-password-1", client: "requestip", f: "json" });
  token = ((await (await fetch(`${server.url}/sharing/rest/generateToken`, { method: "POST", body })).json()) as { token: string }).token;
});
after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function download(): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(`${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer/download?format=netcdf&time=0&token=${token}`);
  const file = new Uint8Array(await r.arrayBuffer());
  const ms = performance.now() - t0;
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "application/x-netcdf");
  assert.deepEqual([...file.subarray(0, 8)], [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a], "an HDF5 signature");
  return ms;
}

describe("NetCDF download after an idle spell", () => {
  it("answers a second tiny download in under 1.5 s, and the warm writer holds under 150 MB", async () => {
    const restMb = await server.rssMb();
    const first = await download();
    await sleep(IDLE_MS);
    const second = await download();
    const nowMb = await server.rssMb();
    console.log(
      `tiny download: first ${first.toFixed(0)} ms, after ${IDLE_MS / 1000} s idle ${second.toFixed(0)} ms; server ${restMb.toFixed(0)} MB at rest, ${nowMb.toFixed(0)} MB after`,
    );
    assert.ok(second < 1500, `second download took ${second.toFixed(0)} ms`);
    assert.ok(nowMb - restMb < 150, `the server grew by ${(nowMb - restMb).toFixed(0)} MB`);
  });
});
