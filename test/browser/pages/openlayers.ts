/**
 * Browser page: an OpenLayers map of the world in EPSG:3857 (zoom 1, so 512 px show the
 * whole world) with an ImageArcGISRest layer, as an OpenLayers app would draw Strata.
 */
import "ol/ol.css";
import Map from "ol/Map.js";
import { unByKey } from "ol/Observable.js";
import View from "ol/View.js";
import ImageLayer from "ol/layer/Image.js";
import { fromLonLat } from "ol/proj.js";
import ImageArcGISRest from "ol/source/ImageArcGISRest.js";
import { type TimeChoice, expose, serviceUrl } from "./harness.js";

// No controls or interactions: nothing may draw over the pixels the test reads.
const map = new Map({
  target: "map",
  controls: [],
  interactions: [],
  view: new View({ projection: "EPSG:3857", center: [0, 0], zoom: 1 }),
});
let source: ImageArcGISRest | undefined;

/** exportImage's `time`: OpenLayers passes params through as they are named (lower case since OL 7). */
const timeParam = (time: TimeChoice): string => ("instant" in time ? String(time.instant) : `${time.from},${time.to}`);

/** Resolves after the next image this source loads has been rendered. */
function nextDrawing(s: ImageArcGISRest): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = s.once("imageloaderror", () => reject(new Error("OpenLayers could not load the exportImage image")));
    s.once("imageloadend", () => {
      unByKey(failed);
      map.once("rendercomplete", () => resolve());
    });
  });
}

expose({
  show(time) {
    if (!source) {
      // ratio 1: ask for exactly the viewport, so one request covers the map.
      source = new ImageArcGISRest({
        url: serviceUrl(),
        params: { format: "png32", time: timeParam(time) },
        ratio: 1,
        crossOrigin: "anonymous",
      });
      const drawn = nextDrawing(source);
      map.addLayer(new ImageLayer({ source }));
      return drawn;
    }
    const drawn = nextDrawing(source);
    source.updateParams({ time: timeParam(time) });
    return drawn;
  },
  pixelAt(lon, lat) {
    const [x, y] = map.getPixelFromCoordinate(fromLonLat([lon, lat]));
    return [x, y];
  },
});
