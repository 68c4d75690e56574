/**
 * A small world map with an extent drawn on it as a box (an item's extent). Geographic
 * extents (0..360 longitudes too) and Web Mercator ones are drawn; others are only written.
 */
import Feature from "ol/Feature.js";
import Map from "ol/Map.js";
import View from "ol/View.js";
import { fromExtent } from "ol/geom/Polygon.js";
import VectorLayer from "ol/layer/Vector.js";
import { transformExtent } from "ol/proj.js";
import VectorSource from "ol/source/Vector.js";
import { Fill, Stroke, Style } from "ol/style.js";
import { useEffect, useRef } from "preact/hooks";
import { wkidOf } from "../api/spatialReference.js";
import type { Extent } from "../api/types.js";
import { worldLayers } from "../map/worldLayers.js";

const MERCATOR_Y = 20_037_508;

/** The extent in Web Mercator, or undefined when its CRS is not one the app can draw. */
function mercatorExtent(e: Extent): [number, number, number, number] | undefined {
  const wkid = wkidOf(e);
  if (wkid === 3857 || wkid === 102100) return [e.xmin, e.ymin, e.xmax, e.ymax];
  if (wkid !== 4326 && wkid !== 4269) return undefined;
  // A global grid stored 0..360 is the whole world; one east of 180 is shifted west.
  const global = e.xmax - e.xmin >= 359;
  const shift = !global && e.xmin >= 180 ? -360 : 0;
  const [xmin, xmax] = global ? [-180, 180] : [e.xmin + shift, e.xmax + shift];
  const clamp = (lat: number) => Math.max(-85, Math.min(85, lat));
  return transformExtent([xmin, clamp(e.ymin), xmax, clamp(e.ymax)], "EPSG:4326", "EPSG:3857") as [number, number, number, number];
}

export function ExtentMap(props: { extent: Extent; label: string }) {
  const target = useRef<HTMLDivElement>(null);
  const box = mercatorExtent(props.extent);
  useEffect(() => {
    if (!box) return;
    const world = worldLayers();
    const outline = new VectorLayer({
      source: new VectorSource({ features: [new Feature(fromExtent(box))] }),
      style: new Style({ stroke: new Stroke({ color: "#c0392b", width: 2 }), fill: new Fill({ color: "rgba(192, 57, 43, 0.12)" }) }),
      zIndex: 3,
    });
    const map = new Map({
      target: target.current!,
      view: new View({ projection: "EPSG:3857", center: [0, 0], zoom: 0 }),
      layers: [world.under, world.over, outline],
      controls: [],
    });
    // The world, or the box with room around it when it is small.
    const [w, h] = [box[2] - box[0], box[3] - box[1]];
    const around = [box[0] - w, Math.max(-MERCATOR_Y, box[1] - h), box[2] + w, Math.min(MERCATOR_Y, box[3] + h)];
    map.once("postrender", () => map.getView().fit(around, { size: map.getSize() }));
    return () => map.setTarget(undefined);
  }, [box?.join(",")]);
  if (!box) return <p class="muted">This coordinate system is not drawn on the world map.</p>;
  return <div ref={target} class="extent-map" role="img" aria-label={props.label} data-extent={box.map(Math.round).join(",")} />;
}
