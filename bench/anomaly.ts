/**
 * Anomaly on a synthetic daily cube of over 2 GB (NetCDF-3, one slice per record), with time
 * and peak RSS, next to a peer run in the same script: decoding the cube once and writing it
 * once (what any single pass costs); and the same anomaly as a job sharing its tiles over 2
 * threads against 1. Issue 4 asks for peak RSS under 1 GB.
 * Usage: npm run bench -- --only anomaly [--times 2100]
 */
import { execFile } from "node:child_process";
import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { writeBigCube } from "../test/helpers/bigCube.js";

const run = promisify(execFile);

export async function benchAnomaly(out: string, times: number): Promise<string[][]> {
  await mkdir(out, { recursive: true });
  const input = join(out, `daily_${times}.nc`);
  if (!(await stat(input).catch(() => undefined))) await writeBigCube(input, { times, height: 360, width: 720 });
  const gb = (await stat(input)).size / 1e9;
  const child = new URL("./anomalyChild.ts", import.meta.url).pathname;
  const measure = async (mode: string) => {
    const target = join(out, `${mode}.zarr`);
    await rm(target, { recursive: true, force: true });
    const { stdout } = await run(process.execPath, ["--import", "tsx", child, mode, input, target], { maxBuffer: 1 << 20 });
    await rm(target, { recursive: true, force: true });
    return JSON.parse(stdout) as { seconds: number; peakMB: number };
  };
  const anomaly = await measure("anomaly");
  const job1 = await measure("job-1");
  const job2 = await measure("job-2");
  const copy = await measure("copy");
  return [
    [
      `anomaly RECURRING_MONTHLY on ${gb.toFixed(2)} GB (s) vs decode+write once`,
      anomaly.seconds.toFixed(1),
      copy.seconds.toFixed(1),
      (anomaly.seconds / copy.seconds).toFixed(2),
    ],
    [
      "same as a job, 2 threads vs 1 thread (s)",
      job2.seconds.toFixed(1),
      job1.seconds.toFixed(1),
      (job2.seconds / job1.seconds).toFixed(2),
    ],
    [
      "same as a job, 2 threads vs 1 thread, peak RSS (MB)",
      job2.peakMB.toFixed(0),
      job1.peakMB.toFixed(0),
      (job2.peakMB / job1.peakMB).toFixed(2),
    ],
    [
      "anomaly peak RSS (MB) vs decode+write once",
      anomaly.peakMB.toFixed(0),
      copy.peakMB.toFixed(0),
      (anomaly.peakMB / copy.peakMB).toFixed(2),
    ],
  ];
}
