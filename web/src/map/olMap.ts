/**
 * An OpenLayers map of one service: land under and over the data, the data layer, and a
 * marker for the point being charted. The View is passed in so that maps can share it.
 */
import Feature from "ol/Feature.js";
import Map from "ol/Map.js";
import type View from "ol/View.js";
import { defaults as defaultControls } from "ol/control/defaults.js";
import Point from "ol/geom/Point.js";
import VectorLayer from "ol/layer/Vector.js";
import type ImageArcGISRest from "ol/source/ImageArcGISRest.js";
import VectorSource from "ol/source/Vector.js";
import { Circle, Fill, Stroke, Style } from "ol/style.js";
import { rasterLayer } from "./rasterLayer.js";
import { worldLayers } from "./worldLayers.js";

export interface ServiceMap {
  map: Map;
  source: ImageArcGISRest;
  showData(): void;
  mark(coordinate: number[] | undefined): void;
  dispose(): void;
}

const MARKER = new Style({
  image: new Circle({ radius: 6, fill: new Fill({ color: "rgba(255,255,255,0.6)" }), stroke: new Stroke({ color: "#111", width: 2 }) }),
});

export function serviceMap(target: HTMLElement, url: string, view: View): ServiceMap {
  const world = worldLayers();
  const { layer, source } = rasterLayer(url);
  // Hidden until the slice and rendering are set: otherwise the first request would draw the default slice.
  layer.setVisible(false);
  const markers = new VectorSource();
  const map = new Map({
    target,
    view,
    layers: [
      world.under,
      layer,
      world.over,
      world.borders,
      world.graticule,
      new VectorLayer({ source: markers, style: MARKER, zIndex: 3 }),
    ],
    controls: defaultControls({ attribution: false, rotate: false }),
  });
  return {
    map,
    source,
    showData: () => layer.setVisible(true),
    mark(coordinate) {
      markers.clear();
      if (coordinate) markers.addFeature(new Feature(new Point(coordinate)));
    },
    dispose: () => map.setTarget(undefined),
  };
}
