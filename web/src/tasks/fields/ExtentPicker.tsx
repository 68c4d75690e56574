/**
 * Pick an extent by drawing a box on a world map (OpenLayers DragBox, while "Draw a box" is
 * on) or by typing its edges; the box on the map follows the typed edges. Degrees, WGS 84.
 */
import Feature from "ol/Feature.js";
import Map from "ol/Map.js";
import View from "ol/View.js";
import { defaults as defaultControls } from "ol/control/defaults.js";
import type { Coordinate } from "ol/coordinate.js";
import { boundingExtent } from "ol/extent.js";
import { fromExtent } from "ol/geom/Polygon.js";
import DragBox from "ol/interaction/DragBox.js";
import VectorLayer from "ol/layer/Vector.js";
import { transformExtent } from "ol/proj.js";
import VectorSource from "ol/source/Vector.js";
import { Fill, Stroke, Style } from "ol/style.js";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { worldLayers } from "../../map/worldLayers.js";

export interface Edges {
  west: string;
  south: string;
  east: string;
  north: string;
}

/** Web Mercator's latitude limit: a box is drawn within it. */
const MAX_LAT = 85;
const round = (v: number) => String(Math.round(v * 100) / 100);

export function ExtentPicker(props: { id: string; edges: Edges; onChange(edges: Edges): void; invalid: boolean }) {
  const target = useRef<HTMLDivElement>(null);
  const box = useRef(new VectorSource());
  const drag = useRef<DragBox>();
  const [drawing, setDrawing] = useState(false);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;

  useEffect(() => {
    const world = worldLayers();
    const boxes = new VectorLayer({
      source: box.current,
      style: new Style({ stroke: new Stroke({ color: "#c0392b", width: 2 }), fill: new Fill({ color: "rgba(192, 57, 43, 0.12)" }) }),
      zIndex: 3,
    });
    const dragBox = new DragBox({ condition: () => true });
    dragBox.setActive(false);
    // From the press to the release: the box's own geometry ends at the last drag event
    // OpenLayers handled, which can fall short of where the pointer was let go.
    let start: Coordinate = [0, 0];
    dragBox.on("boxstart", (event) => (start = event.coordinate));
    dragBox.on("boxend", (event) => {
      const [w, s, e, n] = transformExtent(boundingExtent([start, event.coordinate]), "EPSG:3857", "EPSG:4326");
      onChange.current({ west: round(Math.max(-180, w)), south: round(s), east: round(Math.min(180, e)), north: round(n) });
      setDrawing(false);
    });
    drag.current = dragBox;
    const map = new Map({
      target: target.current!,
      view: new View({ projection: "EPSG:3857", center: [0, 0], zoom: 0 }),
      layers: [world.under, world.over, boxes],
      controls: defaultControls({ attribution: false, rotate: false }),
    });
    map.addInteraction(dragBox);
    // The world fills the box at whatever size it has (it has none while its <details> is closed).
    const fitWorld = () => {
      const size = map.getSize();
      if (size && size[0] > 0 && size[1] > 0) map.getView().fit([-20_037_508, -12_000_000, 20_037_508, 14_000_000], { size });
    };
    map.on("change:size", fitWorld);
    fitWorld();
    return () => map.setTarget(undefined);
  }, []);

  // Before the browser paints "Drag on the map…": a drag that follows at once must find the box tool on.
  useLayoutEffect(() => drag.current?.setActive(drawing), [drawing]);

  // The box follows the edges, wherever they came from.
  const { west, south, east, north } = props.edges;
  useEffect(() => {
    box.current.clear();
    const [w, s, e, n] = [west, south, east, north].map(Number);
    if ([west, south, east, north].some((v) => v.trim() === "") || ![w, s, e, n].every(Number.isFinite) || w >= e || s >= n) return;
    const clamp = (lat: number) => Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
    box.current.addFeature(new Feature(fromExtent(transformExtent([w, clamp(s), e, clamp(n)], "EPSG:4326", "EPSG:3857"))));
  }, [west, south, east, north]);

  const edge = (key: keyof Edges, label: string) => (
    <label key={key}>
      {label}
      <input
        type="text"
        inputMode="decimal"
        name={`extent-${key}`}
        id={key === "west" ? props.id : undefined}
        aria-invalid={props.invalid}
        value={props.edges[key]}
        onInput={(e) => props.onChange({ ...props.edges, [key]: e.currentTarget.value })}
      />
    </label>
  );

  return (
    <div class="extent-picker">
      <div class="extent-tools">
        <button type="button" class="small" aria-pressed={drawing} onClick={() => setDrawing((d) => !d)}>
          {drawing ? "Drag on the map…" : "Draw a box"}
        </button>
        <button type="button" class="small" onClick={() => props.onChange({ west: "", south: "", east: "", north: "" })}>
          Clear
        </button>
      </div>
      <div
        ref={target}
        class={`extent-map${drawing ? " drawing" : ""}`}
        data-drawing={drawing}
        role="application"
        aria-label="World map: with Draw a box on, drag to draw the extent"
      />
      <div class="extent-edges">
        {edge("west", "West (°E)")}
        {edge("south", "South (°N)")}
        {edge("east", "East (°E)")}
        {edge("north", "North (°N)")}
      </div>
    </div>
  );
}
