/**
 * Issue 15's data: ten years of daily values (3,652 days from 2000-01-01) on a coarse global
 * grid, published as a hosted service through addItem + publish, and a LINEAR trend of it
 * made by GenerateTrendRaster with its input given by URL (so the job records the input).
 * Each pixel is 15 + slope·days + 4·cos(2π·days/365.25) + a deterministic wobble, with a slope
 * that grows eastward from −2e-4 to 2e-4 °C per day, so the Slope band varies across the map.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { latLonDims, latLonVars } from "../helpers/latLonAxes.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";
import { type TestServer, waitForJob } from "../helpers/server.js";

export const DAYS = 3652;
export const LONS = Array.from({ length: 36 }, (_, i) => -175 + 10 * i);
export const LATS = Array.from({ length: 13 }, (_, i) => -60 + 10 * i);
/** The slope (°C per day) of a column: linear in longitude, −2e-4 at the west edge to 2e-4 east. */
export const slopeAt = (lon: number) => (2e-4 * lon) / 175;
const wobble = (t: number, i: number) => 0.3 * Math.sin(t * 1.7 + i * 0.9) * Math.cos(t * 0.31);
export const valueAt = (t: number, lat: number, lon: number, i: number) =>
  15 + slopeAt(lon) * t + 4 * Math.cos((2 * Math.PI * t) / 365.25) + 0.05 * lat + wobble(t, i);

export async function writeDailyCube(path: string): Promise<void> {
  await writeNetcdf3(path, {
    dims: [{ name: "time", size: DAYS, record: true }, ...latLonDims(LATS, LONS)],
    vars: [
      ...latLonVars(LATS, LONS),
      { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: (t) => [t] },
      {
        name: "temp",
        dims: ["time", "lat", "lon"],
        type: "float",
        attrs: { units: "degC", long_name: "daily temperature" },
        data: (t) => LATS.flatMap((lat, r) => LONS.map((lon, c) => valueAt(t, lat, lon, r * LONS.length + c))),
      },
    ],
  });
}

/** Upload and publish the cube as `daily_temp`, then fit its LINEAR trend as `daily_trend`. */
export async function publishDailyAndTrend(server: TestServer, user: string, token: string): Promise<{ daily: string; trend: string }> {
  const dir = await mkdtemp(join(tmpdir(), "strata-daily-"));
  try {
    const file = join(dir, "daily.nc");
    await writeDailyCube(file);
    const post = async (path: string, fields: Record<string, string | Blob>) => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ f: "json", token, ...fields })) form.set(k, v);
      return (await fetch(`${server.url}${path}`, { method: "POST", body: form })).json();
    };
    const added = await post(`/sharing/rest/content/users/${user}/addItem`, {
      file: new Blob([await readFile(file)]),
      filename: "daily.nc",
      title: "Daily temperature",
    });
    if (!added.success) throw new Error(`addItem: ${JSON.stringify(added)}`);
    const published = await post(`/sharing/rest/content/users/${user}/publish`, {
      itemId: added.id,
      publishParameters: JSON.stringify({ name: "daily_temp" }),
    });
    const daily = published.services?.[0]?.serviceurl as string;
    if (!daily) throw new Error(`publish: ${JSON.stringify(published)}`);
    const submitted = await server.call(
      `${server.tools}/GenerateTrendRaster/submitJob`,
      {
        inputMultidimensionalRaster: JSON.stringify({ url: daily }),
        outputName: "daily_trend",
        dimension: "StdTime",
        trendLineType: "LINEAR",
        slopePValue: "true",
      },
      { token },
    );
    const job = await waitForJob(server, "GenerateTrendRaster", submitted.jobId, token, 120_000);
    if (job.jobStatus !== "esriJobSucceeded") throw new Error(`trend: ${JSON.stringify(job.messages)}`);
    return { daily, trend: daily.replace("/daily_temp/", "/daily_trend/") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
