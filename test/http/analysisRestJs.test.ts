/**
 * Issue 4's acceptance path through the REST API with ArcGIS REST JS: a trend from
 * monthly_navy_winds.cdf, then a monthly prediction for 1993-1995 from that trend raster;
 * the predicted values equal the golden ones (numpy, scripts/goldens/make_analysis_goldens.py).
 * Each job's polling stops when its test times out or fails, so a stuck job fails the test
 * rather than keeping the run alive.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { ArcGISIdentityManager, Job } from "@esri/arcgis-rest-request";
import { openCube } from "../../src/io/open.js";
import { getItem } from "../../src/portal/items.js";
import { REAL } from "../helpers/golden.js";
import { waitForRestJsJob } from "../helpers/restJsJob.js";
import { type TestServer, startTestServer } from "../helpers/server.js";

interface Sample {
  variable: string;
  index: Record<string, number>;
  row: number;
  col: number;
  value: number | null;
}
const TRENDS = JSON.parse(readFileSync(new URL("../golden/analysis/trend.json", import.meta.url), "utf8")) as {
  name: string;
  params: Record<string, string>;
}[];
const PREDICTIONS = JSON.parse(readFileSync(new URL("../golden/analysis/predict.json", import.meta.url), "utf8")) as {
  name: string;
  trend: string;
  params: Record<string, string>;
  times: number[];
  samples: Sample[];
}[];

let server: TestServer;
let authentication: ArcGISIdentityManager;

before(async () => {
  server = await startTestServer({ store: [`fileShare:real=${REAL}`] });
  await server.addUser("ana", "publisher", "ana-password-1");
  authentication = await ArcGISIdentityManager.signIn({
    username: "ana",
    password: "ana-password-1",
    portal: `${server.url}/sharing/rest`,
  });
});
after(() => server.close());

/** A job's longest wait: a stuck job fails its test at this deadline or the test's timeout, whichever comes first. */
const JOB_DEADLINE_MS = 120_000;

async function runJob(task: string, params: Record<string, string>, signal: AbortSignal): Promise<{ url: string; itemId: string }> {
  const job = await Job.submitJob({ url: `${server.tools}/${task}`, params, authentication });
  // Polling stops when the job ends, fails, or the wait is stopped (waitForRestJsJob).
  const info = await waitForRestJsJob(job, { signal, deadlineMs: JOB_DEADLINE_MS });
  assert.equal(info.status, "Succeeded", JSON.stringify(info)); // REST JS normalizes esriJobSucceeded
  return (await job.getResult("outputMultidimensionalRaster")).value;
}

describe("trend then prediction through the REST API", () => {
  for (const name of ["linear_navy_monthly_1993_1995", "harmonic1_navy_monthly_1993_1995"]) {
    it(name, { timeout: 180_000 }, async ({ signal }) => {
      const prediction = PREDICTIONS.find((p) => p.name === name)!;
      const trendCase = TRENDS.find((t) => t.name === prediction.trend)!;
      const trend = await runJob(
        "GenerateTrendRaster",
        {
          ...trendCase.params,
          inputMultidimensionalRaster: JSON.stringify({ uri: "/fileShares/real/monthly_navy_winds.cdf" }),
          outputName: JSON.stringify({ serviceProperties: { name: `trend_${prediction.trend}` } }),
        },
        signal,
      );
      const predicted = await runJob(
        "PredictUsingTrendRaster",
        {
          ...prediction.params,
          inputMultidimensionalRaster: JSON.stringify({ itemId: trend.itemId }),
          outputName: JSON.stringify({ serviceProperties: { name: `predict_${prediction.trend}` } }),
        },
        signal,
      );
      const item = (await getItem(server.strata.db, predicted.itemId))!;
      const cube = await openCube(await server.strata.store.resolve(item.properties.datasetId as string));
      try {
        const v = cube.variables.find((x) => x.name === "UWND")!;
        assert.deepEqual(v.dimensions[0].values, prediction.times);
        for (const s of prediction.samples) {
          const slab = await v.read({
            dims: [[s.index.StdTime, s.index.StdTime + 1]],
            window: { x: s.col, y: s.row, width: 1, height: 1 },
          });
          const got = slab.data[0];
          if (s.value === null) assert.ok(Number.isNaN(got), `${name} ${JSON.stringify(s)}: ${got}`);
          else assert.ok(Math.abs(got - s.value) <= 1e-5 * Math.max(1, Math.abs(s.value)), `${name} ${JSON.stringify(s)}: ${got}`);
        }
      } finally {
        await cube.close();
      }
    });
  }
});
