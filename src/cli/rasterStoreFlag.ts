/**
 * The raster store a process was started with (`--raster-store`, or local files without it),
 * opened for `strata serve` and `strata worker`: whatever stops it opening is said with the
 * flag and the reason, at start.
 */
import { InvalidInputError, StrataError } from "../cube/errors.js";
import { type RasterStore, StoreBindingError, openRasterStore } from "../store/rasterStore.js";
import type { ServeConfig } from "./serveConfig.js";

/**
 * The only server on its data directory owns the binding (`rasters/store.json`) and sweeps;
 * a process of a cluster (an API node with --queue, a worker) joins it and sweeps nothing.
 * @example
 * const store = await openConfiguredRasterStore(config, config.queue ? "join" : "own");
 */
export async function openConfiguredRasterStore(config: ServeConfig, role: "own" | "join"): Promise<RasterStore> {
  const flag = config.rasterStore;
  try {
    return await openRasterStore(config.dataDir, {
      ...(flag === undefined ? {} : { remote: flag }),
      ...(role === "join" ? { sweep: false, binding: "join" } : {}),
    });
  } catch (e) {
    if (e instanceof StoreBindingError) {
      const bound = e.bound === undefined ? "without --raster-store" : `with --raster-store ${e.bound}`;
      throw new InvalidInputError(
        `${flag === undefined ? "--raster-store is not set" : `--raster-store ${flag}`}: ${e.message}. ` +
          `Start every API node and worker sharing this data directory ${bound}; ` +
          `to change stores, stop them all and delete ${e.file}`,
        { parameter: "raster-store", cause: e },
      );
    }
    // A bucket that is missing, refused or out of reach.
    if (flag === undefined || !(e instanceof StrataError)) throw e;
    throw new InvalidInputError(`--raster-store ${flag}: ${e.message}`, { parameter: "raster-store", cause: e });
  }
}
