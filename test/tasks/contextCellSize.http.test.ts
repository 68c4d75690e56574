/**
 * context.cellSize naming a raster, through a real server: the descriptor goes through the
 * same resolution as a task's input (a hosted image service's URL or its item id), and the
 * output takes that raster's cell size. COADS is on 2° cells, the SST sample on 4°, so a
 * Subset of the SST sample with COADS's cell size has 2° cells (worked by hand).
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const TASK = "SubsetMultidimensionalRaster";
const GP = `/rest/services/System/RasterAnalysisTools/GPServer/${TASK}`;
const REAL = fileURLToPath(new URL("../fixtures/real/", import.meta.url)).replace(/\/$/, "");
const SAMPLES = dirname(fileURLToPath(new URL("../../samples/sst_climatology_4deg.nc", import.meta.url)));
let server: TestServer;
let token: string;

before(async () => {
  server = await startTestServer({ store: [`fileShare:real=${REAL}`, `fileShare:samples=${SAMPLES}`] });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
});
after(() => server.close());

async function subset(name: string, input: string, context: unknown): Promise<{ url: string; itemId: string }> {
  const submitted = await server.call(
    `${GP}/submitJob`,
    {
      inputMultidimensionalRaster: JSON.stringify({ uri: input }),
      outputName: JSON.stringify({ serviceProperties: { name } }),
      context: JSON.stringify(context),
    },
    { token },
  );
  assert.ok(submitted.jobId, JSON.stringify(submitted));
  const job = await waitForJob(server, TASK, submitted.jobId, token);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
  return (await server.call(`${GP}/jobs/${submitted.jobId}/results/outputMultidimensionalRaster`, {}, { token })).value;
}

describe("context.cellSize as a raster over HTTP", () => {
  let coads: { url: string; itemId: string };
  before(async () => {
    // A small window of COADS published as a hosted image service (2° cells).
    coads = await subset("coads_cells", "/fileShares/real/coads_climatology.cdf", {
      extent: { xmin: 100, ymin: -10, xmax: 120, ymax: 10 },
    });
  });

  for (const form of ["url", "itemId"] as const) {
    it(`{"${form}": ...} of a hosted image service gives its cell size`, { timeout: 60_000 }, async () => {
      const name = `sst_cells_${form}`;
      await subset(name, "/fileShares/samples/sst_climatology_4deg.nc", {
        cellSize: { [form]: coads[form] },
        extent: { xmin: 100, ymin: -20, xmax: 140, ymax: 20 },
      });
      const info = await server.call(`/rest/services/Hosted/${name}/ImageServer`, {}, { token });
      assert.deepEqual([info.pixelSizeX, info.pixelSizeY], [2, 2]);
    });
  }

  it("a raster that does not resolve is a 400 at submit naming context.cellSize", async () => {
    for (const cellSize of [{ url: "https://elsewhere.example/arcgis/rest/services/x/ImageServer" }, { itemId: "0123456789abcdef" }]) {
      const r = await server.call(
        `${GP}/submitJob`,
        {
          inputMultidimensionalRaster: JSON.stringify({ uri: "/fileShares/samples/sst_climatology_4deg.nc" }),
          outputName: JSON.stringify({ serviceProperties: { name: "never" } }),
          context: JSON.stringify({ cellSize }),
        },
        { token },
      );
      assert.equal(r.error?.code, 400, JSON.stringify(r));
      assert.match(JSON.stringify(r.error), /context\.cellSize/);
    }
  });
});
