/**
 * The entry of a NetCDF-4 writing thread (started by netcdf4InThread.ts, never imported):
 * opens the source, writes the selection with writeNetcdf4, posts "done" or "failed". The
 * HDF5 library (h5wasm, ~600 MB once loaded) and its compression live and die with it.
 */
import { parentPort, workerData } from "node:worker_threads";
import { InvalidInputError } from "../cube/errors.js";
import { writeNetcdf4 } from "./netcdf4Write.js";
import type { Netcdf4ThreadData, FromNetcdf4Thread } from "./netcdf4InThread.js";
import { openCube } from "./open.js";

if (!parentPort) throw new Error("src/io/netcdf4Thread.ts runs as a worker thread; it is not a module to import.");
const port = parentPort;
const { source, target, variables, selections } = workerData as Netcdf4ThreadData;
const post = (m: FromNetcdf4Thread): void => port.postMessage(m);

try {
  const cube = await openCube(source);
  try {
    await writeNetcdf4(cube, target, { variables, select: (v) => selections[v.name] });
  } finally {
    await cube.close();
  }
  post({ type: "done" });
} catch (err) {
  post({
    type: "failed",
    message: err instanceof Error ? err.message : String(err),
    ...(err instanceof InvalidInputError && err.parameter ? { parameter: err.parameter } : {}),
    stack: err instanceof Error ? err.stack : undefined,
  });
}
