/**
 * A line chart of the values at a point, one point per slice (uPlot), with the same numbers
 * in a table for screen readers and anyone who wants them exactly.
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { formatNumber, formatTime, formatValue, isTime } from "../format.js";
import type { Series } from "./series.js";

export function SeriesChart(props: { series: Series; title: string; unit?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const { series, title, unit } = props;
  const time = isTime(series.dimension);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = () => Math.max(240, element.clientWidth);
    // Ticks at the slices themselves, as many as fit: uPlot's own time ticks build dates with
    // new Date(y, m, d), which cannot reach years 0-99 (climatologies are often dated year 0 or 1).
    const splits = (u: uPlot) => {
      const xs = u.data[0] as number[];
      const fit = Math.max(2, Math.floor(width() / (time ? 95 : 60)));
      const step = Math.ceil(xs.length / fit);
      return xs.filter((_, i) => i % step === 0);
    };
    const label = (x: number) => (time ? formatTime(x).slice(0, 10) : formatNumber(x));
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        scales: { x: { time: false } },
        legend: { show: false },
        // Room on the right for the last tick label.
        padding: [10, 40, 0, 0],
        cursor: { points: { size: 6 } },
        series: [{}, { label: title, stroke: "#2a788e", width: 2, points: { show: true, size: 5, fill: "#2a788e" }, spanGaps: false }],
        axes: [
          { splits, values: (_u, ticks) => ticks.map(label) },
          { label: unit ?? "", size: 60 },
        ],
      },
      [series.x, series.y],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(element);
    element.dataset.points = String(plot.data[0].length);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, time, title, unit]);

  if (series.y.every((v) => v === null)) {
    return (
      <p class="muted" data-points={series.x.length}>
        {title}: no data in any of the {series.x.length} slices (land, ice or missing values).
      </p>
    );
  }
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      <details>
        <summary>Values ({series.x.length})</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{series.dimension}</th>
              <th scope="col">Value{unit ? ` (${unit})` : ""}</th>
            </tr>
          </thead>
          <tbody>
            {series.x.map((x, i) => (
              <tr key={x}>
                <td>{formatValue(series.dimension, x)}</td>
                <td>{series.y[i] === null ? "no data" : formatNumber(series.y[i]!)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
