/**
 * The ArcGIS Maps SDK (@arcgis/core) offline, for the browser test that drives it: esbuild
 * bundles one page of test/browser/pages/ with the SDK modules it imports (ES modules, split
 * into chunks the SDK loads on demand) into a cache directory, and a loopback server serves
 * that bundle, the SDK's own assets (workers, wasm, t9n JSON, styles, icons) straight from
 * node_modules, and an HTML page. The page sets the SDK's assetsPath to /assets/, so it needs
 * nothing from js.arcgis.com.
 *
 * Bundling the SDK takes about 10 s on two cores, so the bundle is kept between runs in
 * node_modules/.cache/ (gitignored), keyed on the SDK's and esbuild's versions and the page
 * sources: any change to one of them builds afresh.
 */
import { build, version as esbuildVersion } from "esbuild";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readFile, readdir, rename, rm, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type FileServer, serveOnLoopback } from "../helpers/browser.js";
import { BACKGROUND, MAP_SIZE } from "./bundle.js";

const SDK_DIR = fileURLToPath(new URL("../../node_modules/@arcgis/core/", import.meta.url));
const PAGES_DIR = fileURLToPath(new URL("./pages/", import.meta.url));
const CACHE_DIR = fileURLToPath(new URL("../../node_modules/.cache/strata-arcgis-core/", import.meta.url));

/** The content types the SDK's files need: module workers and streamed wasm are refused under any other. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".gif": "image/gif",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".ttf": "font/ttf",
  ".map": "application/json; charset=utf-8",
};

/** The installed SDK's version, e.g. "5.1.25". */
export async function sdkVersion(): Promise<string> {
  return JSON.parse(await readFile(join(SDK_DIR, "package.json"), "utf8")).version as string;
}

/** A hash of every page source (the entry imports harness code beside it). */
async function pagesHash(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of (await readdir(PAGES_DIR)).sort()) {
    hash.update(name).update(await readFile(join(PAGES_DIR, name)));
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * Bundle `test/browser/pages/<name>.ts` with the SDK, or reuse the bundle a previous run left.
 * @returns the directory holding `<name>.js` and its chunks
 */
export async function bundleSdkPage(name: string): Promise<string> {
  const dir = join(CACHE_DIR, `${name}-sdk${await sdkVersion()}-esbuild${esbuildVersion}-${await pagesHash()}`);
  if (await stat(join(dir, `${name}.js`)).catch(() => undefined)) return dir;
  // Older bundles of this page are stale: keep the cache from growing run after run.
  await mkdir(CACHE_DIR, { recursive: true });
  for (const old of await readdir(CACHE_DIR)) {
    if (old.startsWith(`${name}-`)) await rm(join(CACHE_DIR, old), { recursive: true, force: true });
  }
  // Build beside the final directory and rename, so a run that stops half-way leaves no half bundle.
  const partial = `${dir}.partial-${process.pid}`;
  await build({
    entryPoints: { [name]: join(PAGES_DIR, `${name}.ts`) },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "chrome110",
    outdir: partial,
    chunkNames: "chunks/[hash]",
    logLevel: "silent",
  });
  await rename(partial, dir);
  return dir;
}

/** The HTML page: the map element (background BACKGROUND shows where the layer draws nothing), a slider element, the script. */
function pageHtml(name: string): string {
  const [r, g, b] = BACKGROUND;
  return `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${name}</title>
    <link rel="stylesheet" href="/assets/esri/themes/light/main.css" />
    <style>
      html, body { margin: 0; background: #fff; }
      #map { width: ${MAP_SIZE}px; height: ${MAP_SIZE}px; }
      #map .esri-view-surface, #map .esri-view-root { background: rgb(${r}, ${g}, ${b}); }
      #slider { width: ${MAP_SIZE}px; }
    </style>
  </head>
  <body>
    <div id="map"></div>
    <div id="slider"></div>
    <script type="module" src="/app/${name}.js"></script>
  </body>
</html>
`;
}

/** A file under `root` named by a URL path below a prefix, or undefined if it would leave root. */
function fileUnder(root: string, rest: string): string | undefined {
  const file = resolve(root, "." + decodeURIComponent(rest));
  return file.startsWith(resolve(root) + sep) ? file : undefined;
}

/** The loopback site serveSdkPage answers on (its page at `url`). */
export type SdkSite = FileServer;

/**
 * Serve the page `name` (bundled by bundleSdkPage into `bundleDir`) at "/", its bundle under
 * /app/ and the SDK's assets under /assets/, on a free loopback port. 404 for anything else.
 */
export function serveSdkPage(name: string, bundleDir: string): Promise<SdkSite> {
  const html = pageHtml(name);
  const assets = join(SDK_DIR, "assets");
  return serveOnLoopback((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const notFound = () => res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    if (req.method !== "GET") return notFound();
    if (path === "/") return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    const file = path.startsWith("/app/")
      ? fileUnder(bundleDir, path.slice("/app".length))
      : path.startsWith("/assets/")
        ? fileUnder(assets, path.slice("/assets".length))
        : undefined;
    if (!file) return notFound();
    void stat(file).then(
      (s) => {
        if (!s.isFile()) return notFound();
        res.writeHead(200, {
          "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
          "content-length": s.size,
        });
        createReadStream(file).pipe(res);
      },
      () => notFound(),
    );
  });
}
