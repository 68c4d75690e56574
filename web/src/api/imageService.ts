/** Hosted image services: their description, dimensions, values at a point, thumbnails, the NetCDF download. */
import type { RestClient } from "./client.js";
import { wkidOf } from "./spatialReference.js";
import type { Extent, IdentifyAnswer, MultidimensionalInfo, ServiceInfo } from "./types.js";

export const serviceInfo = (api: RestClient, url: string, signal?: AbortSignal) => api.get<ServiceInfo>(url, undefined, signal);

export const multidimensionalInfo = (api: RestClient, url: string, signal?: AbortSignal) =>
  api.get<MultidimensionalInfo>(`${url}/multidimensionalInfo`, undefined, signal);

/** Every slice's value of a variable at a Web Mercator point. */
export function identifySeries(api: RestClient, url: string, x: number, y: number, variable: string, signal?: AbortSignal) {
  return api.get<IdentifyAnswer>(
    `${url}/identify`,
    {
      geometry: JSON.stringify({ x, y, spatialReference: { wkid: 3857 } }),
      geometryType: "esriGeometryPoint",
      processAsMultidimensional: true,
      mosaicRule: JSON.stringify({ multidimensionalDefinition: [{ variableName: variable }] }),
      returnCatalogItems: false,
    },
    signal,
  );
}

const isGeographic = (e: Extent) => [4326, 4269].includes(wkidOf(e) ?? 0);

/** A thumbnail image URL of the service's extent (a global 0..360 grid is drawn as -180..180). */
export function thumbnailUrl(api: RestClient, url: string, extent?: Extent): string {
  let bbox = "-180,-90,180,90";
  let bboxSR = "4326";
  if (extent && isGeographic(extent)) {
    const global = extent.xmax - extent.xmin >= 359;
    const [xmin, xmax] = global ? [-180, 180] : [extent.xmin, extent.xmax];
    bbox = [xmin, Math.max(-90, extent.ymin), xmax, Math.min(90, extent.ymax)].join(",");
  } else if (extent) {
    bbox = [extent.xmin, extent.ymin, extent.xmax, extent.ymax].join(",");
    bboxSR = String(wkidOf(extent) ?? 4326);
  }
  return api.url(`${url}/exportImage`, { bbox, bboxSR, size: "200,100", format: "png", f: "image" });
}

/** The whole service as a CF NetCDF-4 file (SPEC §11 `download`), as a link the browser saves. */
export const netcdfDownloadUrl = (api: RestClient, url: string) => api.url(`${url}/download`, { format: "netcdf" });
