/**
 * One service on a map: its variable and slice controls, legend, and the chart of the values
 * at a clicked point (or at the map's centre, for keyboard users).
 */
import type View from "ol/View.js";
import { bandsOf } from "../api/strataAttributes.js";
import { formatValue } from "../format.js";
import { useEffect, useRef, useState } from "preact/hooks";
import { useApp } from "../app/context.js";
import { useAsync } from "../app/useAsync.js";
import { SeriesChart } from "../chart/SeriesChart.js";
import { usePointSeries } from "../chart/usePointSeries.js";
import { describeService } from "../data/serviceCache.js";
import { Legend } from "./Legend.js";
import { SliceControls } from "./SliceControls.js";
import { fitView } from "./fitView.js";
import { type ServiceMap, serviceMap } from "./olMap.js";
import { type SliceIndex, sliceParams } from "./rasterLayer.js";
import { renderingFor } from "./rendering.js";

type ImageState = "idle" | "loading" | "loaded" | "error";

export function MapPanel(props: { url: string; view: View; side: string; fit: boolean; onClose?(): void }) {
  const { api, session, items } = useApp();
  const described = useAsync(props.url, () => describeService(api, props.url));
  const [variableName, setVariableName] = useState<string>();
  const [slice, setSlice] = useState<SliceIndex>({});
  const [bandChoice, setBand] = useState(0);
  const [image, setImage] = useState<ImageState>("idle");
  const target = useRef<HTMLDivElement>(null);
  const ol = useRef<ServiceMap>();

  const variables = described.data?.variables ?? [];
  const variable = variables.find((v) => v.name === variableName) ?? variables[0];
  const item = items.find((i) => i.url === props.url);
  const name = described.data?.info.name ?? props.url;
  // A trend raster's bands (Slope, Intercept, …): one is drawn and charted at a time.
  const bands = variable ? bandsOf(variable) : [];
  const band = bands.length ? Math.min(bandChoice, bands.length - 1) : undefined;
  const rendering = variable && described.data ? renderingFor(variable, described.data.info, band ?? 0) : undefined;
  const { chart, marked, chartAt } = usePointSeries(api, props.url, variable, slice, band ?? 0);
  const chartRef = useRef(chartAt);
  chartRef.current = chartAt;

  useEffect(() => {
    const m = serviceMap(target.current!, props.url, props.view);
    // A slice change while an image loads starts another; only the latest one's end counts,
    // or the map would say "loaded" while the slice shown is still coming.
    let latest: unknown;
    m.source.on("imageloadstart", (e) => {
      latest = e.image;
      setImage("loading");
    });
    m.source.on("imageloadend", (e) => e.image === latest && setImage("loaded"));
    m.source.on("imageloaderror", (e) => e.image === latest && setImage("error"));
    m.map.on("singleclick", (e) => void chartRef.current(e.coordinate));
    ol.current = m;
    return () => m.dispose();
    // One map per service and view; the click handler reads the current chartAt through its ref.
  }, [props.url, props.view]);

  useEffect(() => {
    if (props.fit && described.data && ol.current)
      fitView(props.view, described.data.info.extent, ol.current.map.getSize() as [number, number]);
  }, [described.data, props.fit, props.view]);

  useEffect(() => {
    if (!variable || !rendering || !ol.current) return;
    ol.current.source.updateParams(sliceParams(variable, slice, rendering, session.token, band));
    ol.current.showData();
  }, [variable, slice, band, rendering?.ramp, rendering?.min, rendering?.max, session.token]);

  useEffect(() => ol.current?.mark(marked), [marked]);

  const heldText = [
    ...(band !== undefined ? [bands[band]] : []),
    ...(variable?.dimensions ?? [])
      .filter((d) => d.name !== chart.series?.dimension && d.values.length > 1)
      .map((d) => `${d.name} ${formatValue(d.name, d.values[slice[d.name] ?? 0])}`),
  ].join(", ");
  const id = `map-${props.side}`;
  return (
    <section class="map-panel card" aria-labelledby={`${id}-title`} data-side={props.side} data-service={name}>
      <div class="section-head">
        <div class="panel-title">
          <h2 id={`${id}-title`}>{name}</h2>
          {/* One line, so that two panels side by side keep their maps level. */}
          <p class="muted one-line">{item && item.title !== name ? item.title : "\u00a0"}</p>
        </div>
        {props.onClose && (
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        )}
      </div>
      {described.error && <p class="error">Could not read the service: {described.error}</p>}
      <div
        ref={target}
        class="map"
        tabIndex={0}
        role="region"
        aria-label={`Map of ${name}. Arrow keys pan, plus and minus zoom; click a place to chart its values.`}
        data-image={image}
      />
      <div class="map-controls">
        {variables.length > 1 && (
          <label>
            Variable
            <select
              value={variable?.name}
              onChange={(e) => {
                setVariableName(e.currentTarget.value);
                setSlice({});
                setBand(0);
              }}
            >
              {variables.map((v) => (
                <option key={v.name} value={v.name}>
                  {v.name}
                  {v.description ? ` — ${v.description}` : ""}
                </option>
              ))}
            </select>
          </label>
        )}
        {band !== undefined && (
          <label>
            Band
            <select value={band} data-bands={bands.join(",")} onChange={(e) => setBand(Number(e.currentTarget.value))}>
              {bands.map((b, i) => (
                <option key={b} value={i}>
                  {b}
                </option>
              ))}
            </select>
          </label>
        )}
        {variable && <SliceControls idPrefix={id} variable={variable} slice={slice} onChange={setSlice} />}
        {variable && rendering && (
          <Legend
            rendering={rendering}
            variable={band !== undefined ? `${variable.name} ${bands[band]}` : variable.name}
            unit={variable.unit}
          />
        )}
        <p class="muted" aria-live="polite">
          {image === "loading" ? "Drawing…" : image === "error" ? "The image could not be drawn." : ""}
        </p>
        <button type="button" onClick={() => ol.current && void chartAt(props.view.getCenter() ?? [0, 0])}>
          Chart the values at the map's centre
        </button>
      </div>
      <div class="chart-area" aria-live="polite">
        {chart.loading && <p class="muted">Reading the values…</p>}
        {chart.error && <p class="error">{chart.error}</p>}
        {chart.series && variable && (
          <SeriesChart
            series={chart.series}
            title={`${variable.name} at the marked point${heldText ? ` (${heldText})` : ""}`}
            unit={variable.unit || undefined}
          />
        )}
      </div>
    </section>
  );
}
