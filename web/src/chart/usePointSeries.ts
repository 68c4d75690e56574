/**
 * The values through the slices at a marked point: identify on a click (or on the map's
 * centre), again when the variable changes, and only the latest answer kept when clicks come
 * quickly. The answer holds every slice and band, so moving a slider or choosing a band reads
 * it again without asking the server.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { RestClient } from "../api/client.js";
import { identifySeries } from "../api/imageService.js";
import type { IdentifyAnswer, Variable } from "../api/types.js";
import { errorText } from "../app/errors.js";

export interface PointAnswer {
  answer?: IdentifyAnswer;
  error?: string;
  loading?: boolean;
}

export function usePointSeries(api: RestClient, url: string, variable: Variable | undefined) {
  const [point, setPoint] = useState<PointAnswer>({});
  const [marked, setMarked] = useState<number[]>();
  const asked = useRef(0);
  // Map event handlers outlive renders: they read the current variable from here.
  const latest = useRef(variable);
  latest.current = variable;

  async function chartAt(coordinate: number[]) {
    const v = latest.current;
    if (!v) return;
    const ask = ++asked.current;
    setMarked(coordinate);
    setPoint({ loading: true });
    try {
      const answer = await identifySeries(api, url, coordinate[0], coordinate[1], v.name);
      if (ask === asked.current) setPoint({ answer });
    } catch (e) {
      if (ask === asked.current) setPoint({ error: errorText(e) });
    }
  }

  useEffect(() => {
    if (marked) void chartAt(marked);
  }, [variable?.name]);

  return { point, marked, chartAt };
}
