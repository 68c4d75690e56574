/**
 * Strata against CDO on the same daily NetCDF-4 cube (one time step per chunk, zlib 1 +
 * shuffle), alternating, medians of 3, with each run's peak memory: the anomaly
 * DIFFERENCE_FROM_MEAN RECURRING_MONTHLY (`strata`: writeAnomaly in its own process) against
 * `cdo ymonsub x -ymonmean x`. Installs Debian's cdo and netcdf-bin when missing.
 * Usage: npm run bench -- --only cdo [--cdo-times 1461]
 */
import { execFile } from "node:child_process";
import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { dailyCube } from "./dailyCube.js";

const run = promisify(execFile);

export async function benchCdo(out: string, times: number): Promise<string[][]> {
  await mkdir(out, { recursive: true });
  await ensureDebianTools();
  const nc4 = join(out, `daily_${times}_nc4.nc`);
  await dailyCube(nc4, join(out, `daily_${times}_nc3.nc`), times, 360, 720);
  const gb = (await stat(nc4)).size / 1e9;
  const child = new URL("./anomalyChild.ts", import.meta.url).pathname;
  const strata = async () => {
    const target = join(out, "anomaly.zarr");
    await rm(target, { recursive: true, force: true });
    const { stdout } = await run(process.execPath, ["--import", "tsx", child, "anomaly", nc4, target], { maxBuffer: 1 << 20 });
    await rm(target, { recursive: true, force: true });
    return JSON.parse(stdout) as { seconds: number; peakMB: number };
  };
  const cdo = async () => {
    const target = join(out, "cdo_anomaly.nc");
    await rm(target, { force: true });
    const t0 = performance.now();
    const { stderr } = await run("/usr/bin/time", ["-f", "%M", "cdo", "-s", "ymonsub", nc4, "-ymonmean", nc4, target]);
    const seconds = (performance.now() - t0) / 1000;
    await rm(target, { force: true });
    return { seconds, peakMB: Number(stderr.trim().split("\n").pop()) / 1024 };
  };
  const ours: { seconds: number; peakMB: number }[] = [];
  const theirs: { seconds: number; peakMB: number }[] = [];
  for (let i = 0; i < 3; i++) {
    ours.push(await strata());
    theirs.push(await cdo());
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  const [s, c] = [median(ours.map((r) => r.seconds)), median(theirs.map((r) => r.seconds))];
  const [sm, cm] = [median(ours.map((r) => r.peakMB)), median(theirs.map((r) => r.peakMB))];
  return [
    [
      `anomaly RECURRING_MONTHLY, ${times} days, ${gb.toFixed(2)} GB NetCDF-4 (s) vs cdo ymonsub`,
      s.toFixed(1),
      c.toFixed(1),
      (s / c).toFixed(2),
    ],
    ["same, peak memory (MB)", sm.toFixed(0), cm.toFixed(0), (sm / cm).toFixed(2)],
  ];
}

async function ensureDebianTools(): Promise<void> {
  const missing = [];
  for (const [tool, pkg] of [
    ["cdo", "cdo"],
    ["nccopy", "netcdf-bin"],
    ["/usr/bin/time", "time"],
  ]) {
    if (
      !(await run("sh", ["-c", `command -v ${tool}`]).then(
        () => true,
        () => false,
      ))
    )
      missing.push(pkg);
  }
  if (missing.length === 0) return;
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  await run(sudo[0] ?? "apt-get", [...(sudo.length ? ["apt-get"] : []), "install", "-y", "-qq", "--no-install-recommends", ...missing]);
}
