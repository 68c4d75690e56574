/**
 * Browser page: a Leaflet map of the world (EPSG:3857, Leaflet's default; zoom 1, so 512 px
 * show the whole world) with an esri-leaflet imageMapLayer, as a Leaflet app would draw Strata.
 * The layer asks with f=json and then loads the href Strata answers, and chooses its time with
 * from/to (exportImage `time=from,to`).
 */
import "leaflet/dist/leaflet.css";
import L from "leaflet";
import { type ImageMapLayer, imageMapLayer } from "esri-leaflet";
import { type TimeChoice, expose, serviceUrl } from "./harness.js";

// No controls or animations: nothing may draw over or fade the pixels the test reads.
const map = L.map("map", {
  center: [0, 0],
  zoom: 1,
  zoomControl: false,
  attributionControl: false,
  fadeAnimation: false,
  zoomAnimation: false,
});
let layer: ImageMapLayer | undefined;

const range = (time: TimeChoice): [Date, Date] =>
  "instant" in time ? [new Date(time.instant), new Date(time.instant)] : [new Date(time.from), new Date(time.to)];

/** Resolves once the layer's next image has loaded and been shown. */
function nextDrawing(l: ImageMapLayer): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = () => reject(new Error("esri-leaflet could not load the exportImage image"));
    l.once("error", fail);
    l.once("requesterror", fail);
    l.once("load", () => {
      l.off("error", fail);
      l.off("requesterror", fail);
      // The overlay is made opaque in the same task as "load"; let a frame paint it.
      requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
    });
  });
}

expose({
  show(time) {
    const [from, to] = range(time);
    if (!layer) {
      layer = imageMapLayer({ url: serviceUrl(), format: "png32", f: "json", from, to });
      const drawn = nextDrawing(layer);
      layer.addTo(map);
      return drawn;
    }
    const drawn = nextDrawing(layer);
    layer.setTimeRange(from, to);
    return drawn;
  },
  pixelAt(lon, lat) {
    const p = map.latLngToContainerPoint([lat, lon]);
    return [p.x, p.y];
  },
});
