/**
 * The entry of a work thread (started by pool.ts through piscina, never imported): runs one
 * kind of work at a time and answers plain data. Cubes it opens stay open in a small cache
 * of its own (datasets never change, so an entry never goes stale), and raster stores too.
 * Its settings (protocol.ts ThreadSettings) come as workerData.
 */
import { workerData } from "node:worker_threads";
import type { Statistics } from "../../analysis/statistics.js";
import type { Cube } from "../../cube/types.js";
import { writeNetcdf4 } from "../../io/netcdf4Write.js";
import { openCube } from "../../io/open.js";
import { joinLocation } from "../../io/s3Location.js";
import { directorySize } from "../../store/diskUsage.js";
import { type RasterStore, openRasterStore } from "../../store/rasterStore.js";
import { copyIntoStore } from "../../tasks/subset.js";
import { planExport, renderExport } from "../exportImage.js";
import { identify } from "../identify.js";
import { overviewFor } from "../overviews.js";
import { caseInsensitive } from "../requestValues.js";
import { getSamples } from "../samples.js";
import { computeStatisticsHistograms } from "../statisticsHistograms.js";
import { storeUpload } from "../upload.js";
import { type ThreadAnswer, type ThreadSettings, type ThreadTask, type WorkRequest, type WorkResult, flattenError } from "./protocol.js";

const settings = workerData as ThreadSettings;

/** Open cubes kept per thread: enough for the services a map shows at once. */
const CUBES_KEPT = 8;
const cubes = new Map<string, Promise<Cube>>();
const stores = new Map<string, Promise<RasterStore>>();

async function cubeAt(path: string): Promise<{ cube: Cube; statistics: Readonly<Record<string, Statistics | null>> }> {
  let opening = cubes.get(path);
  if (opening) {
    cubes.delete(path);
  } else {
    opening = openCube(path, "the service's data");
    opening.catch(() => cubes.delete(path));
  }
  cubes.set(path, opening);
  while (cubes.size > CUBES_KEPT) {
    const [oldest, value] = cubes.entries().next().value as [string, Promise<Cube>];
    cubes.delete(oldest);
    void value.then((c) => c.close()).catch(() => undefined);
  }
  const cube = await opening;
  return { cube, statistics: (cube.attributes["strata:statistics"] ?? {}) as Record<string, Statistics | null> };
}

function storeAt(dataDir: string): Promise<RasterStore> {
  let store = stores.get(dataDir);
  if (!store) {
    // The server opened (and swept) the store; a thread only attaches to it.
    store = openRasterStore(dataDir, { sweep: false });
    stores.set(dataDir, store);
  }
  return store;
}

type Handlers = { [K in keyof WorkRequest]: (input: WorkRequest[K]) => Promise<WorkResult[K]> };

const HANDLERS: Handlers = {
  async export({ path, params, validWindow }) {
    const { cube, statistics } = await cubeAt(path);
    const plan = { ...planExport(cube, statistics, caseInsensitive({ ...params })), ...(validWindow ? { validWindow } : {}) };
    const level = plan.slice && overviewFor(cube, plan.slice.variable.name, plan.target);
    const source = level ? (await cubeAt(joinLocation(path, level.path))).cube : cube;
    return renderExport(source, statistics, plan, { encoder: settings.imageEncoder });
  },
  async identify({ path, params }) {
    return identify((await cubeAt(path)).cube, caseInsensitive({ ...params }));
  },
  async getSamples({ path, params }) {
    return getSamples((await cubeAt(path)).cube, caseInsensitive({ ...params }));
  },
  async computeStatisticsHistograms({ path, params }) {
    return computeStatisticsHistograms((await cubeAt(path)).cube, caseInsensitive({ ...params }));
  },
  async download({ source, target, variables, selections, dimensionNames }) {
    const { cube } = await cubeAt(source);
    await writeNetcdf4(cube, target, { variables, select: (v) => selections[v.name], ...(dimensionNames ? { dimensionNames } : {}) });
    return { bytes: await directorySize(target) };
  },
  async storeUpload({ dataDir, upload, fileName, maxBytes }) {
    return storeUpload(await storeAt(dataDir), upload, fileName, maxBytes);
  },
  async copyIntoStore({ dataDir, source, label }) {
    const store = await storeAt(dataDir);
    const cube = await openCube(source, label);
    try {
      const datasetId = await copyIntoStore(store, cube);
      return { datasetId, bytes: await directorySize(await store.resolve(datasetId)) };
    } finally {
      await cube.close();
    }
  },
};

export default async function run(task: ThreadTask): Promise<ThreadAnswer> {
  try {
    const handler = HANDLERS[task.kind] as (input: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(task.input) };
  } catch (e) {
    return { ok: false, error: flattenError(e) };
  }
}
