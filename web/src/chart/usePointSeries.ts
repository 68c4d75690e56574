/**
 * The values through the slices at a marked point: identify on a click (or on the map's
 * centre), again when a dimension other than the charted one moves (depth), and only the
 * latest answer kept when clicks come quickly.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { RestClient } from "../api/client.js";
import { identifySeries } from "../api/imageService.js";
import type { Variable } from "../api/types.js";
import { errorText } from "../app/errors.js";
import { type Series, seriesOf } from "./series.js";

export interface PointChart {
  series?: Series;
  error?: string;
  loading?: boolean;
}

export function usePointSeries(
  api: RestClient,
  url: string,
  variable: Variable | undefined,
  slice: Readonly<Record<string, number>>,
  band = 0,
) {
  const [chart, setChart] = useState<PointChart>({});
  const [marked, setMarked] = useState<number[]>();
  const asked = useRef(0);
  // Map event handlers outlive renders: they read the current choice from here.
  const latest = useRef({ variable, slice, band });
  latest.current = { variable, slice, band };

  async function chartAt(coordinate: number[]) {
    const { variable: v, slice: s, band: b } = latest.current;
    if (!v) return;
    const ask = ++asked.current;
    setMarked(coordinate);
    setChart({ loading: true });
    try {
      const answer = await identifySeries(api, url, coordinate[0], coordinate[1], v.name);
      if (ask === asked.current) setChart({ series: seriesOf(answer, v, s, b) });
    } catch (e) {
      if (ask === asked.current) setChart({ error: errorText(e) });
    }
  }

  // What the chart holds fixed: the variable, its band and every dimension but time.
  const held = [
    variable?.name,
    `band=${band}`,
    ...(variable?.dimensions ?? []).filter((d) => d.name !== "StdTime").map((d) => `${d.name}=${slice[d.name] ?? 0}`),
  ].join(",");
  useEffect(() => {
    if (marked) void chartAt(marked);
  }, [held]);

  return { chart, marked, chartAt };
}
