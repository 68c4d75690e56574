#!/usr/bin/env node
// The `strata` command. Runs the compiled CLI (dist/, made by `npm run build` or by `npm start`'s
// prestart) when it is at least as new as src/; otherwise the TypeScript sources through tsx,
// so an edit is never shadowed by an old build. A production install has no tsx: it runs
// dist/ whatever its age, and says so when src/ is newer.
import { register } from "node:module";
import { fileURLToPath } from "node:url";
import { serverBuildState } from "../scripts/buildState.mjs";

const compiled = new URL("../dist/src/cli/strata.js", import.meta.url);
const state = serverBuildState();
let tsx;
if (state !== "fresh") tsx = await import("tsx/esm/api").catch(() => undefined);
if (tsx) {
  tsx.register();
  // Registered after tsx, so it runs first: h5wasm loads as it is (see the file).
  register(new URL("../scripts/tsxPassThrough.mjs", import.meta.url));
  await import(new URL("../src/cli/strata.ts", import.meta.url).href);
} else if (state === "missing") {
  process.stderr.write(`strata: ${fileURLToPath(compiled)} is missing and tsx is not installed: build first (npm run build)\n`);
  process.exitCode = 1;
} else {
  if (state === "stale")
    process.stderr.write("strata: warning: src/ is newer than dist/ and tsx is not installed; running dist/ (npm run build)\n");
  await import(compiled.href);
}
