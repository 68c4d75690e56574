/**
 * URLs of this server's resources, from its public base URL (SPEC §1) and the base URL of
 * the server role that hosts outputs (SPEC §5: rasterAnalysis or imageHosting).
 */
export interface ServerUrls {
  /** Public base, e.g. http://127.0.0.1:8080/arcgis (no trailing slash). */
  readonly base: string;
  /** Base of the role hosting image services (defaults to `base`). */
  readonly hosting: string;
}

export const HOSTED_FOLDER = "Hosted";

export function serviceUrl(urls: ServerUrls, name: string): string {
  return `${urls.hosting}/rest/services/${HOSTED_FOLDER}/${name}/ImageServer`;
}

export function toolsUrl(urls: ServerUrls): string {
  return `${urls.base}/rest/services/System/RasterAnalysisTools/GPServer`;
}

/**
 * The service name in a hosted image service URL of this server (either role's base), or
 * undefined for any other URL.
 * @example
 * hostedServiceName(urls, "http://127.0.0.1:8080/arcgis/rest/services/Hosted/sst/ImageServer") // "sst"
 */
export function hostedServiceName(urls: ServerUrls, url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  for (const base of new Set([urls.base, urls.hosting])) {
    const b = new URL(base);
    if (u.origin !== b.origin) continue;
    const prefix = `${b.pathname.replace(/\/$/, "")}/rest/services/${HOSTED_FOLDER}/`;
    if (!u.pathname.startsWith(prefix)) continue;
    const m = u.pathname.slice(prefix.length).match(/^([A-Za-z0-9_]+)\/ImageServer\/?$/);
    if (m) return m[1];
  }
  return undefined;
}
