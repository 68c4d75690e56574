/**
 * The little of Leaflet and esri-leaflet the map pages use (neither ships TypeScript types,
 * and @types/leaflet is not a dependency).
 */
declare module "leaflet" {
  export interface Point {
    readonly x: number;
    readonly y: number;
  }
  export interface Evented {
    on(type: string, fn: () => void): this;
    once(type: string, fn: () => void): this;
    off(type: string, fn: () => void): this;
  }
  export interface MapOptions {
    center?: [number, number];
    zoom?: number;
    zoomControl?: boolean;
    attributionControl?: boolean;
    fadeAnimation?: boolean;
    zoomAnimation?: boolean;
  }
  export interface LeafletMap extends Evented {
    /** [lat, lng] to pixels from the map container's top-left corner. */
    latLngToContainerPoint(latlng: [number, number]): Point;
  }
  const L: { map(element: string | HTMLElement, options?: MapOptions): LeafletMap };
  export default L;
}

declare module "esri-leaflet" {
  import type { Evented, LeafletMap } from "leaflet";
  export interface ImageMapLayerOptions {
    url: string;
    format?: string;
    f?: "image" | "json";
    from?: Date;
    to?: Date;
  }
  export interface ImageMapLayer extends Evented {
    addTo(map: LeafletMap): this;
    setTimeRange(from: Date, to: Date): this;
  }
  export function imageMapLayer(options: ImageMapLayerOptions): ImageMapLayer;
}
