/**
 * A hand-made global grid for the antimeridian tests: square cells round the globe stored
 * 0..360 east (the storage whose seam is at Greenwich), each cell's value its own longitude
 * east of Greenwich, so the value a map should show at a place is known without Strata.
 * Published as a hosted service by a Subset job, as a user would.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { latLonDims, latLonVars } from "./latLonAxes.js";
import { writeNetcdf3 } from "./netcdf3Writer.js";
import { type TestServer, waitForJob } from "./server.js";

/** The file eastGrid writes, under the directory given. */
const EAST_GRID_FILE = "east.nc";

/**
 * Write `dir`/east.nc: cells of `cell` degrees (360 and 180 multiples of it) centred on
 * cell/2 .. 360 - cell/2 east and -90 + cell/2 .. 90 - cell/2 north; variable `east` (float).
 */
export async function writeEastGrid(dir: string, cell: number): Promise<void> {
  const lons = Array.from({ length: 360 / cell }, (_, i) => cell / 2 + cell * i);
  const lats = Array.from({ length: 180 / cell }, (_, j) => -90 + cell / 2 + cell * j);
  await writeNetcdf3(join(dir, EAST_GRID_FILE), {
    dims: latLonDims(lats, lons),
    vars: [...latLonVars(lats, lons), { name: "east", dims: ["lat", "lon"], type: "float", data: lats.flatMap(() => lons) }],
  });
}

/** Publish the grid from the server's file share `share` (which holds eastGrid's file) as hosted service `name`. */
export async function publishEastGrid(server: TestServer, token: string, share: string, name: string): Promise<void> {
  const submitted = await server.call(
    `${server.tools}/SubsetMultidimensionalRaster/submitJob`,
    { inputMultidimensionalRaster: JSON.stringify({ uri: `/fileShares/${share}/${EAST_GRID_FILE}` }), outputName: name },
    { token },
  );
  const job = await waitForJob(server, "SubsetMultidimensionalRaster", submitted.jobId, token);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
}
