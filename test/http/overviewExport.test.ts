/**
 * Issue 11 (writer): an image zoomed out reads an overview level. A Subset job copies a
 * 600 × 1200 cube (values 4·(row + 7·col) + t, hand-checkable block means, NaN at a scatter of
 * cells) into a service, whose output then has level 2 (600 columns, the nearest to 512).
 * exportImage as a float tiff, nearest neighbour on the service's own extent, answers at
 * 1200 × 600 the cells themselves, at 600 × 300 the 2 × 2 means (values no single cell
 * holds, so they come from the level and not from the full grid resampled), and at 240 × 120
 * level 2's cells sampled. Deeper levels: test/io/zarrOverviews.test.ts.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { latLonDims, latLonVars } from "../helpers/latLonAxes.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";
import { tiffBands } from "../helpers/tiffBands.js";

const HEIGHT = 600;
const WIDTH = 1200;
const STEPS = 2;
const SUBSET = "/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster";

/** The value at step t, north-up row r, column c (NaN at a scatter of cells). */
const value = (t: number, r: number, c: number) => ((r * 31 + c * 17 + t) % 11 === 0 ? NaN : 4 * (r + 7 * c) + t);

let server: TestServer;
let share: string;
let token: string;

before(async () => {
  share = await mkdtemp(join(tmpdir(), "strata-overview-share-"));
  // Stored south-up, as NetCDF files often are: stored row k is north-up row HEIGHT - 1 - k.
  const lat = Array.from({ length: HEIGHT }, (_, k) => -59.85 + 0.3 * k);
  const lon = Array.from({ length: WIDTH }, (_, k) => -179.85 + 0.3 * k);
  await writeNetcdf3(join(share, "big.nc"), {
    dims: [{ name: "time", size: STEPS, record: true }, ...latLonDims(lat, lon)],
    vars: [
      ...latLonVars(lat, lon),
      { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: (t) => [t] },
      {
        name: "v",
        dims: ["time", "lat", "lon"],
        type: "float",
        data: (t) => Float32Array.from({ length: HEIGHT * WIDTH }, (_, i) => value(t, HEIGHT - 1 - Math.floor(i / WIDTH), i % WIDTH)),
      },
    ],
  });
  server = await startTestServer({ store: [`fileShare:big=${share}`] });
  token = await server.token("admin", server.adminPassword);
  const submitted = await server.call(
    `${SUBSET}/submitJob`,
    {
      inputMultidimensionalRaster: JSON.stringify({ uri: "/fileShares/big/big.nc" }),
      outputName: JSON.stringify({ serviceProperties: { name: "big_copy" } }),
    },
    { token },
  );
  const job = await waitForJob(server, "SubsetMultidimensionalRaster", submitted.jobId, token, 120_000);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
});

after(async () => {
  await server?.close();
  await rm(share, { recursive: true, force: true });
});

/** Means of the valid values of 2 × 2 cells of a north-up h × w field, as float32. */
function halve(field: Float32Array, h: number, w: number): Float32Array {
  const out = new Float32Array((h / 2) * (w / 2));
  for (let r = 0; r < h; r += 2) {
    for (let c = 0; c < w; c += 2) {
      const valid = [field[r * w + c], field[r * w + c + 1], field[(r + 1) * w + c], field[(r + 1) * w + c + 1]].filter(
        (x) => !Number.isNaN(x),
      );
      out[(r / 2) * (w / 2) + c / 2] = valid.length ? valid.reduce((a, b) => a + b, 0) / valid.length : NaN;
    }
  }
  return out;
}

async function exported(width: number, height: number, step: number): Promise<Float32Array> {
  const params = new URLSearchParams({
    bbox: "-180,-60,180,120",
    bboxSR: "4326",
    size: `${width},${height}`,
    format: "tiff",
    pixelType: "F32",
    interpolation: "RSP_NearestNeighbor",
    sliceId: String(step),
    f: "image",
    token,
  });
  const response = await fetch(`${server.url}/rest/services/Hosted/big_copy/ImageServer/exportImage?${params}`);
  assert.equal(response.status, 200, await response.clone().text());
  return (await tiffBands(await response.arrayBuffer())).bands[0];
}

describe("exportImage zoomed out", () => {
  for (const step of [0, 1]) {
    it(`draws slice ${step} from the level that matches the image's cells`, async () => {
      const full = Float32Array.from({ length: HEIGHT * WIDTH }, (_, i) => value(step, Math.floor(i / WIDTH), i % WIDTH));
      const two = halve(full, HEIGHT, WIDTH);
      assert.deepEqual(await exported(WIDTH, HEIGHT, step), full, "full resolution");
      assert.deepEqual(await exported(WIDTH / 2, HEIGHT / 2, step), two, "level 2");
      // Coarser than the coarsest level (its 600 columns are the nearest to 512): level 2's
      // cells nearest to each image cell's centre, (r + 0.5) · 2.5 of them in.
      const fifth = Float32Array.from({ length: (HEIGHT / 5) * (WIDTH / 5) }, (_, i) => {
        const [r, c] = [Math.floor(i / (WIDTH / 5)), i % (WIDTH / 5)];
        return two[Math.floor((r + 0.5) * 2.5) * (WIDTH / 2) + Math.floor((c + 0.5) * 2.5)];
      });
      assert.deepEqual(await exported(WIDTH / 5, HEIGHT / 5, step), fifth, "level 2 sampled");
      // Between levels, the finer one: cells of 3 source cells read level 2.
      const between = await exported(WIDTH / 3, HEIGHT / 3, step);
      const r = 37;
      const c = 101;
      const at = Math.floor(((r + 0.5) * 3) / 2) * (WIDTH / 2) + Math.floor(((c + 0.5) * 3) / 2);
      assert.equal(between[r * (WIDTH / 3) + c], two[at]);
    });
  }
});
