/**
 * A service's description and dimensions, fetched once per URL and shared by the data
 * browser, the task forms and the map (they all ask about the same few services).
 */
import type { RestClient } from "../api/client.js";
import { multidimensionalInfo, serviceInfo } from "../api/imageService.js";
import type { ServiceInfo, Variable } from "../api/types.js";

export interface ServiceDescription {
  url: string;
  info: ServiceInfo;
  variables: Variable[];
}

const cache = new Map<string, Promise<ServiceDescription>>();

export function describeService(api: RestClient, url: string): Promise<ServiceDescription> {
  let pending = cache.get(url);
  if (!pending) {
    pending = Promise.all([serviceInfo(api, url), multidimensionalInfo(api, url)]).then(([info, md]) => ({
      url,
      info,
      variables: md.multidimensionalInfo?.variables ?? [],
    }));
    // A failure is not kept: the next ask tries again.
    pending.catch(() => cache.delete(url));
    cache.set(url, pending);
  }
  return pending;
}

/** Forget everything (after sign-out, or when services may have been replaced). */
export function forgetServices(): void {
  cache.clear();
}
