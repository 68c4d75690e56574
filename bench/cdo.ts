/**
 * Strata against CDO on the same daily NetCDF-4 cube (one time step per chunk, zlib 1 +
 * shuffle), alternating, medians of 3, with each run's peak memory, both as a user runs
 * them (`strata run ... --threads 1`, process start included, against the cdo command): the
 * anomaly DIFFERENCE_FROM_MEAN RECURRING_MONTHLY against `cdo ymonsub x -ymonmean x`, and
 * the LINEAR trend against `cdo trend`. Installs Debian's cdo, netcdf-bin and time when missing.
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
  const strata = new URL("../bin/strata.js", import.meta.url).pathname;
  const target = join(out, "strata_out.zarr");
  const rows: string[][] = [];
  for (const work of [
    {
      what: "anomaly DIFFERENCE_FROM_MEAN RECURRING_MONTHLY vs cdo ymonsub x -ymonmean x",
      ours: ["run", "Anomaly", "--method", "DIFFERENCE_FROM_MEAN", "--calculationInterval", "RECURRING_MONTHLY"],
      theirs: ["ymonsub", nc4, "-ymonmean", nc4, join(out, "cdo_anomaly.nc")],
    },
    {
      what: "LINEAR trend (with RMSE) vs cdo trend",
      ours: ["run", "Trend", "--dimension", "StdTime"],
      theirs: ["trend", nc4, join(out, "cdo_a.nc"), join(out, "cdo_b.nc")],
    },
  ]) {
    const ours: Measured[] = [];
    const theirs: Measured[] = [];
    for (let i = 0; i < 3; i++) {
      await rm(target, { recursive: true, force: true });
      ours.push(await timed(process.execPath, [strata, ...work.ours, "--input", nc4, "--output", target, "--threads", "1"]));
      await rm(target, { recursive: true, force: true });
      theirs.push(await timed("cdo", ["-s", ...work.theirs]));
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[1];
    const [s, c] = [median(ours.map((r) => r.seconds)), median(theirs.map((r) => r.seconds))];
    const [sm, cm] = [median(ours.map((r) => r.peakMB)), median(theirs.map((r) => r.peakMB))];
    rows.push([`${work.what}, ${times} days, ${gb.toFixed(2)} GB (s)`, s.toFixed(1), c.toFixed(1), (s / c).toFixed(2)]);
    rows.push(["  same, peak memory (MB)", sm.toFixed(0), cm.toFixed(0), (sm / cm).toFixed(2)]);
  }
  for (const f of ["cdo_anomaly.nc", "cdo_a.nc", "cdo_b.nc"]) await rm(join(out, f), { force: true });
  return rows;
}

interface Measured {
  seconds: number;
  peakMB: number;
}

/** A command's wall time and peak resident memory (GNU time's %M). */
async function timed(command: string, args: string[]): Promise<Measured> {
  const t0 = performance.now();
  const { stderr } = await run("/usr/bin/time", ["-f", "%M", command, ...args], { maxBuffer: 16 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, peakMB: Number(stderr.trim().split("\n").pop()) / 1024 };
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
