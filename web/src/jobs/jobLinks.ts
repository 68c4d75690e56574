/**
 * What a job was about and what it made: its output name (from its inputs), its result
 * service and its input service (for side-by-side comparison). Inputs and results never
 * change once a job exists (results once it succeeded), so answers are kept.
 */
import type { RestClient } from "../api/client.js";
import { jobInput, jobResult } from "../api/gp.js";
import type { Item } from "../api/types.js";

const cache = new Map<string, Promise<unknown>>();

function once<T>(key: string, load: () => Promise<T>): Promise<T> {
  let pending = cache.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = load();
    pending.catch(() => cache.delete(key));
    cache.set(key, pending);
  }
  return pending;
}

/** The service name the job was asked to create, if it was given as a name. */
export function outputNameOf(api: RestClient, task: string, jobId: string): Promise<string | undefined> {
  return once(`${jobId}/outputName`, async () => {
    const { value } = await jobInput(api, task, jobId, "outputName");
    if (typeof value === "string") return value;
    const props = (value as { serviceProperties?: { name?: string } } | null)?.serviceProperties;
    return props?.name;
  });
}

export function resultUrlOf(api: RestClient, task: string, jobId: string): Promise<string> {
  return once(`${jobId}/result`, async () => (await jobResult(api, task, jobId)).value.url);
}

/** The input's image service URL, when the input was a service (by url or by its item). */
export function inputUrlOf(api: RestClient, task: string, jobId: string, items: readonly Item[]): Promise<string | undefined> {
  return once(`${jobId}/input`, async () => {
    const { value } = await jobInput(api, task, jobId, "inputMultidimensionalRaster");
    const descriptor = (typeof value === "string" ? JSON.parse(value) : value) as { url?: string; itemId?: string } | null;
    if (descriptor?.itemId) return items.find((i) => i.id === descriptor.itemId)?.url ?? undefined;
    return descriptor?.url;
  });
}
