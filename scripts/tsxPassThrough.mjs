// Module hooks registered after tsx wherever Strata runs its TypeScript sources (bin/strata.js,
// src/services/work/tsxBoot.mjs): packages listed here load as they are on disk, not through
// tsx. tsx rewrites every ES module that contains `import(` and attaches a source map; for
// h5wasm's 4.2 MB single-line bundle that took 1.6 s and 650 MB of resident memory in each
// thread that loaded it (0.2 s and 45 MB untouched), and they need no rewriting.
// Compiled builds (dist/) never load this file.
import { readFile } from "node:fs/promises";

/** Folders, as they appear in file URLs, whose files are ES modules that skip tsx. */
const UNTRANSFORMED = ["/node_modules/h5wasm/dist/node/", "/node_modules/h5wasm/dist/esm/"];

export async function load(url, context, next) {
  if (url.startsWith("file:") && UNTRANSFORMED.some((folder) => url.includes(folder))) {
    return { format: "module", source: await readFile(new URL(url)), shortCircuit: true };
  }
  return next(url, context);
}
