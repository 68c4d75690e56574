/**
 * A line chart of the values at a point, one point per slice (uPlot), with the same numbers
 * in a table for screen readers and anyone who wants them exactly. Optionally a fitted line
 * (a trend's model at the same slices) is drawn over it. Dates tick on round calendar steps;
 * drag or the wheel zooms, the buttons zoom and pan, double-click or Reset shows everything.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { formatNumber, formatValue, isTime } from "../format.js";
import { pan, resetZoom, wheelZoomPlugin, zoomAbout } from "./chartZoom.js";
import type { Series } from "./series.js";
import { timeStep, timeTickLabel, timeTicks } from "./timeTicks.js";

export interface FittedLine {
  label: string;
  y: number[];
}

const HEIGHT = 240;

export function SeriesChart(props: { series: Series; title: string; unit?: string; fitted?: FittedLine }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot>();
  const [zoomed, setZoomed] = useState(false);
  const { series, title, unit, fitted } = props;
  const time = isTime(series.dimension);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = () => Math.max(240, element.clientWidth);
    const maxTicks = () => Math.max(2, Math.floor(width() / (time ? 90 : 60)));
    // Own date ticks: uPlot's build dates with new Date(y, m, d), which cannot reach years 0-99.
    const timeAxis: Partial<uPlot.Axis> = {
      splits: (_u, _i, min, max) => timeTicks(min, max, maxTicks()),
      values: (u, ticks) => {
        const { min = 0, max = 0 } = u.scales.x;
        const step = timeStep(min, max, maxTicks());
        const labels = ticks.map((t) => timeTickLabel(t, step));
        // The labels are drawn on a canvas; keep them readable for tests and tools too.
        element.dataset.ticks = labels.join("|");
        return labels;
      },
    };
    const u = new uPlot(
      {
        width: width(),
        height: HEIGHT,
        scales: { x: { time: false } },
        legend: { show: false },
        // Room on the right for the last tick label.
        padding: [10, 40, 0, 0],
        cursor: { points: { size: 6 }, drag: { x: true, y: false } },
        plugins: [wheelZoomPlugin()],
        hooks: {
          setScale: [
            (self, key) => {
              if (key !== "x") return;
              const { min, max } = self.scales.x;
              const xs = self.data[0];
              element.dataset.xMin = String(min);
              element.dataset.xMax = String(max);
              setZoomed(min! > xs[0] || max! < xs[xs.length - 1]);
            },
          ],
        },
        series: [
          {},
          { label: title, stroke: "#2a788e", width: fitted ? 1 : 2, points: { size: 5, fill: "#2a788e" }, spanGaps: false },
          ...(fitted ? [{ label: fitted.label, stroke: "#d1495b", width: 2.5, points: { show: false } }] : []),
        ],
        axes: [time ? timeAxis : {}, { label: unit ?? "", size: 60 }],
      },
      [series.x, series.y, ...(fitted ? [fitted.y] : [])] as uPlot.AlignedData,
      element,
    );
    plot.current = u;
    const resize = new ResizeObserver(() => u.setSize({ width: width(), height: HEIGHT }));
    resize.observe(element);
    element.dataset.points = String(u.data[0].length);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = undefined;
    };
  }, [series, time, title, unit, fitted]);

  if (series.y.every((v) => v === null)) {
    return (
      <p class="muted" data-points={series.x.length}>
        {title}: no data in any of the {series.x.length} slices (land, ice or missing values).
      </p>
    );
  }
  const act = (f: (u: uPlot) => void) => () => plot.current && f(plot.current);
  return (
    <figure class="chart">
      <figcaption>
        {title}
        {fitted && (
          <span class="chart-key">
            {" "}
            — <span class="key-data">values</span>, <span class="key-fit">{fitted.label}</span>
          </span>
        )}
      </figcaption>
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      {series.x.length > 2 && (
        <div class="chart-tools" role="toolbar" aria-label={`Zoom and pan along ${series.dimension}`}>
          <button type="button" onClick={act((u) => zoomAbout(u, 0.5))}>
            Zoom in
          </button>
          <button type="button" onClick={act((u) => zoomAbout(u, 2))} disabled={!zoomed}>
            Zoom out
          </button>
          <button type="button" aria-label="Pan earlier" onClick={act((u) => pan(u, -0.2))} disabled={!zoomed}>
            ←
          </button>
          <button type="button" aria-label="Pan later" onClick={act((u) => pan(u, 0.2))} disabled={!zoomed}>
            →
          </button>
          <button type="button" onClick={act(resetZoom)} disabled={!zoomed}>
            Reset zoom
          </button>
          <span class="muted">Drag across the chart or use the wheel to zoom.</span>
        </div>
      )}
      <details>
        <summary>Values ({series.x.length})</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{series.dimension}</th>
              <th scope="col">Value{unit ? ` (${unit})` : ""}</th>
              {fitted && <th scope="col">{fitted.label}</th>}
            </tr>
          </thead>
          <tbody>
            {series.x.map((x, i) => (
              <tr key={x}>
                <td>{formatValue(series.dimension, x)}</td>
                <td>{series.y[i] === null ? "no data" : formatNumber(series.y[i]!)}</td>
                {fitted && <td data-value={fitted.y[i]}>{formatNumber(fitted.y[i])}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
