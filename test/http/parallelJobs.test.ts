/**
 * A job shares its work over threads: GenerateTrendRaster with parallelProcessingFactor 4
 * streams its input on two threads (one per two of the job's: it says so) and writes what the
 * same job on one thread writes; the statistics of the service agree.
 */
import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { openCube } from "../../src/io/open.js";
import { openRasterStore } from "../../src/store/rasterStore.js";
import { writeBigCube } from "../helpers/bigCube.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const TASK = "GenerateTrendRaster";
const GP = `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}`;
const dir = join(tmpdir(), `strata-parallel-${process.pid}`);
let server: TestServer;
let token: string;

before(async () => {
  await mkdir(dir, { recursive: true });
  // 200 daily slices of 180 × 360: six trend tiles.
  await writeBigCube(join(dir, "daily.nc"), { times: 200, height: 180, width: 360 });
  server = await startTestServer({ store: [`fileShare:work=${dir}`], "job-threads": "4" });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function trend(name: string, factor: string) {
  const submitted = await server.call(
    `${GP}/submitJob`,
    {
      inputMultidimensionalRaster: '{"uri":"/fileShares/work/daily.nc"}',
      outputName: name,
      dimension: "StdTime",
      trendLineType: "HARMONIC",
      r2: "true",
      context: JSON.stringify({ parallelProcessingFactor: factor }),
    },
    { token },
  );
  const job = await waitForJob(server, TASK, submitted.jobId, token);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
  const result = await server.call(`${GP}/jobs/${submitted.jobId}/results/outputMultidimensionalRaster`, {}, { token });
  const item = (await server.strata.db.one<{ properties: string }>("SELECT properties FROM items WHERE id = ?", [result.value.itemId]))!;
  const datasetId = (JSON.parse(item.properties) as { datasetId: string }).datasetId;
  return { job, path: await (await openRasterStore(server.dataDir, { sweep: false })).resolve(datasetId) };
}

it("parallelProcessingFactor 4 streams on two threads and writes what one thread writes", { timeout: 180_000 }, async () => {
  const one = await trend("trend_one_thread", "1");
  const two = await trend("trend_two_threads", "4");
  const said = (job: { messages: { description: string }[] }) => job.messages.map((m) => m.description);
  assert.ok(
    said(two.job).some((m) => m.startsWith("Working on 2 threads of the 4 allowed: a pass streaming the input")),
    JSON.stringify(said(two.job)),
  );
  assert.ok(!said(one.job).some((m) => m.startsWith("Working on")), JSON.stringify(said(one.job)));
  const [a, b] = [await openCube(one.path), await openCube(two.path)];
  try {
    const v = a.variables[0];
    const window = { x: 0, y: 0, width: a.grid.width, height: a.grid.height };
    const dims = v.dimensions.map((d) => [0, d.values.length] as const);
    const [p, q] = [await v.read({ dims, window }), await b.variables[0].read({ dims, window })];
    assert.equal(p.data.length, 6 * 180 * 360); // Slope, Intercept, sin1, cos1, RMSE, R2
    // A record a day: the fit streams, and the two threads' sums merge in another order than
    // one thread adds them, so values agree to the last bits of a float64, not bit for bit.
    for (let i = 0; i < p.data.length; i++) {
      const [x, y] = [p.data[i], q.data[i]];
      if (!(Object.is(x, y) || Math.abs(x - y) <= 1e-10 * Math.max(1, Math.abs(x)))) assert.fail(`value ${i}: ${x} vs ${y}`);
    }
    type Stats = Record<string, { count: number; min: number; max: number; mean: number; stddev: number }>;
    const [s, t] = [a.attributes["strata:statistics"] as Stats, b.attributes["strata:statistics"] as Stats];
    // Each band's statistics too, merged from the two threads' (key <variable>/<band>).
    assert.ok(
      Object.keys(s).some((k) => k.endsWith("/Harmonic_cos1")),
      JSON.stringify(Object.keys(s)),
    );
    assert.deepEqual(Object.keys(t).sort(), Object.keys(s).sort());
    for (const name of Object.keys(s)) {
      assert.equal(t[name].count, s[name].count);
      for (const k of ["min", "max"] as const) assert.ok(Math.abs(t[name][k] - s[name][k]) <= 1e-10 * Math.max(1, Math.abs(s[name][k])), k);
      // A variable's to 1e-10 of themselves; a band's as the values agree (relative, or absolute
      // below 1), since a band's (a slope's, per day) can be tiny.
      const band = name.includes("/");
      const meanScale = band ? Math.max(1, Math.abs(s[name].mean), s[name].stddev) : Math.abs(s[name].mean);
      const sdScale = band ? meanScale : s[name].stddev;
      assert.ok(Math.abs(t[name].mean - s[name].mean) <= 1e-10 * meanScale, `${name}: ${t[name].mean} vs ${s[name].mean}`);
      assert.ok(Math.abs(t[name].stddev - s[name].stddev) <= 1e-10 * sdScale, `${name}: ${t[name].stddev} vs ${s[name].stddev}`);
    }
  } finally {
    await a.close();
    await b.close();
  }
});
