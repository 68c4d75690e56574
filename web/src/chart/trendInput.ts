/**
 * The input a trend raster was fitted to: the GenerateTrendRaster job whose result is the
 * service records it (inputs/inputMultidimensionalRaster). Only jobs the caller can see are
 * searched (their own; an admin's, everyone's), newest first; an input given as a file or a
 * trend made by someone else is not known, and the chart then shows the band values alone.
 */
import type { RestClient } from "../api/client.js";
import { listJobs } from "../api/gp.js";
import type { Item } from "../api/types.js";
import { inputUrlOf, resultUrlOf } from "../jobs/jobLinks.js";

const TASK = "GenerateTrendRaster";
/** Enough recent trend jobs to find a working set's results. */
const JOBS_SEARCHED = 100;

/** The part of a service URL that names it, whatever host or base the URL was written with. */
const serviceKey = (url: string) => url.slice(url.indexOf("/rest/services/")).replace(/\/+$/, "").toLowerCase();

const found = new Map<string, Promise<string | undefined>>();

export function trendInputOf(api: RestClient, trendUrl: string, items: readonly Item[]): Promise<string | undefined> {
  let pending = found.get(trendUrl);
  if (!pending) {
    pending = (async () => {
      const page = await listJobs(api, TASK, JOBS_SEARCHED);
      for (const job of page.jobs.filter((j) => j.jobStatus === "esriJobSucceeded")) {
        const result = await resultUrlOf(api, TASK, job.jobId).catch(() => undefined);
        if (result && serviceKey(result) === serviceKey(trendUrl)) return inputUrlOf(api, TASK, job.jobId, items);
      }
      return undefined;
    })();
    pending.catch(() => found.delete(trendUrl));
    found.set(trendUrl, pending);
  }
  return pending;
}
