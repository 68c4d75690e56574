/**
 * One service on a map: its variable, band and slice controls, stretch and ramp, legend, a
 * Download menu, and what is at a clicked point (or at the map's centre, for keyboard users):
 * a readout of the value shown there, and a chart of the values through the slices — for a
 * trend raster, its bands as labelled values and the fitted line over its input's series.
 */
import type View from "ol/View.js";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { bandsOf, trendOf } from "../api/strataAttributes.js";
import { useApp } from "../app/context.js";
import { useAsync } from "../app/useAsync.js";
import { SeriesChart } from "../chart/SeriesChart.js";
import { TrendValues, bandUnit } from "../chart/TrendValues.js";
import { bandValuesOf, indexAt, seriesOf } from "../chart/series.js";
import { fittedLine } from "../chart/trendFit.js";
import { useInputSeries } from "../chart/useInputSeries.js";
import { usePointSeries } from "../chart/usePointSeries.js";
import { describeService } from "../data/serviceCache.js";
import { formatValue, isTime } from "../format.js";
import { DownloadMenu } from "./DownloadMenu.js";
import { Legend } from "./Legend.js";
import { Readout } from "./Readout.js";
import { SliceControls } from "./SliceControls.js";
import { StretchControl } from "./StretchControl.js";
import { fitView } from "./fitView.js";
import "./map.css";
import { type ServiceMap, serviceMap } from "./olMap.js";
import { type SliceIndex, sliceParams } from "./rasterLayer.js";
import { DEFAULT_STRETCH, type StretchChoice, renderingFor } from "./rendering.js";

type ImageState = "idle" | "loading" | "loaded" | "error";

export interface MapPanelProps {
  url: string;
  view: View;
  side: string;
  fit: boolean;
  onClose?(): void;
  /** A time another map moved to (epoch ms): this map shows its nearest slice. */
  time?: number;
  /** Called when the user moves this map's time. */
  onTime?(time: number): void;
}

export function MapPanel(props: MapPanelProps) {
  const { api, session, items } = useApp();
  const described = useAsync(props.url, () => describeService(api, props.url));
  const [variableName, setVariableName] = useState<string>();
  const [slice, setSlice] = useState<SliceIndex>({});
  const [bandChoice, setBand] = useState(0);
  const [stretch, setStretch] = useState<StretchChoice>(DEFAULT_STRETCH);
  const [image, setImage] = useState<ImageState>("idle");
  const target = useRef<HTMLDivElement>(null);
  const ol = useRef<ServiceMap>();

  const variables = described.data?.variables ?? [];
  const variable = variables.find((v) => v.name === variableName) ?? variables[0];
  const item = items.find((i) => i.url === props.url);
  const name = described.data?.info.name ?? props.url;
  const trend = variable && trendOf(variable);
  // A trend raster's bands (Slope, Intercept, …): one is drawn at a time, each with its own range.
  const bands = variable ? bandsOf(variable) : [];
  const band = bands.length ? Math.min(bandChoice, bands.length - 1) : undefined;
  const rendering = variable && described.data ? renderingFor(variable, described.data.info, band ?? 0, stretch) : undefined;
  const { point, marked, chartAt } = usePointSeries(api, props.url, variable);
  const chartRef = useRef(chartAt);
  chartRef.current = chartAt;
  const timeDimension = variable?.dimensions.find((d) => isTime(d.name) && d.values.length > 1);

  // The values of the slice shown, by dimension name (a trend's input is read at these).
  const shownValues = Object.fromEntries((variable?.dimensions ?? []).map((d) => [d.name, d.values[slice[d.name] ?? 0]]));
  // Kept while the answer and slice stay, so the chart is redrawn only when its data changes.
  const { answer } = point;
  const bandValues = useMemo(() => (answer && variable ? bandValuesOf(answer, variable, slice) : undefined), [answer, variable, slice]);
  const series = useMemo(
    () => (answer && variable && !trend ? seriesOf(answer, variable, slice) : undefined),
    [answer, variable, trend, slice],
  );
  const { input, error: inputError } = useInputSeries(api, props.url, items, trend ? variable : undefined, shownValues, marked);
  const fitted = useMemo(() => {
    const y = trend && input && bandValues && fittedLine(trend, bandValues, input.series.x, input.series.y);
    return y ? { label: `${trend.model} fit`, y } : undefined;
  }, [trend, input, bandValues]);

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

  const rule = rendering && JSON.stringify(rendering);
  useEffect(() => {
    if (!variable || !rendering || !ol.current) return;
    ol.current.source.updateParams(sliceParams(variable, slice, rendering, session.token, band));
    ol.current.showData();
  }, [variable, slice, band, rule, session.token]);

  useEffect(() => ol.current?.mark(marked), [marked]);

  // Another map's time: show the nearest slice here (by value: the two may be sampled differently).
  useEffect(() => {
    if (props.time === undefined || !variable || !timeDimension) return;
    const nearest = indexAt(variable, { [timeDimension.name]: props.time })[timeDimension.name];
    if (nearest !== (slice[timeDimension.name] ?? 0)) setSlice({ ...slice, [timeDimension.name]: nearest });
  }, [props.time, variable, timeDimension]);

  const moveSlice = (next: SliceIndex) => {
    setSlice(next);
    if (timeDimension && props.onTime) props.onTime(timeDimension.values[next[timeDimension.name] ?? 0]);
  };

  const dimensionText = (except?: string) =>
    (variable?.dimensions ?? [])
      .filter((d) => d.name !== except && d.values.length > 1)
      .map((d) => `${d.name} ${formatValue(d.name, d.values[slice[d.name] ?? 0])}`);
  const bandName = band !== undefined ? bands[band] : undefined;
  const sliceText = [...(bandName ? [bandName] : []), ...dimensionText()].join(", ");
  const heldText = [...(bandName && !trend ? [bandName] : []), ...dimensionText(series?.dimension)].join(", ");
  const id = `map-${props.side}`;
  // A trend band's unit is its own (Slope: the variable's unit per day; R2: none).
  const unit = (trend && bandName ? bandUnit(bandName, trend) : variable?.unit) || undefined;
  return (
    <section class="map-panel card" aria-labelledby={`${id}-title`} data-side={props.side} data-service={name}>
      <div class="section-head">
        <div class="panel-title">
          <h2 id={`${id}-title`}>{name}</h2>
          {/* One line, so that two panels side by side keep their maps level. */}
          <p class="muted one-line">{item && item.title !== name ? item.title : "\u00a0"}</p>
        </div>
        {variable && described.data && (
          <DownloadMenu
            api={api}
            url={props.url}
            name={name}
            info={described.data.info}
            variable={variable}
            slice={slice}
            band={band}
            sliceText={sliceText}
          />
        )}
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
        aria-label={`Map of ${name}. Arrow keys pan, plus and minus zoom; click a place to read and chart its values.`}
        data-image={image}
      />
      {marked && (
        <Readout coordinate={marked} value={bandValues?.[band ?? 0]} unit={unit} slice={sliceText} loading={Boolean(point.loading)} />
      )}
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
        {variable && <SliceControls idPrefix={id} variable={variable} slice={slice} onChange={moveSlice} />}
        {rendering && <StretchControl idPrefix={id} choice={stretch} ramp={rendering.ramp} onChange={setStretch} />}
        {variable && rendering && (
          <Legend rendering={rendering} variable={bandName ? `${variable.name} ${bandName}` : variable.name} unit={unit} />
        )}
        <p class="muted" aria-live="polite">
          {image === "loading" ? "Drawing…" : image === "error" ? "The image could not be drawn." : ""}
        </p>
        <button type="button" onClick={() => ol.current && void chartAt(props.view.getCenter() ?? [0, 0])}>
          Chart the values at the map's centre
        </button>
      </div>
      <div class="chart-area" aria-live="polite">
        {point.loading && <p class="muted">Reading the values…</p>}
        {point.error && <p class="error">{point.error}</p>}
        {series && variable && (
          <SeriesChart series={series} title={`${variable.name} at the marked point${heldText ? ` (${heldText})` : ""}`} unit={unit} />
        )}
        {trend && bandValues && variable && (
          <TrendValues
            trend={trend}
            values={bandValues}
            title={`${variable.name} trend (${trend.model}) at the marked point${heldText ? ` (${heldText})` : ""}`}
          />
        )}
        {trend && inputError && <p class="error">{inputError}</p>}
        {trend && input && (
          <SeriesChart
            series={input.series}
            title={`${variable!.name} of the trend's input, ${input.name}`}
            unit={input.unit ?? trend.variableUnit}
            fitted={fitted}
          />
        )}
      </div>
    </section>
  );
}
