/**
 * What every task shares: the input, output and context parameters of its table, the
 * outputName decoding, and running a write into a fresh pending dataset of the raster store
 * (committed on success, aborted on any failure, reported so a crash can be cleaned up).
 */
import type { Cube } from "../cube/types.js";
import { openRasterStore } from "../store/rasterStore.js";
import { type ParameterSpec, parseJson, required } from "./gp.js";
import type { RunContext, RunOutput } from "./types.js";

/** The input raster parameter; `what` names what the task expects. */
export function inputParameter(displayName = "Input Multidimensional Raster", what = "The raster"): ParameterSpec {
  return {
    name: "inputMultidimensionalRaster",
    dataType: "GPRasterDataLayer",
    displayName,
    description: `${what}: {"itemId": ...}, {"url": ...} of a hosted image service, {"uri": "/fileShares/<share>/<path>"} or {"folderId": ...}.`,
    required: true,
  };
}

export const OUTPUT_NAME_PARAMETER: ParameterSpec = {
  name: "outputName",
  dataType: "GPString",
  displayName: "Output Name",
  description:
    'The output image service: {"serviceProperties":{"name":"..."}} to create one, or {"itemId": ...} of a service you own to update it.',
  required: true,
};

export const CONTEXT_PARAMETER: ParameterSpec = {
  name: "context",
  dataType: "GPString",
  displayName: "Context",
  description:
    'Environment settings as JSON: extent (with spatialReference), outSR (wkid or wkt), cellSize (number, MAXOF, MINOF), resamplingMethod (NEAREST, BILINEAR, CUBIC), parallelProcessingFactor, processorType. E.g. {"outSR":{"wkid":3857},"cellSize":25000,"resamplingMethod":"BILINEAR"}.',
};

/** outputName is a JSON descriptor, or a bare service name as some clients send it. */
export function outputDescriptor(values: Map<string, string>): unknown {
  const text = required(values, "outputName").trim();
  return text.startsWith("{") ? parseJson(text, "outputName") : text;
}

/**
 * Write into a new pending dataset and commit it; abort on any failure. Closes `cube`.
 * @example
 * return runIntoDataset(ctx, cube, "Fitting trends", (path, o) => writeTrend(cube, options, path, o));
 */
export async function runIntoDataset(
  ctx: RunContext,
  cube: Cube,
  description: string,
  write: (path: string, options: { signal: AbortSignal; onProgress: (fraction: number) => void }) => Promise<unknown>,
): Promise<RunOutput> {
  try {
    const store = await openRasterStore(ctx.dataDir, { sweep: false });
    const pending = await store.begin();
    ctx.report("pendingDataset", pending.id);
    try {
      ctx.message("esriJobMessageTypeInformative", description);
      await write(pending.path, { signal: ctx.signal, onProgress: (f) => ctx.progress(Math.round(f * 100)) });
      await pending.commit();
      return { datasetId: pending.id };
    } catch (e) {
      await pending.abort();
      throw e;
    }
  } finally {
    await cube.close();
  }
}
