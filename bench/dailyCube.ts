/**
 * The cube issue 11 measures on, built here so the bench needs nothing but Debian's
 * netcdf-bin: a daily float32 temperature (a seasonal cycle by latitude plus noise that
 * compresses as real data does, not a smooth formula) written as NetCDF-3 (one record per
 * day, the grid of test/helpers/bigCube.ts), then copied by
 * nccopy to NetCDF-4 as daily products ship: one time step per chunk, zlib level 1, shuffle.
 */
import { execFile } from "node:child_process";
import { rm, stat } from "node:fs/promises";
import { promisify } from "node:util";
import { writeBigCube } from "../test/helpers/bigCube.js";

const run = promisify(execFile);

/**
 * The NetCDF-4 cube at `nc4` (and its NetCDF-3 source at `nc3`), made when missing.
 * @example
 * await dailyCube("bench/out/daily.nc", "bench/out/daily3.nc", 1461, 360, 720);
 */
export async function dailyCube(nc4: string, nc3: string, times: number, height: number, width: number): Promise<void> {
  if (!(await stat(nc3).catch(() => undefined))) await writeNoisyCube(nc3, times, height, width);
  if (await stat(nc4).catch(() => undefined)) return;
  await run("nccopy", ["-k", "nc4", "-d1", "-s", "-c", `time/1,lat/${height},lon/${width}`, nc3, `${nc4}.partial`]);
  await run("mv", [`${nc4}.partial`, nc4]);
}

async function writeNoisyCube(path: string, times: number, height: number, width: number): Promise<void> {
  await rm(path, { force: true });
  let seed = 0x9e3779b9;
  // xorshift32, then a sum of 3 uniforms: noise of about ±2 K that zlib cannot squeeze away.
  const noise = (): number => {
    let s = 0;
    for (let k = 0; k < 3; k++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      s += (seed >>> 0) / 4294967296;
    }
    return (s - 1.5) * 2.3;
  };
  await writeBigCube(path, { times, height, width }, (t, row) => {
    const lat = 90 - (180 / height) * (row + 0.5);
    const season = Math.sin((2 * Math.PI * (t - 105)) / 365.25);
    return 288 - (30 * Math.abs(lat)) / 90 + (10 * season * lat) / 90 + noise();
  });
}

/**
 * A copy of the NetCDF-4 cube at `nc4` stored many time steps per chunk (`timeChunk` × `edge`
 * × `edge`, zlib level 1, shuffle), as files written for point time series are and many Zarr
 * stores: made at `copy` when missing.
 * @example
 * await timeChunkedCopy("bench/out/daily.nc", "bench/out/daily_t365.nc", 365, 60);
 */
export async function timeChunkedCopy(nc4: string, copy: string, timeChunk: number, edge: number): Promise<void> {
  if (await stat(copy).catch(() => undefined)) return;
  await run("nccopy", ["-d1", "-s", "-c", `time/${timeChunk},lat/${edge},lon/${edge}`, nc4, `${copy}.partial`]);
  await run("mv", [`${copy}.partial`, copy]);
}
