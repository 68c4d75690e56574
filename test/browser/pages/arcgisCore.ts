/**
 * Browser page: the ArcGIS Maps SDK (@arcgis/core) as an app built on it would use Strata. A
 * MapView of the world in Web Mercator (512 px at zoom 1) shows an ImageryLayer or an
 * ImageryTileLayer of a Strata image service; a TimeSlider built from the layer's timeInfo
 * steps the view's time; the geoprocessor module runs a job on Strata's GP service. The test
 * drives it through `window.arcgisHarness`.
 */
import esriConfig from "@arcgis/core/config.js";
import Point from "@arcgis/core/geometry/Point.js";
import SpatialReference from "@arcgis/core/geometry/SpatialReference.js";
import identityManager from "@arcgis/core/identity/IdentityManager.js";
import EsriMap from "@arcgis/core/Map.js";
import { whenOnce } from "@arcgis/core/core/reactiveUtils.js";
import ImageryLayer from "@arcgis/core/layers/ImageryLayer.js";
import ImageryTileLayer from "@arcgis/core/layers/ImageryTileLayer.js";
import type { RasterFormats } from "@arcgis/core/layers/raster/types.js";
import TileInfo from "@arcgis/core/layers/support/TileInfo.js";
import * as geoprocessor from "@arcgis/core/rest/geoprocessor.js";
import MapView from "@arcgis/core/views/MapView.js";
import TimeSlider from "@arcgis/core/widgets/TimeSlider.js";

/** A time extent as epoch ms (null for an open end). */
export interface TimeSpan {
  readonly start: number | null;
  readonly end: number | null;
}

/** What the layer read from the service's timeInfo. */
export interface LayerTime {
  readonly fullTimeExtent: TimeSpan | null;
  readonly interval: { readonly value: number; readonly unit: string } | null;
}

/** What a job ended as, and the result the SDK fetched. */
export interface JobOutcome {
  readonly jobStatus: string;
  readonly messages: readonly string[];
  readonly result: { readonly paramName: string; readonly dataType: string; readonly value: unknown };
}

export interface ArcgisHarness {
  /** Where Strata is: its portal (`.../sharing/rest`), its services (`.../rest/services`) and a token for both. */
  signIn(portalUrl: string, servicesUrl: string, token: string, userId: string): void;
  /** Show an ImageryLayer of an ImageServer (format as given, or the SDK's default); resolves once drawn. */
  showImagery(url: string, format?: RasterFormats): Promise<LayerTime>;
  /** Show an ImageryTileLayer of an ImageServer; resolves once drawn. */
  showTiles(url: string): Promise<LayerTime>;
  /** A TimeSlider under the map, bound to the view, set from the shown layer's timeInfo; resolves once drawn. */
  addTimeSlider(): Promise<TimeSpan>;
  /** Step the TimeSlider on (its next stop); resolves with the view's new time once the map has redrawn. */
  stepTime(): Promise<TimeSpan>;
  /** Where a longitude/latitude falls, in CSS pixels from the map's top-left corner. */
  pixelAt(lon: number, lat: number): [number, number];
  /** submitJob a task, wait with waitForJobCompletion, and fetchResultData its result. */
  runJob(taskUrl: string, params: Record<string, unknown>, resultName: string): Promise<JobOutcome>;
}

declare global {
  interface Window {
    arcgisHarness?: ArcgisHarness;
  }
}

// The SDK's workers, wasm, translations and icons come from this page's server, not js.arcgis.com.
esriConfig.assetsPath = new URL("/assets", location.href).href;

let view: MapView | undefined;
let layer: ImageryLayer | ImageryTileLayer | undefined;
let slider: TimeSlider | undefined;

const span = (extent: { start?: Date | null; end?: Date | null } | null | undefined): TimeSpan | null =>
  extent ? { start: extent.start?.getTime() ?? null, end: extent.end?.getTime() ?? null } : null;

/** An SDK error (esri/core/Error: name, message, details) as a plain Error the test can read. */
function described(e: unknown): Error {
  const err = e as { name?: string; message?: string; details?: { error?: { message?: string }; messages?: unknown } };
  const cause = err.details?.error?.message ?? (err.details?.messages ? JSON.stringify(err.details.messages) : "");
  return new Error(`${err.name ?? "Error"}: ${err.message ?? String(e)}${cause ? ` (${cause})` : ""}`);
}

/** Resolves once the view has drawn everything it asked for (or fails naming the layer's error). */
async function drawn(): Promise<void> {
  if (!view || !layer) throw new Error("no layer is shown");
  await view.whenLayerView(layer);
  // updating turns true on the next frame after a change; give it that frame before waiting it out.
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  await whenOnce(() => !view!.updating);
}

/** A fresh view (any previous one destroyed) showing `shown`, in Web Mercator at zoom 1. */
async function show(shown: ImageryLayer | ImageryTileLayer): Promise<LayerTime> {
  slider?.destroy();
  slider = undefined;
  view?.destroy();
  layer = shown;
  view = new MapView({
    container: "map",
    map: new EsriMap({ layers: [shown] }),
    spatialReference: SpatialReference.WebMercator,
    center: [0, 0],
    // No basemap gives no zoom levels: take the standard Web Mercator ones, so zoom 1 is 78 km a pixel.
    constraints: { lods: TileInfo.create({ spatialReference: SpatialReference.WebMercator }).lods, snapToZoom: true },
    zoom: 1,
    // Nothing may draw over the pixels the test reads.
    ui: { components: [] },
  });
  try {
    await view.when();
    await shown.load();
    await drawn();
  } catch (e) {
    throw described(e);
  }
  const info = shown.timeInfo;
  return {
    fullTimeExtent: span(info?.fullTimeExtent),
    interval: info?.interval ? { value: info.interval.value, unit: info.interval.unit } : null,
  };
}

window.arcgisHarness = {
  signIn(portalUrl, servicesUrl, token, userId) {
    esriConfig.portalUrl = portalUrl.replace(/\/sharing\/rest\/?$/, "");
    for (const server of [portalUrl, servicesUrl]) identityManager.registerToken({ server, token, userId, ssl: false });
  },
  showImagery: (url, format) => show(new ImageryLayer(format ? { url, format } : { url })),
  showTiles: (url) => show(new ImageryTileLayer({ url })),
  async addTimeSlider() {
    if (!view || !layer) throw new Error("no layer is shown");
    const info = layer.timeInfo;
    if (!info?.fullTimeExtent) throw new Error("the layer read no timeInfo from the service");
    slider = new TimeSlider({
      container: "slider",
      view,
      mode: "instant",
      fullTimeExtent: info.fullTimeExtent,
      // One stop per interval the service declares; without one, let the slider spread ten stops.
      stops: info.interval ? { interval: info.interval } : { count: 10 },
    });
    await whenOnce(() => slider!.timeExtent != null && view!.timeExtent != null);
    await drawn();
    return span(view.timeExtent)!;
  },
  async stepTime() {
    if (!slider || !view) throw new Error("no TimeSlider");
    const before = view.timeExtent?.start?.getTime();
    slider.next();
    await whenOnce(() => view!.timeExtent?.start?.getTime() !== before);
    await drawn();
    return span(view.timeExtent)!;
  },
  pixelAt(lon, lat) {
    if (!view) throw new Error("no view");
    const p = view.toScreen(new Point({ longitude: lon, latitude: lat }));
    if (!p) throw new Error(`${lon},${lat} is not on the map`);
    return [p.x, p.y];
  },
  async runJob(taskUrl, params, resultName) {
    const job = await geoprocessor.submitJob(taskUrl, params).catch((e: unknown) => Promise.reject(described(e)));
    try {
      await job.waitForJobCompletion({ interval: 250 });
    } catch (e) {
      const messages = (job.messages ?? []).map((m) => m.description).join("; ");
      throw new Error(`${described(e).message}: job ${job.jobId} ${job.jobStatus}: ${messages}`, { cause: e });
    }
    const result = await job.fetchResultData(resultName).catch((e: unknown) => Promise.reject(described(e)));
    return {
      jobStatus: job.jobStatus,
      messages: (job.messages ?? []).map((m) => `${m.type}: ${m.description}`),
      result: { paramName: result.paramName ?? "", dataType: result.dataType, value: result.value },
    };
  },
};
