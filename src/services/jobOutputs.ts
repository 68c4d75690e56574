/**
 * What happens around a job's run outside its thread, wherever the run happens (an API node's
 * threads, or a `strata worker` process): publishing the dataset a successful run committed
 * as the job's image service, and leaving nothing behind after any other ending.
 */
import { NotFoundError } from "../cube/errors.js";
import type { Cleanup } from "../jobs/recovery.js";
import type { JobRecord, JsonObject } from "../jobs/types.js";
import { recordSourceJob } from "../portal/itemUpdate.js";
import type { MetadataDb } from "../store/metadataDb.js";
import type { RasterStore } from "../store/rasterStore.js";
import { OUTPUT_PARAM } from "../tasks/gp.js";
import type { OutputTarget, RunOutput } from "../tasks/types.js";
import { publishOutput } from "./publish.js";
import { type ServerUrls, toolsUrl } from "./urls.js";

export interface JobOutputs {
  /** Publish the run's committed dataset; resolves to the job's results. */
  finalize(job: JobRecord, output: unknown): Promise<JsonObject>;
  /** Discard the run's pending dataset, and a dataset committed before publication failed. */
  cleanup: Cleanup;
}

/**
 * @example
 * const { finalize, cleanup } = jobOutputs(db, store, urls);
 * const jobs = createJobService({ db, workerModule, finalize, cleanup });
 */
export function jobOutputs(db: MetadataDb, store: RasterStore, urls: ServerUrls): JobOutputs {
  return {
    async finalize(job, output) {
      const target = (job.options as { output: OutputTarget }).output;
      const { datasetId, bytes } = output as RunOutput;
      const published = await publishOutput(db, store, urls, target, job.owner, datasetId, bytes);
      // The item says which job made it (the web app's item page links to it).
      await recordSourceJob(db, published.itemId, {
        jobUrl: `${toolsUrl(urls)}/${job.task}/jobs/${job.id}`,
        jobId: job.id,
        task: job.task,
      });
      return { [OUTPUT_PARAM]: { url: published.url, itemId: published.itemId } } as JsonObject;
    },
    async cleanup(job, output) {
      const pending = job.reports.pendingDataset;
      if (typeof pending === "string") await store.discardPending(pending).catch(() => undefined);
      const committed = (output as RunOutput | undefined)?.datasetId;
      if (committed) await store.remove(committed).catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
    },
  };
}
