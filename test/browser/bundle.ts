/**
 * Build a map page for the browser tests at test time: esbuild bundles one entry of
 * test/browser/pages/ (with the map library and its CSS) in memory into one IIFE script and
 * one stylesheet, and an HTML page loads them. Nothing is fetched from a CDN.
 */
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

/** The files of a page, by URL path: "/" (HTML), "/page.js", "/page.css". */
export type PageFiles = Readonly<Record<string, { readonly body: string; readonly type: string }>>;

/** Size of the map element, in CSS pixels: at zoom 1 it shows the whole EPSG:3857 world. */
export const MAP_SIZE = 512;

/** Behind the layer, so transparent (no data) pixels show this; no viridis colour is near it. */
export const BACKGROUND: readonly [number, number, number] = [255, 0, 255];

/**
 * Bundle `test/browser/pages/<name>.ts` and wrap it in an HTML page with a #map element.
 * @example
 * const files = await bundlePage("openlayers"); // files["/page.js"].body is the IIFE
 */
export async function bundlePage(name: string): Promise<PageFiles> {
  const entry = fileURLToPath(new URL(`./pages/${name}.ts`, import.meta.url));
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "chrome110",
    // Two outputs (script and CSS) need an outdir, though nothing is written there.
    outdir: "/page",
    entryNames: "page",
    // Leaflet's CSS names its control icons; inline them so the page asks for nothing else.
    loader: { ".png": "dataurl", ".svg": "dataurl", ".gif": "dataurl" },
    logLevel: "silent",
  });
  const output = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? "";
  const [r, g, b] = BACKGROUND;
  const html = `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${name}</title>
    <link rel="stylesheet" href="/page.css" />
    <style>
      html, body { margin: 0; background: #fff; }
      #map { width: ${MAP_SIZE}px; height: ${MAP_SIZE}px; background: rgb(${r}, ${g}, ${b}); }
    </style>
  </head>
  <body>
    <div id="map"></div>
    <script src="/page.js"></script>
  </body>
</html>
`;
  return {
    "/": { body: html, type: "text/html; charset=utf-8" },
    "/page.js": { body: output(".js"), type: "text/javascript; charset=utf-8" },
    "/page.css": { body: output(".css"), type: "text/css; charset=utf-8" },
  };
}
