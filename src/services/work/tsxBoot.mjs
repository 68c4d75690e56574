// Boot of a work thread run from TypeScript sources (see pool.ts): Node 20 does not apply
// the parent's tsx loader to worker threads, so register it here, then hand over to the
// real entry. Compiled builds start thread.js directly and never load this file.
import { workerData } from "node:worker_threads";

const { register } = await import(workerData.tsx);
register();
const entry = await import(workerData.entry);
export default entry.default;
