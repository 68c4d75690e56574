/**
 * Benchmarks, reported as ratios against a peer run in the same script (these machines
 * are noisy, absolute times are not comparable across runs):
 * - tile read: a 64×64 tile through every time step of a 1 GB cube, from NetCDF-3 and from
 *   Strata's Zarr, in a child process each, with the resident memory it adds; the peer is
 *   reading the same time steps as whole slices (what a slice-at-a-time reader does);
 * - convert: NetCDF-3 -> Zarr v3 (zstd) of the same cube; the peer is copying its bytes;
 * - anomaly (bench/anomaly.ts): RECURRING_MONTHLY anomaly of a daily cube over 2 GB, time
 *   and peak RSS, against decoding and writing the cube once; as a job on 2 threads vs 1;
 * - export (bench/exportImage.ts): median warm and cold latency of a 512×512 PNG exportImage
 *   on a 1440×720 grid.
 * - cdo (bench/cdo.ts): the engine on a daily NetCDF-4 cube stored one step per chunk with
 *   zlib (anomalies, trends, threads, a REST job, memory) against CDO, medians of 3 with peak
 *   memory; --long adds a cube four times longer, --no-kendall leaves Mann-Kendall out,
 *   --time-chunked adds a copy stored 365 × 60 × 60 a chunk (tiles of whole chunks; Subset a chunk at once).
 * - codecs (bench/codecs.ts): encode and decode speed and size of the output codec's candidates.
 * - encoders (bench/imageEncoders.ts): 1024×1024 exportImage PNG and JPEG with sharp against the
 *   pure-JS encoders (two servers in one run), the encoding alone, and each server's peak memory.
 * - cluster (bench/cluster.ts): the job queue: a Subset job on 1 and on 2 `strata worker`
 *   processes, and a tiny Subset job's submit-to-Succeeded through the queue vs the embedded path.
 * Usage: npm run bench [-- --only tiles|anomaly|export|cdo|codecs|encoders|cluster] [--times 1000] [--anomaly-times 2100] [--cdo-times 1461] [--long] [--no-kendall] [--time-chunked]
 * (outputs go to bench/out/, git-ignored)
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { openCube } from "../src/io/open.js";
import { wholeCubePlan } from "../src/tasks/plan.js";
import { writeSubset } from "../src/tasks/subset.js";
import { writeBigCube } from "../test/helpers/bigCube.js";
import { benchAnomaly } from "./anomaly.js";
import { benchCdo } from "./cdo.js";
import { benchCluster } from "./cluster.js";
import { benchCodecs } from "./codecs.js";
import { benchExportImage } from "./exportImage.js";
import { benchImageEncoders } from "./imageEncoders.js";

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    times: { type: "string", default: "1000" },
    "anomaly-times": { type: "string", default: "2100" },
    "cdo-times": { type: "string", default: "1461" },
    only: { type: "string" },
    long: { type: "boolean", default: false },
    "no-kendall": { type: "boolean", default: false },
    "time-chunked": { type: "boolean", default: false },
  },
});
const shape = { times: Number(values.times), height: 360, width: 720 };
const out = new URL("./out/", import.meta.url).pathname;
await mkdir(out, { recursive: true });
const nc = join(out, "cube.nc");
const zarr = join(out, "cube.zarr");

const seconds = async (f: () => Promise<unknown>) => {
  const t0 = performance.now();
  await f();
  return (performance.now() - t0) / 1000;
};

interface TileMeasure {
  addedMB: number;
  seconds: number;
}
async function measureTile(path: string, wholeSlices: boolean): Promise<TileMeasure> {
  const script = new URL("../test/helpers/measureTileRead.ts", import.meta.url).pathname;
  const size = wholeSlices ? "whole" : "64";
  const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", script, path, "tas", "300", "100", size]);
  return JSON.parse(stdout) as TileMeasure;
}

const rows: string[][] = [["measure", "Strata", "peer", "ratio"]];
const only = (what: string) => values.only === undefined || values.only === what;
if (only("tiles")) rows.push(...(await benchTiles()));
if (only("anomaly")) rows.push(...(await benchAnomaly(out, Number(values["anomaly-times"]))));
if (only("export")) rows.push(...(await benchExportImage(out)));
if (only("cdo"))
  rows.push(
    ...(await benchCdo(out, Number(values["cdo-times"]), {
      long: values.long,
      kendall: !values["no-kendall"],
      timeChunked: values["time-chunked"],
    })),
  );
if (only("codecs")) rows.push(...(await benchCodecs()));
if (only("encoders")) rows.push(...(await benchImageEncoders()));
if (only("cluster")) rows.push(...(await benchCluster(out)));
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));

async function benchTiles(): Promise<string[][]> {
  console.log(`cube: ${shape.times} x ${shape.height} x ${shape.width} float32`);
  if (!(await stat(nc).catch(() => undefined))) await writeBigCube(nc, shape);
  const gb = (await stat(nc)).size / 1e9;
  console.log(`NetCDF-3 file: ${gb.toFixed(2)} GB`);

  await rm(zarr, { recursive: true, force: true });
  const cube = await openCube(nc);
  const convert = await seconds(() => writeSubset(cube, wholeCubePlan(cube), zarr));
  await cube.close();
  const copy = await seconds(() => copyFile(nc, join(out, "copy.nc")));
  await rm(join(out, "copy.nc"));

  const rows: string[][] = [];
  rows.push(["convert to Zarr (s) vs copying the bytes", convert.toFixed(2), copy.toFixed(2), (convert / copy).toFixed(1)]);
  for (const [label, path] of [
    ["NetCDF-3", nc],
    ["Zarr v3", zarr],
  ] as const) {
    const tile = await measureTile(path, false);
    const whole = await measureTile(path, true);
    rows.push([
      `${label} 64x64 tile, all steps (s) vs whole slices`,
      tile.seconds.toFixed(2),
      whole.seconds.toFixed(2),
      (tile.seconds / whole.seconds).toFixed(2),
    ]);
    rows.push([
      `${label} 64x64 tile, MB above rest vs whole slices`,
      tile.addedMB.toFixed(1),
      whole.addedMB.toFixed(1),
      (tile.addedMB / whole.addedMB).toFixed(3),
    ]);
  }
  return rows;
}
