/**
 * writeNetcdf4 on a thread of its own: a server that offers downloads keeps the HDF5
 * library's memory and its compression work off its event loop. The selection travels as
 * data (variable names, indices per dimension), the cube is reopened from its path.
 */
import { rm } from "node:fs/promises";
import { InvalidInputError } from "../cube/errors.js";
import type { DimensionSelection } from "./netcdf4Write.js";
import { startModuleThread } from "./thread.js";

/** workerData of netcdf4Thread.ts. */
export interface Netcdf4ThreadData {
  /** Path of the raster to read. */
  readonly source: string;
  /** Path of the NetCDF-4 file to write. */
  readonly target: string;
  readonly variables: readonly string[];
  /** Indices to keep per variable, by dimension name (absent: all). */
  readonly selections: Readonly<Record<string, DimensionSelection>>;
}

/** Thread -> caller: one "done" or "failed". */
export type FromNetcdf4Thread = { type: "done" } | { type: "failed"; message: string; parameter?: string; stack?: string };

/**
 * @example
 * await writeNetcdf4InThread({ source: datasetPath, target: "/data/tmp/x.nc", variables: ["UWND"], selections: { UWND: { StdTime: [0, 1] } } });
 */
export function writeNetcdf4InThread(data: Netcdf4ThreadData, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const worker = startModuleThread(import.meta.url, "netcdf4Thread", data);
    let outcome: { ok: true } | { error: Error } | undefined;
    const stop = (): void => void worker.terminate();
    signal?.addEventListener("abort", stop, { once: true });
    worker.on("message", (m: FromNetcdf4Thread) => {
      if (m.type === "done") outcome = { ok: true };
      else {
        const error = m.parameter ? new InvalidInputError(m.message, { parameter: m.parameter }) : new Error(m.message);
        if (m.stack) error.stack = m.stack;
        outcome = { error };
      }
      stop(); // one file per thread: its work is done
    });
    worker.on("error", (err) => {
      outcome ??= { error: err };
    });
    worker.on("exit", (code) => {
      signal?.removeEventListener("abort", stop);
      if (outcome && "ok" in outcome) return resolve();
      const error = outcome
        ? outcome.error
        : signal?.aborted
          ? signal.reason
          : new Error(`The NetCDF-4 writer's thread stopped unexpectedly (exit code ${code}).`);
      // A thread stopped mid-write leaves the writer's partial file behind.
      void rm(`${data.target}.partial`, { force: true }).finally(() => reject(error));
    });
  });
}
