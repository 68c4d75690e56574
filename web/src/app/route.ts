/**
 * Views addressed by the URL hash (#/data?folder=…, #/item?id=…, #/analysis?task=…,
 * #/job?task=…&id=…, #/map?left=…&right=…), so the
 * browser's back button and links work without the server knowing about them.
 */
import { useEffect, useState } from "preact/hooks";

export type View = "data" | "item" | "analysis" | "job" | "map";

export interface Route {
  view: View;
  params: URLSearchParams;
}

const VIEWS: readonly View[] = ["data", "item", "analysis", "job", "map"];

export function parseRoute(hash: string): Route {
  const [path, query = ""] = hash.replace(/^#\/?/, "").split("?");
  const view = VIEWS.find((v) => v === path) ?? "data";
  return { view, params: new URLSearchParams(query) };
}

export function routeHref(view: View, params: Readonly<Record<string, string | undefined>> = {}): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") query.set(k, v);
  const text = query.toString();
  return `#/${view}${text ? `?${text}` : ""}`;
}

export function navigate(view: View, params?: Readonly<Record<string, string | undefined>>): void {
  location.hash = routeHref(view, params);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}
