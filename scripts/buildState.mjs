// Whether the compiled server (dist/) and the web app (web/dist/) are at least as new as
// their sources. Shared by scripts/build.mjs (build only what is stale) and bin/strata.js
// (never run a dist/ older than src/). Plain JavaScript: it runs before anything is built,
// and in production installs that have no TypeScript tools.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Written by scripts/build.mjs after tsc emitted the whole server. */
export const SERVER_STAMP = join(ROOT, "dist", ".build-stamp");
/** Vite rewrites it on every build. */
export const WEB_STAMP = join(ROOT, "web", "dist", "index.html");

/** What each build reads: any of these newer than the build's stamp makes it stale. */
const SERVER_INPUTS = ["src", "tsconfig.json", "tsconfig.build.json"];
// Not package-lock.json: npm rewrites it (npm prune does), which would make a production install look stale.
const WEB_INPUTS = ["web/src", "web/index.html", "web/vite.config.ts", "web/tsconfig.json"];

/**
 * The newest modification time under a file or directory (directories count too, so a
 * deleted or renamed source makes the build stale); 0 when it does not exist.
 */
export function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  let newest = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path)) {
      if (entry === "node_modules" || entry === "dist") continue;
      newest = Math.max(newest, newestMtime(join(path, entry)));
    }
  }
  return newest;
}

function state(stamp, inputs) {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return "missing";
  }
  const newest = Math.max(...inputs.map((p) => newestMtime(join(ROOT, p))));
  return newest > built ? "stale" : "fresh";
}

/** "fresh", "stale" (sources changed since) or "missing" (never built). */
export function serverBuildState() {
  return state(SERVER_STAMP, SERVER_INPUTS);
}

/** "fresh", "stale" or "missing", for web/dist. */
export function webBuildState() {
  return state(WEB_STAMP, WEB_INPUTS);
}
