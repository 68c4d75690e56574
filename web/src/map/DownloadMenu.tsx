/**
 * Download what the map shows: the current slice as a GeoTIFF of values (exportImage
 * format=tiff over the service's extent at its own grid's resolution, up to MAX_SIDE pixels
 * a side, nearest-neighbour so the values are the stored ones), or the whole service as CF
 * NetCDF-4 (the service's download, SPEC §11).
 */
import type { RestClient } from "../api/client.js";
import { netcdfDownloadUrl } from "../api/imageService.js";
import { wkidOf } from "../api/spatialReference.js";
import type { ServiceInfo, Variable } from "../api/types.js";
import { type SliceIndex, sliceSelection } from "./rasterLayer.js";

/** A GeoTIFF of at most 4096 × 4096 pixels (64 MiB of float32): enough for any grid Strata serves at full resolution in one image. */
const MAX_SIDE = 4096;

/** The service's grid size, scaled down evenly to fit the cap and the service's image limits. */
function gridSize(info: ServiceInfo): [number, number] {
  const { extent } = info;
  const cols = info.pixelSizeX ? Math.round((extent.xmax - extent.xmin) / info.pixelSizeX) : 1024;
  const rows = info.pixelSizeY ? Math.round((extent.ymax - extent.ymin) / info.pixelSizeY) : 512;
  const scale = Math.min(
    1,
    Math.min(MAX_SIDE, info.maxImageWidth ?? MAX_SIDE) / cols,
    Math.min(MAX_SIDE, info.maxImageHeight ?? MAX_SIDE) / rows,
  );
  return [Math.max(1, Math.floor(cols * scale)), Math.max(1, Math.floor(rows * scale))];
}

function geotiffUrl(api: RestClient, url: string, info: ServiceInfo, variable: Variable, slice: SliceIndex, band?: number): string {
  const { extent } = info;
  const sr = wkidOf(extent) ?? info.spatialReference?.wkid;
  const [width, height] = gridSize(info);
  return api.url(`${url}/exportImage`, {
    bbox: [extent.xmin, extent.ymin, extent.xmax, extent.ymax].join(","),
    ...(sr !== undefined ? { bboxSR: sr, imageSR: sr } : {}),
    size: `${width},${height}`,
    format: "tiff",
    interpolation: "RSP_NearestNeighbor",
    ...sliceSelection(variable, slice),
    ...(band !== undefined ? { bandIds: band } : {}),
    f: "image",
  });
}

export function DownloadMenu(props: {
  api: RestClient;
  url: string;
  name: string;
  info: ServiceInfo;
  variable: Variable;
  slice: SliceIndex;
  band?: number;
  sliceText: string;
}) {
  const { api, url, name, info, variable, slice, band } = props;
  const [width, height] = gridSize(info);
  const file = `${name}_${variable.name}${props.sliceText ? `_${props.sliceText.replace(/[^\w.-]+/g, "_")}` : ""}`;
  return (
    <details class="download-menu">
      <summary>Download</summary>
      <ul>
        <li>
          <a href={geotiffUrl(api, url, info, variable, slice, band)} download={`${file}.tif`} data-kind="geotiff">
            GeoTIFF of this slice
          </a>
          <span class="muted">
            {" "}
            {variable.name}
            {props.sliceText ? `, ${props.sliceText}` : ""}; {width} × {height} pixels
          </span>
        </li>
        <li>
          <a href={netcdfDownloadUrl(api, url)} download={`${name}.nc`} data-kind="netcdf">
            NetCDF of the service
          </a>
          <span class="muted"> every variable and slice, CF NetCDF-4</span>
        </li>
      </ul>
    </details>
  );
}
