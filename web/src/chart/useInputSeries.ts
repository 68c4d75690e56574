/**
 * The input's values at the marked point of a trend raster, when the trend's input is known
 * (trendInput.ts): the same variable, through the fitted dimension, at the trend's slice of
 * every other dimension (a trend's slices are those dimensions' values).
 */
import { useEffect, useState } from "preact/hooks";
import type { RestClient } from "../api/client.js";
import { identifySeries } from "../api/imageService.js";
import type { Item, Variable } from "../api/types.js";
import { errorText } from "../app/errors.js";
import { describeService } from "../data/serviceCache.js";
import { type Series, indexAt, seriesOf } from "./series.js";
import { trendInputOf } from "./trendInput.js";

export interface InputSeries {
  url: string;
  name: string;
  series: Series;
  unit?: string;
}

export function useInputSeries(
  api: RestClient,
  trendUrl: string,
  items: readonly Item[],
  trendVariable: Variable | undefined,
  heldValues: Readonly<Record<string, number>>,
  marked: number[] | undefined,
): { input?: InputSeries; error?: string } {
  const [found, setFound] = useState<{ input?: InputSeries; error?: string }>({});
  const key = JSON.stringify([trendVariable?.name, heldValues, marked]);
  useEffect(() => {
    setFound({});
    if (!trendVariable || !marked) return;
    let current = true;
    void (async () => {
      const url = await trendInputOf(api, trendUrl, items);
      if (!url) return;
      const input = await describeService(api, url);
      const variable = input.variables.find((v) => v.name === trendVariable.name);
      if (!variable) return;
      const answer = await identifySeries(api, url, marked[0], marked[1], variable.name);
      const series = seriesOf(answer, variable, indexAt(variable, heldValues));
      if (current) setFound({ input: { url, name: input.info.name, series, unit: variable.unit || undefined } });
    })().catch((e: unknown) => current && setFound({ error: `The trend's input could not be read: ${errorText(e)}` }));
    return () => {
      current = false;
    };
  }, [key, trendUrl]);
  return found;
}
