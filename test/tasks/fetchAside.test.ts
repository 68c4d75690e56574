/**
 * A streamed trend's passes write nothing while they read (tasks/trendStreaming.ts
 * walk.fetchAside): on a job of two threads, its NetCDF-4 chunks are read and inflated on a
 * thread beside the one summing them (io/hdf5/chunkFetcher.ts), the job's message says so, and
 * the trend is the line the cube was made of (worked out from its formula) and the same to the
 * bit as on one thread, which fetches nothing aside. The input: a synthetic cube copied to
 * NetCDF-4 by Strata's writer (gzip chunks of 1 × 256 × 256).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { chunksFetchedAside } from "../../src/io/hdf5/chunkFetcher.js";
import { readTrendMetadata } from "../../src/analysis/trendModel.js";
import { writeNetcdf4 } from "../../src/io/netcdf4Write.js";
import { openCube } from "../../src/io/open.js";
import { openRasterStore } from "../../src/store/rasterStore.js";
import { type TrendOptions, trendTask } from "../../src/tasks/trend.js";
import type { InputLocation, ParseEnv } from "../../src/tasks/types.js";
import { writeBigCube } from "../helpers/bigCube.js";
import { fakeRunContext } from "../helpers/runContext.js";

const SHAPE = { times: 40, height: 256, width: 512 }; // one chunk a step (Strata's writer: 1 × 256 × 512)
// Noisy enough that a chunk stays big once deflated (a smooth one shrinks below the fetcher's threshold).
const value = (t: number, row: number, col: number) => Math.fround(0.02 * t + Math.sin(row * 12.9898 + col * 78.233) * 43.7);

let dir = "";
let input = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-fetch-aside-"));
  const nc3 = join(dir, "cube.nc");
  await writeBigCube(nc3, SHAPE, value);
  input = join(dir, "cube_nc4.nc");
  const cube = await openCube(nc3);
  try {
    await writeNetcdf4(cube, input);
  } finally {
    await cube.close();
  }
});
after(() => rm(dir, { recursive: true, force: true }));

const env: ParseEnv = {
  resolveInput: async () => ({ location: { path: input }, warnings: [] }),
  resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
  openCube: (location: InputLocation) => openCube(location.path!),
};

/** The LINEAR trend (with RMSE) on `threads` threads, streamed (a small tile budget); its values, its messages, and the chunks fetched aside. */
async function trend(threads: number): Promise<{ values: Float64Array; bands: readonly string[]; messages: string[]; fetched: number }> {
  const { options } = await trendTask.parse(
    {
      inputMultidimensionalRaster: '{"uri":"cube"}',
      outputName: '{"serviceProperties":{"name":"out"}}',
      dimension: "StdTime",
      rmse: "true",
    },
    env,
  );
  const dataDir = join(dir, String(threads));
  const { ctx, messages } = fakeRunContext(dataDir, undefined, { task: trendTask, threads, local: true });
  const before = chunksFetchedAside();
  const { datasetId } = await trendTask.run({ ...(options as TrendOptions), tileBudgetBytes: 4 * 1024 * 1024 }, ctx);
  const fetched = chunksFetchedAside() - before;
  const out = await openCube(await (await openRasterStore(dataDir, { sweep: false })).resolve(datasetId));
  try {
    const v = out.variables[0];
    const meta = readTrendMetadata(v.attributes);
    assert.ok(typeof meta !== "string", String(meta));
    assert.deepEqual(
      v.dimensions.map((d) => d.name),
      ["Band"],
    );
    const slab = await v.read({ dims: v.dimensions.map((d) => [0, d.values.length] as const) });
    return { values: slab.data as Float64Array, bands: meta.bands, messages, fetched };
  } finally {
    await out.close();
  }
}

it("fetches a streamed trend's chunks aside on two threads, to the same bits as one thread", async () => {
  const one = await trend(1);
  const two = await trend(2);
  assert.ok(
    two.messages.some((m) => m.startsWith("Streaming in storage order")),
    JSON.stringify(two.messages),
  );
  assert.equal(one.fetched, 0, "a job of one thread fetched aside");
  // Every chunk (one a step), in each pass: the cube is a line to float32's rounding, so every
  // fit is close enough to perfect for the residual pass to read the input again.
  assert.equal(two.fetched, SHAPE.times * 2);
  assert.ok(
    two.messages.some((m) => /a thread beside each reads and inflates its HDF5 chunks/.test(m)),
    JSON.stringify(two.messages),
  );
  assert.ok(!one.messages.some((m) => /beside/.test(m)));
  assert.equal(one.values.length, two.values.length);
  // The cube is 0.02·t plus a constant a pixel (t in days since 2000-01-01, x in days since
  // 1970: docs/tasks.md), float32-rounded: Slope 0.02 a day, Intercept that constant less
  // 0.02 × 10957 days, RMSE the rounding alone.
  const pixels = SHAPE.height * SHAPE.width;
  const band = (name: string) => two.bands.indexOf(name) * pixels;
  for (let p = 0; p < pixels; p += 397) {
    const [row, col] = [Math.floor(p / SHAPE.width), p % SHAPE.width];
    const constant = value(0, row, col);
    assert.ok(Math.abs(two.values[band("Slope") + p] - 0.02) < 1e-6, `pixel ${p}: Slope ${two.values[band("Slope") + p]}`);
    assert.ok(Math.abs(two.values[band("Intercept") + p] - (constant - 0.02 * 10957)) < 1e-3, `pixel ${p}: Intercept`);
    assert.ok(two.values[band("RMSE") + p] < 1e-5, `pixel ${p}: RMSE ${two.values[band("RMSE") + p]}`);
  }
  for (let i = 0; i < one.values.length; i++)
    if (!Object.is(one.values[i], two.values[i])) assert.fail(`value ${i}: ${one.values[i]} vs ${two.values[i]}`);
});
