/**
 * Vite build of the Strata web app: web/ is the root, the output goes to web/dist, where the
 * server serves index.html at <base>/ and the hashed files at <base>/assets/<file>.
 */
import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

// The directory of this file, whatever the working directory (Vite sets import.meta.url to the config's own URL).
const root = decodeURIComponent(new URL(".", import.meta.url).pathname);

export default defineConfig({
  root,
  // Relative URLs: the app is served under a configurable base path (/arcgis/ by default).
  base: "./",
  plugins: [preact()],
  // `npx vite --config web/vite.config.ts` for development with hot reload: the app is then
  // served at / and finds its REST base there, so the portal and services are proxied to a
  // running Strata (STRATA_DEV_URL, default http://127.0.0.1:8080/arcgis).
  server: {
    proxy: Object.fromEntries(["/sharing", "/rest"].map((path) => [path, process.env.STRATA_DEV_URL ?? "http://127.0.0.1:8080/arcgis"])),
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The server serves assets/<file> only (no sub-folders), so every file lands flat there.
    assetsDir: "assets",
    assetsInlineLimit: 0,
    target: "es2022",
    // OpenLayers and uPlot make one large chunk; it is still far below what a laptop loads in a blink.
    chunkSizeWarningLimit: 1200,
  },
});
