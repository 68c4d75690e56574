/**
 * The engine against CDO (issue 11) on the same daily NetCDF-4 cube (one time step per
 * chunk, zlib 1 + shuffle), as users run them: `strata run ...` with its default threads (the
 * machine's cores; process start included) against the cdo command, alternating, medians of
 * 3, each run's peak memory and CPU time (GNU time). Rows:
 * - the anomaly DIFFERENCE_FROM_MEAN RECURRING_MONTHLY against `cdo ymonsub x -ymonmean x`,
 *   both writing raw values (Strata with context.compression NONE), and with compressed
 *   output (Strata's default zstd against `cdo -z zip_1`);
 * - the LINEAR trend (with RMSE) against `cdo trend`;
 * - DIFFERENCE_FROM_MEDIAN against the mean anomaly, MANN-KENDALL (one run) against LINEAR
 *   (CDO has neither: the bar is Strata's own streaming rows), SEASONAL-KENDALL (one run)
 *   against MANN-KENDALL;
 * - the mean anomaly with `--threads 2` against `--threads 1` (a job's threads are the cores it
 *   keeps busy: on one, its chunks are encoded and written on its own thread), and
 *   MANN-KENDALL (one run each) likewise, with two MANN-KENDALL runs of one thread at once
 *   against one alone: what the machine's two cores give that work with nothing shared;
 * - the mean anomaly as a job through the REST API (a `strata serve` process with its default
 *   threads, submit to Succeeded) against `strata run`, three of each alternating;
 * - each Strata row's peak memory above rest (a `strata run --help` process), and on a cube
 *   four times longer (`--long`, one run) against this one;
 * - with `--time-chunked`, a copy of the cube stored 365 × 60 × 60 a chunk: the mean anomaly
 *   against `cdo ymonsub` and LINEAR against `cdo trend` (medians of 3), the median anomaly
 *   and MANN-KENDALL against those (once), and Subset of a year against `cdo selyear` (once).
 * Installs Debian's cdo, netcdf-bin and time when missing; builds the CLI first, and stops if
 * a source changes while it runs (the runs would go through tsx).
 * Usage: npm run bench -- --only cdo [--cdo-times 1461] [--long] [--no-kendall] [--time-chunked]
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
// @ts-expect-error -- plain JavaScript without declarations (it runs before anything is built)
import { serverBuildState } from "../scripts/buildState.mjs";
import { startServerProcess } from "../test/helpers/serverProcess.js";
import { dailyCube, timeChunkedCopy } from "./dailyCube.js";
import { median } from "./median.js";

const run = promisify(execFile);
const STRATA = new URL("../bin/strata.js", import.meta.url).pathname;

interface Measured {
  seconds: number;
  peakMB: number;
  /** User and system CPU time (s). */
  cpuSeconds: number;
}

const ANOMALY = ["run", "Anomaly", "--calculationInterval", "RECURRING_MONTHLY"];
/** Output chunks stored raw, as CDO writes NetCDF unless told to compress (context.compression NONE). */
const RAW_OUTPUT = ["--context", '{"compression":"NONE"}'];
const TREND = ["run", "Trend", "--dimension", "StdTime"];

export async function benchCdo(
  out: string,
  times: number,
  options: { long?: boolean; kendall?: boolean; timeChunked?: boolean } = {},
): Promise<string[][]> {
  await mkdir(out, { recursive: true });
  await ensureDebianTools();
  // Compiled as `npm start` builds it (with its stamp: bin/strata.js runs dist/ only when it
  // is fresh, else the sources through tsx, which would time and weigh tsx instead).
  await run("node", [new URL("../scripts/build.mjs", import.meta.url).pathname, "server", "--force"]);
  const nc4 = await cube(out, times);
  const gb = (await stat(nc4)).size / 1e9;
  const target = join(out, "strata_out.zarr");
  /** A `strata run`, on `threads` threads or, absent, its default (the machine's cores). */
  const strata = async (args: string[], input = nc4, threads?: number, output = target) => {
    await rm(output, { recursive: true, force: true });
    const threadArgs = threads === undefined ? [] : ["--threads", String(threads)];
    const m = await timed(process.execPath, [STRATA, ...args, "--input", input, "--output", output, ...threadArgs]);
    await rm(output, { recursive: true, force: true });
    compiledStillFresh();
    return m;
  };
  const cdo = (args: string[]) => timed("cdo", ["-s", ...args]);
  const rest = (await timed(process.execPath, [STRATA, "run", "--help"])).peakMB;

  /** Medians of 3 runs of each of `runs`, alternating. */
  const medians = async (...runs: (() => Promise<Measured>)[]) => {
    const all: Measured[][] = runs.map(() => []);
    for (let i = 0; i < 3; i++) for (const [k, f] of runs.entries()) all[k].push(await f());
    return all.map(medianOf);
  };
  const rows: string[][] = [];
  // Each row is printed as it comes too: a late failure loses none.
  const add = (r: string[]) => {
    console.log(r.join(" | "));
    rows.push(r);
  };
  const row = (what: string, a: Measured, b: Measured) => add([`${what} (s)`, f1(a.seconds), f1(b.seconds), f2(a.seconds / b.seconds)]);
  const memory = (what: string, m: Measured) =>
    add([`  ${what}: peak MB above rest (${rest.toFixed(0)} MB)`, (m.peakMB - rest).toFixed(0), "", ""]);
  const cpu = (a: Measured, b: Measured) =>
    add(["  same, CPU time, user + system (s)", f1(a.cpuSeconds), f1(b.cpuSeconds), f2(a.cpuSeconds / b.cpuSeconds)]);
  const anomalyOut = join(out, "cdo_anomaly.nc");
  console.log(`cube: ${times} days x 360 x 720, NetCDF-4 ${gb.toFixed(2)} GB; Strata rests at ${rest.toFixed(0)} MB`);

  const [raw, ymonsub, mean, zipped] = await medians(
    () => strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEAN", ...RAW_OUTPUT]),
    () => cdo(["ymonsub", nc4, "-ymonmean", nc4, anomalyOut]),
    () => strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEAN"]),
    () => cdo(["-z", "zip_1", "ymonsub", nc4, "-ymonmean", nc4, anomalyOut]),
  );
  row(`anomaly DIFFERENCE_FROM_MEAN RECURRING_MONTHLY, output raw, vs cdo ymonsub x -ymonmean x, ${times} days`, raw, ymonsub);
  add(["  same, peak memory (MB)", raw.peakMB.toFixed(0), ymonsub.peakMB.toFixed(0), f2(raw.peakMB / ymonsub.peakMB)]);
  cpu(raw, ymonsub);
  row("  same, output zstd (Strata's default), vs cdo -z zip_1", mean, zipped);
  cpu(mean, zipped);
  // Alternating with `strata run`s of its own, so both meet the machine in the same state.
  const { job, local } = await asJobs(nc4, () => strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEAN"]));
  add([
    "mean anomaly as a REST job vs strata run (s)",
    f1(job.seconds),
    f1(local.seconds),
    `${job.seconds >= local.seconds ? "+" : ""}${f1(job.seconds - local.seconds)} s`,
  ]);
  add(["  same, server's peak MB above its rest", (job.peakMB - job.restMB).toFixed(0), "", ""]);
  const [linear, cdoTrend] = await medians(
    () => strata(TREND),
    () => cdo(["trend", nc4, join(out, "cdo_a.nc"), join(out, "cdo_b.nc")]),
  );
  row("LINEAR trend with RMSE vs cdo trend", linear, cdoTrend);
  add(["  same, peak memory (MB)", linear.peakMB.toFixed(0), cdoTrend.peakMB.toFixed(0), f2(linear.peakMB / cdoTrend.peakMB)]);
  cpu(linear, cdoTrend);
  const [medianAnomaly] = await medians(() => strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEDIAN"]));
  row("anomaly DIFFERENCE_FROM_MEDIAN vs DIFFERENCE_FROM_MEAN", medianAnomaly, mean);
  memory("median anomaly", medianAnomaly);
  if (options.kendall !== false) {
    // One run: it takes minutes.
    const kendall = await strata([...TREND, "--trendLineType", "MANN-KENDALL"]);
    row("MANN-KENDALL trend vs LINEAR", kendall, linear);
    memory("Mann-Kendall", kendall);
    // What a second core gives.
    const kendallOne = await strata([...TREND, "--trendLineType", "MANN-KENDALL"], nc4, 1);
    const kendallTwo = await strata([...TREND, "--trendLineType", "MANN-KENDALL"], nc4, 2);
    row("MANN-KENDALL trend on 2 threads vs 1", kendallTwo, kendallOne);
    memory("Mann-Kendall on 1 thread", kendallOne);
    memory("Mann-Kendall on 2 threads", kendallTwo);
    // What the machine gives two cores' worth of this work with nothing shared: two
    // processes of one thread at once (the ceiling of the row above).
    const pair = await Promise.all([1, 2].map((k) => strata([...TREND, "--trendLineType", "MANN-KENDALL"], nc4, 1, `${target}.${k}`)));
    const slower = Math.max(...pair.map((m) => m.seconds));
    add([
      "  two such 1-thread runs at once (s), and the work done against one alone",
      f1(slower),
      f1(kendallOne.seconds),
      f2((2 * kendallOne.seconds) / slower),
    ]);
    const seasonal = await strata([...TREND, "--trendLineType", "SEASONAL-KENDALL"]);
    row("SEASONAL-KENDALL trend (days of the year) vs MANN-KENDALL", seasonal, kendall);
    memory("Seasonal-Kendall", seasonal);
  }
  const [two, one] = await medians(
    () => strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEAN"], nc4, 2),
    () => strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEAN"], nc4, 1),
  );
  row("mean anomaly on 2 threads vs 1", two, one);
  memory("mean anomaly on 1 thread", one);
  memory("mean anomaly on 2 threads", two);
  memory("mean anomaly", mean);
  memory("mean anomaly, output raw", raw);
  memory("LINEAR trend", linear);
  if (options.long) {
    const longer = await cube(out, times * 4);
    // One run: it is there for its memory, which does not vary like time.
    const long = await strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEAN"], longer);
    add([
      `mean anomaly on ${times * 4} days vs ${times}: peak MB above rest`,
      (long.peakMB - rest).toFixed(0),
      (mean.peakMB - rest).toFixed(0),
      f2((long.peakMB - rest) / (mean.peakMB - rest)),
    ]);
  }
  if (options.timeChunked) {
    // The tasks walk tiles of whole chunks through time there (plan/walkPlan.ts); Subset reads a chunk's kept days at once.
    const copy = join(out, `daily_${times}_t365.nc`);
    await timeChunkedCopy(nc4, copy, 365, 60);
    const [anomaly, cdoAnomaly] = await medians(
      () => strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEAN"], copy),
      () => cdo(["ymonsub", copy, "-ymonmean", copy, anomalyOut]),
    );
    row("stored 365 x 60 x 60 a chunk: mean anomaly vs cdo ymonsub x -ymonmean x", anomaly, cdoAnomaly);
    add(["  same, peak memory (MB)", anomaly.peakMB.toFixed(0), cdoAnomaly.peakMB.toFixed(0), f2(anomaly.peakMB / cdoAnomaly.peakMB)]);
    memory("same file: mean anomaly", anomaly);
    const [chunkedTrend, chunkedCdoTrend] = await medians(
      () => strata(TREND, copy),
      () => cdo(["trend", copy, join(out, "cdo_a.nc"), join(out, "cdo_b.nc")]),
    );
    row("  same file: LINEAR trend with RMSE vs cdo trend", chunkedTrend, chunkedCdoTrend);
    memory("same file: LINEAR trend", chunkedTrend);
    // One run each: the order statistics, against the mean anomaly and LINEAR on the same file.
    const chunkedMedian = await strata([...ANOMALY, "--method", "DIFFERENCE_FROM_MEDIAN"], copy);
    row("  same file: DIFFERENCE_FROM_MEDIAN vs DIFFERENCE_FROM_MEAN", chunkedMedian, anomaly);
    memory("same file: median anomaly", chunkedMedian);
    if (options.kendall !== false) {
      const chunkedKendall = await strata([...TREND, "--trendLineType", "MANN-KENDALL"], copy);
      row("  same file: MANN-KENDALL vs LINEAR", chunkedKendall, chunkedTrend);
      memory("same file: Mann-Kendall", chunkedKendall);
    }
    // One run each: Strata's takes minutes.
    const year = '[{"dimension":"StdTime","minValue":"2000-01-01","maxValue":"2000-12-31T23:59:59"}]';
    const subset = await strata(["run", "Subset", "--dimensionDefinition", "BY_RANGES", "--dimensionRanges", year], copy);
    const selyear = await cdo(["selyear,2000", copy, anomalyOut]);
    row("  same file: Subset of a year vs cdo selyear", subset, selyear);
    add(["  same, peak memory (MB)", subset.peakMB.toFixed(0), selyear.peakMB.toFixed(0), f2(subset.peakMB / selyear.peakMB)]);
  }
  for (const f of ["cdo_anomaly.nc", "cdo_a.nc", "cdo_b.nc"]) await rm(join(out, f), { force: true });
  return rows;
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

async function cube(out: string, times: number): Promise<string> {
  const nc4 = join(out, `daily_${times}_nc4.nc`);
  await dailyCube(nc4, join(out, `daily_${times}_nc3.nc`), times, 360, 720);
  return nc4;
}

/**
 * Fails the bench when a source changed while it ran: bin/strata.js would then run the
 * sources through tsx, and the rows would time tsx rather than the compiled CLI.
 */
function compiledStillFresh(): void {
  if (serverBuildState() !== "fresh")
    throw new Error("src/ changed during the bench, so its runs went through tsx: run it again with src/ untouched");
}

/** A command's wall time, peak resident memory and CPU time (GNU time's %M, %U and %S). */
async function timed(command: string, args: string[]): Promise<Measured> {
  const t0 = performance.now();
  const { stderr } = await run("/usr/bin/time", ["-f", "%M %U %S", command, ...args], { maxBuffer: 16 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  const [kb, user, system] = stderr.trim().split("\n").pop()!.split(" ").map(Number);
  return { seconds, peakMB: kb / 1024, cpuSeconds: user + system };
}

/**
 * The mean anomaly as jobs of one `strata serve` process (its default threads per job, as
 * `local` runs), each timed from
 * submit to Succeeded (polled every 50 ms) and run after one of `local`'s runs: medians of 3
 * of each, with the server's peak memory sampled during its jobs (their median).
 */
async function asJobs(nc4: string, local: () => Promise<Measured>): Promise<{ job: Measured & { restMB: number }; local: Measured }> {
  const dataDir = await mkdtemp(join(dirname(nc4), "server-"));
  const server = await startServerProcess(dataDir, ["--store", `fileShare:bench=${dirname(nc4)}`, "--no-samples"]);
  try {
    const password = (await readFile(join(dataDir, "initial-admin-password"), "utf8")).trim();
    const form = (o: Record<string, string>) => ({ method: "POST", body: new URLSearchParams(o) });
    const { token } = await (
      await fetch(`${server.url}/sharing/rest/generateToken`, form({ username: "admin", password, f: "json", client: "requestip" }))
    ).json();
    const tools = `${server.url}/rest/services/System/RasterAnalysisTools/GPServer/GenerateMultidimensionalAnomaly`;
    const restMB = await server.rssMb();
    const job = async (k: number): Promise<Measured> => {
      let peak = restMB;
      const sampler = setInterval(() => void server.rssMb().then((mb) => (peak = Math.max(peak, mb))), 100);
      try {
        const t0 = performance.now();
        const submitted = await (
          await fetch(
            `${tools}/submitJob`,
            form({
              f: "json",
              token,
              inputMultidimensionalRaster: JSON.stringify({ uri: `/fileShares/bench/${basename(nc4)}` }),
              method: "DIFFERENCE_FROM_MEAN",
              calculationInterval: "RECURRING_MONTHLY",
              outputName: JSON.stringify({ serviceProperties: { name: `bench_${Date.now()}_${k}` } }),
            }),
          )
        ).json();
        if (!submitted.jobId) throw new Error(`submit refused: ${JSON.stringify(submitted)}`);
        for (;;) {
          const status = await (await fetch(`${tools}/jobs/${submitted.jobId}?f=json&token=${token}`)).json();
          if (status.jobStatus === "esriJobSucceeded") break;
          if (/Failed|TimedOut|Cancelled/.test(status.jobStatus))
            throw new Error(`job ended ${status.jobStatus}: ${JSON.stringify(status.messages)}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        return { seconds: (performance.now() - t0) / 1000, peakMB: peak, cpuSeconds: NaN };
      } finally {
        clearInterval(sampler);
      }
    };
    const jobs: Measured[] = [];
    const locals: Measured[] = [];
    for (let k = 0; k < 3; k++) {
      locals.push(await local());
      jobs.push(await job(k));
    }
    return { job: { ...medianOf(jobs), restMB }, local: medianOf(locals) };
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The median of runs' times and, apart, of their peaks. */
function medianOf(runs: Measured[]): Measured {
  return {
    seconds: median(runs.map((m) => m.seconds)),
    peakMB: median(runs.map((m) => m.peakMB)),
    cpuSeconds: median(runs.map((m) => m.cpuSeconds)),
  };
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
