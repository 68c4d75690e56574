/**
 * Reading a 64×64 tile through the whole time axis of a 1 GB cube uses under 100 MB more
 * memory than at rest (measured in a child process), and returns the right values.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { promisify } from "node:util";
import { bigCubeValue, writeBigCube } from "../helpers/bigCube.js";

const run = promisify(execFile);
const SHAPE = { times: 1000, height: 360, width: 720 }; // 1000 × 360 × 720 float32 = 1.04 GB
let dir: string;
let path: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-big-"));
  path = join(dir, "big.nc");
  await writeBigCube(path, SHAPE);
});
after(() => rm(dir, { recursive: true, force: true }));

it("a 64×64 tile through 1000 time steps of a 1 GB NetCDF-3 cube adds < 100 MB", { timeout: 300_000 }, async () => {
  assert.ok((await stat(path)).size > 1e9, "the cube is over 1 GB");
  const script = new URL("../helpers/measureTileRead.ts", import.meta.url).pathname;
  const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", script, path, "tas", "300", "100", "64"]);
  const m = JSON.parse(stdout) as { addedMB: number; restMB: number; peakMB: number; seconds: number; shape: number[]; first: number[] };
  console.log(
    `tile read: ${m.addedMB.toFixed(1)} MB above rest (${m.restMB.toFixed(0)} -> ${m.peakMB.toFixed(0)} MB) in ${m.seconds.toFixed(2)} s`,
  );
  assert.deepEqual(m.shape, [1000, 64, 64]);
  assert.equal(m.first[0], bigCubeValue(0, 100, 300));
  assert.equal(m.first[1], bigCubeValue(999, 163, 363));
  assert.ok(m.addedMB < 100, `added ${m.addedMB} MB`);
});
