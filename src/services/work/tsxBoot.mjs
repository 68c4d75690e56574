// Boot of a work thread run from TypeScript sources (see pool.ts): Node 20 does not apply
// the parent's tsx loader to worker threads, so register it here, then hand over to the
// real entry. Compiled builds start thread.js directly and never load this file.
import { register } from "node:module";
import { workerData } from "node:worker_threads";

const tsx = await import(workerData.tsx);
tsx.register();
// Registered after tsx, so it runs first: h5wasm loads as it is (see the file).
register(new URL("../../../scripts/tsxPassThrough.mjs", import.meta.url));
const entry = await import(workerData.entry);
export default entry.default;
