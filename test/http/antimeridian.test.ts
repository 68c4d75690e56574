/**
 * A published global grid stored 0..360, over HTTP as the Maps SDK asks it (issue 12 §5):
 * 0.25° cells centred on 0.125..359.875 east, each value its cell's own longitude east of
 * Greenwich, published by a Subset job (so with the overview levels an output gets). The
 * root reports -180..180; exportImage in Web Mercator, for the whole world and for bboxes
 * beyond ±180 (a map panned round the world), draws at every pixel the longitude under it:
 * a value is a cell's centre, or an overview's mean of whole cells, which for values linear in
 * longitude is the centre of the cells averaged; either is within half a cell of the pixel's
 * longitude, the cell being the finest whose size does not exceed the pixel's.
 */
import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fromArrayBuffer } from "geotiff";
import { publishEastGrid, writeEastGrid } from "../helpers/eastGrid.js";
import { type TestServer, startTestServer } from "../helpers/server.js";

const SERVICE = "/rest/services/Hosted/quarter_degree_east/ImageServer";
/** Half the Web Mercator world's width, metres (π × 6378137). */
const HALF_WORLD = Math.PI * 6378137;
const dir = join(tmpdir(), `strata-antimeridian-http-${process.pid}`);
let server: TestServer;
/** The publisher's: the output service is theirs, private. */
let token: string;

before(async () => {
  await mkdir(dir, { recursive: true });
  await writeEastGrid(dir, 0.25);
  server = await startTestServer({ store: [`fileShare:work=${dir}`] });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
  await publishEastGrid(server, token, "work", "quarter_degree_east");
});
after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** exportImage of a Web Mercator bbox [x0, x1] about the equator, 16 rows of square cells, as a float tiff: the middle row's values. */
async function middleRow(x0: number, x1: number, width: number): Promise<Float32Array> {
  const half = (((x1 - x0) / width) * 16) / 2;
  const params = { bbox: `${x0},${-half},${x1},${half}`, bboxSR: "102100", imageSR: "102100", size: `${width},16`, format: "tiff" };
  const response = await fetch(`${server.url}${SERVICE}/exportImage?${new URLSearchParams({ ...params, f: "image", token })}`);
  assert.equal(response.status, 200);
  const image = await (await fromArrayBuffer(await response.arrayBuffer())).getImage();
  const [values] = (await image.readRasters()) as unknown as Float32Array[];
  assert.equal(image.getWidth(), width);
  return values.subarray(8 * width, 9 * width);
}

/** Each column's value is the longitude (east, 0..360) under its centre, within `tolerance` degrees. */
function checkLongitudes(row: Float32Array, x0: number, x1: number, tolerance: number, what: string): void {
  const width = row.length;
  row.forEach((v, i) => {
    const lon = ((x0 + ((i + 0.5) * (x1 - x0)) / width) / HALF_WORLD) * 180;
    const east = ((lon % 360) + 360) % 360;
    // Around Greenwich the nearest longitude may be across the seam (359.9 vs 0.1).
    const off = Math.min(Math.abs(v - east), 360 - Math.abs(v - east));
    assert.ok(off <= tolerance, `${what}: column ${i} at ${lon.toFixed(3)}° shows ${v}, ${off.toFixed(3)}° away`);
  });
}

describe("a published 0..360 global grid over HTTP", () => {
  it("reports -180..180", async () => {
    const root = await server.call(SERVICE, {}, { token, method: "GET" });
    const e = root.extent;
    assert.deepEqual([e.xmin, e.ymin, e.xmax, e.ymax], [-180, -90, 180, 90]);
  });

  it("exportImage of the whole Web Mercator world draws every longitude, both halves", async () => {
    // 720 pixels of 0.5°: a value is within 0.25° (half an 0.5° cell) of its pixel's longitude.
    checkLongitudes(await middleRow(-HALF_WORLD, HALF_WORLD, 720), -HALF_WORLD, HALF_WORLD, 0.25 + 1e-4, "world");
  });

  it("a bbox beyond 180, as a map panned east round the world asks, draws the ground it wraps onto", async () => {
    // 0..360 east and one more world: 720 pixels of 0.5° each.
    checkLongitudes(await middleRow(0, 2 * HALF_WORLD, 720), 0, 2 * HALF_WORLD, 0.25 + 1e-4, "0..360");
    checkLongitudes(await middleRow(2 * HALF_WORLD, 4 * HALF_WORLD, 720), 2 * HALF_WORLD, 4 * HALF_WORLD, 0.25 + 1e-4, "360..720");
    // A Pacific view across the antimeridian, 90 E to 90 W: 720 pixels of 0.25°.
    const [x0, x1] = [HALF_WORLD / 2, (3 * HALF_WORLD) / 2];
    checkLongitudes(await middleRow(x0, x1, 720), x0, x1, 0.125 + 1e-4, "Pacific");
  });
});
