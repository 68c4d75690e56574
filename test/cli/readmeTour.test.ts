/**
 * The README's curl tour, run as written against a fresh server (issue 15): the block under
 * "A tour with curl" is taken from README.md, only its base URL and password placeholder are
 * replaced by this server's, and bash runs it with curl. So the README cannot drift from
 * what the server answers (the poll loop included).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type ServerProcess, startServerProcess } from "../helpers/serverProcess.js";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));
const DEFAULT_BASE = "http://127.0.0.1:8080/arcgis";
const PLACEHOLDER = "<the one-time password>";

/** The first ```sh block after the heading. */
function tourOf(readme: string, heading = "## A tour with curl"): string {
  const section = readme.slice(readme.indexOf(heading));
  const m = section.match(/```sh\n([\s\S]*?)\n```/);
  if (!readme.includes(heading) || !m) throw new Error(`README.md has no sh block under "${heading}"`);
  return m[1];
}

const hasCurl = spawnSync("curl", ["--version"]).status === 0;
let dir = "";
let server: ServerProcess;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-readme-"));
  if (hasCurl) server = await startServerProcess(join(dir, "data"), ["--workers", "2"]);
});
after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the README's curl tour", () => {
  it(
    "runs as written against a fresh server: token, submit, poll to esriJobSucceeded, result, info, PNG, NetCDF",
    { skip: !hasCurl && "no curl", timeout: 180_000 },
    async () => {
      const tour = tourOf(await readFile(README, "utf8"));
      assert.ok(
        tour.includes(DEFAULT_BASE) && tour.includes(PLACEHOLDER),
        "the tour names the default base URL and the password placeholder",
      );
      assert.match(tour, /while :; do[\s\S]*jobStatus[\s\S]*done/, "the tour polls the job");
      const password = (await readFile(join(dir, "data", "initial-admin-password"), "utf8")).trim();
      const script = tour.replaceAll(DEFAULT_BASE, server.url).replaceAll(PLACEHOLDER, password);
      const run = spawnSync("bash", ["-e", "-o", "pipefail", "-c", script], { cwd: dir, encoding: "utf8", timeout: 150_000 });
      const shown = `exit ${run.status}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
      assert.equal(run.status, 0, shown);

      const statuses = run.stdout.split("\n").filter((l) => /^esriJob\w+$/.test(l));
      assert.equal(statuses.at(-1), "esriJobSucceeded", shown);
      assert.ok(
        statuses.slice(0, -1).every((s) => ["esriJobSubmitted", "esriJobWaiting", "esriJobExecuting"].includes(s)),
        shown,
      );
      assert.match(run.stdout, /^job j[0-9a-f]+$/m, shown);
      const result = run.stdout.match(/\{"paramName":"outputMultidimensionalRaster"[^\n]*?\}\}/);
      assert.ok(result, shown);
      assert.equal(JSON.parse(result[0]).value.url, `${server.url}/rest/services/Hosted/winds_1990/ImageServer`);
      const info = JSON.parse(run.stdout.slice(run.stdout.indexOf('{\n  "multidimensionalInfo"')));
      const variable = info.multidimensionalInfo.variables[0];
      assert.equal(variable.name, "UWND");
      const times: number[] = variable.dimensions.find((d: { name: string }) => d.name === "StdTime").values;
      assert.equal(times.length, 12);
      assert.ok(times.every((t) => new Date(t).getUTCFullYear() === 1990));

      const png = await readFile(join(dir, "july.png"));
      assert.equal(png.subarray(1, 4).toString(), "PNG", "july.png is a PNG");
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [720, 512]);
      const nc = await readFile(join(dir, "winds.nc"));
      assert.equal(nc.subarray(0, 8).toString("latin1"), "\x89HDF\r\n\x1a\n", "winds.nc is NetCDF-4 (HDF5)");
    },
  );
});
