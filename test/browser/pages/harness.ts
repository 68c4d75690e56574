/**
 * What a map page offers the test driving it: one map in #map showing a Strata image
 * service, a way to choose the time it shows, and where a place falls on the map. Pages put
 * it on `window.mapHarness`; the test calls it with `page.evaluate`.
 */

/** A time to show: one instant (exportImage `time=t`) or a range (`time=t1,t2`), epoch ms. */
export type TimeChoice = { readonly instant: number } | { readonly from: number; readonly to: number };

export interface MapHarness {
  /** Show the service at a time; resolves once that image is drawn, rejects if it failed to load. */
  show(time: TimeChoice): Promise<void>;
  /** Where a longitude/latitude falls, in CSS pixels from the map's top-left corner. */
  pixelAt(lon: number, lat: number): [number, number];
}

declare global {
  interface Window {
    mapHarness?: MapHarness;
  }
}

/** The ImageServer URL the test put in the page's query string (`?service=...`). */
export function serviceUrl(): string {
  const url = new URLSearchParams(location.search).get("service");
  if (!url) throw new Error("the page needs ?service=<ImageServer URL>");
  return url;
}

/** Offer the harness to the test. */
export function expose(harness: MapHarness): void {
  window.mapHarness = harness;
}
