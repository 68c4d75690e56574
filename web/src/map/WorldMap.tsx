/** The world before a service is chosen: land, borders and a graticule from the app's own data. */
import Map from "ol/Map.js";
import View from "ol/View.js";
import { defaults as defaultControls } from "ol/control/defaults.js";
import { useEffect, useRef } from "preact/hooks";
import "./map.css";
import { worldLayers } from "./worldLayers.js";

export function WorldMap() {
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const world = worldLayers();
    const map = new Map({
      target: target.current!,
      view: new View({ projection: "EPSG:3857", center: [0, 0], zoom: 1 }),
      layers: [world.under, world.over, world.borders, world.graticule],
      controls: defaultControls({ attribution: false, rotate: false }),
    });
    // Fill the box: the world's width at whatever size the box has.
    map.once("postrender", () => map.getView().fit([-20_037_508, -12_000_000, 20_037_508, 14_000_000], { size: map.getSize() }));
    return () => map.setTarget(undefined);
  }, []);
  return <div ref={target} class="map world-map" tabIndex={0} role="region" aria-label="World map. Arrow keys pan, plus and minus zoom." />;
}
