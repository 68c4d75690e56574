/**
 * One measured run in its own process (clean peak RSS): `anomaly` computes a
 * RECURRING_MONTHLY difference from the mean on this thread; `job-N` runs the same as a job
 * of the job service (worker thread, tiles shared over N threads); `copy` (the peer) decodes
 * the cube once and writes it once, the floor any pass over the data pays. Prints one JSON line.
 * Usage: node --import tsx bench/anomalyChild.ts <anomaly|job-N|copy> <in.nc> <out.zarr>
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { createJobService } from "../src/jobs/executor.js";
import { openCube } from "../src/io/open.js";
import { openMetadataDb } from "../src/store/metadataDb.js";
import { type AnomalyOptions, writeAnomaly } from "../src/tasks/anomaly.js";
import { wholeCubePlan } from "../src/tasks/plan.js";
import { writeSubset } from "../src/tasks/subset.js";

const [mode, input, output] = process.argv.slice(2);
const cube = await openCube(input);
const window = { x: 0, y: 0, width: cube.grid.width, height: cube.grid.height };
const plan = {
  variables: ["tas"],
  method: "DIFFERENCE_FROM_MEAN",
  calculationInterval: "RECURRING_MONTHLY",
  ignoreNoData: true,
  window,
} as const;
const t0 = performance.now();
if (mode === "anomaly") {
  await writeAnomaly(cube, plan, output);
} else if (mode.startsWith("job-")) {
  await runAsJob(Number(mode.slice(4)));
} else {
  await writeSubset(cube, wholeCubePlan(cube), output);
}
const seconds = (performance.now() - t0) / 1000;
await cube.close();
process.stdout.write(`${JSON.stringify({ seconds, peakMB: process.resourceUsage().maxRSS / 1024 })}\n`);

/** The anomaly as a job of the job service with `threads` threads per job (into a raster store at `output`). */
async function runAsJob(threads: number): Promise<void> {
  await mkdir(output, { recursive: true });
  const db = await openMetadataDb(join(output, "strata.db"));
  const jobs = createJobService({
    db,
    workerModule: new URL("../src/tasks/worker.ts", import.meta.url),
    workers: 1,
    threadsPerJob: threads,
    log: (m, e) => console.error(m, e),
  });
  const options: AnomalyOptions = { ...plan, input: { path: input } };
  const { id } = await jobs.submit("GenerateMultidimensionalAnomaly", "bench", {}, { dataDir: output, task: options });
  for (;;) {
    const job = (await jobs.get(id))!;
    if (job.status === "esriJobSucceeded") break;
    if (job.status === "esriJobFailed" || job.status === "esriJobTimedOut") throw new Error(JSON.stringify(job.messages));
    await new Promise((r) => setTimeout(r, 50));
  }
  await jobs.close();
  await db.close();
  await rm(output, { recursive: true, force: true });
}
