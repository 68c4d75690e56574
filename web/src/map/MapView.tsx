/**
 * The map view: the world until a service is chosen, then one service, or two side by side on
 * linked maps (one shared View, so panning or zooming either moves both) to compare an input
 * with an output, their time sliders linked by time value.
 */
import View from "ol/View.js";
import "ol/ol.css";
import { useMemo, useState } from "preact/hooks";
import { useApp } from "../app/context.js";
import { navigate } from "../app/route.js";
import { MapPanel } from "./MapPanel.js";
import { WorldMap } from "./WorldMap.js";

function ServicePicker(props: { id: string; label: string; value?: string; optional: boolean; onChange(url?: string): void }) {
  const { items } = useApp();
  const services = items.filter((i) => i.type === "Image Service" && i.url);
  return (
    <label for={props.id}>
      {props.label}
      <select id={props.id} value={props.value ?? ""} onChange={(e) => props.onChange(e.currentTarget.value || undefined)}>
        <option value="">{props.optional ? "(none)" : "Choose a service…"}</option>
        {services.map((s) => (
          <option key={s.id} value={s.url!}>
            {s.name ?? s.title}
          </option>
        ))}
      </select>
    </label>
  );
}

export function MapView(props: { left?: string; right?: string }) {
  const { left, right } = props;
  // A new View for each left service, so the map frames it; the right map follows.
  const view = useMemo(() => new View({ projection: "EPSG:3857", center: [0, 0], zoom: 1 }), [left]);
  const [linked, setLinked] = useState(true);
  // The time last chosen on either map, while linked: the other shows its nearest slice.
  const [time, setTime] = useState<number>();
  const both = Boolean(left && right);
  const shared = both && linked ? { time, onTime: setTime } : {};
  return (
    <div class="map-view">
      <div class="pickers card">
        <ServicePicker
          id="pick-left"
          label="Service"
          value={left}
          optional={false}
          onChange={(url) => navigate("map", { left: url, right })}
        />
        <ServicePicker
          id="pick-right"
          label="Compare with"
          value={right}
          optional
          onChange={(url) => navigate("map", { left, right: url })}
        />
        {both && (
          <label class="time-link">
            <input type="checkbox" checked={linked} onChange={(e) => setLinked(e.currentTarget.checked)} />
            Link the time sliders
          </label>
        )}
      </div>
      {!left && (
        <>
          <p class="muted">Choose a service to show, or open one from your data or a finished job.</p>
          <WorldMap />
        </>
      )}
      <div class={`panels${both ? " two" : ""}`}>
        {left && <MapPanel key={`l:${left}`} url={left} view={view} side="left" fit {...shared} />}
        {left && right && (
          <MapPanel
            key={`r:${right}`}
            url={right}
            view={view}
            side="right"
            fit={false}
            onClose={() => navigate("map", { left })}
            {...shared}
          />
        )}
      </div>
    </div>
  );
}
