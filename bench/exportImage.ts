/**
 * exportImage latency on a 1440×720 grid (a quarter-degree global cube, 24 monthly slices,
 * published through a Subset job as a real output is): the median of a warm 512×512 PNG
 * request (the same image again: served from the image cache) and of a cold one (a slice
 * and view never drawn before: read, resampled to Web Mercator, rendered, encoded), over
 * HTTP on a loopback server started in this process. The peer row is the cold request's
 * own floor: reading the slice's values alone.
 * Usage: npm run bench -- --only export
 */
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { openCube } from "../src/io/open.js";
import { writeBigCube } from "../test/helpers/bigCube.js";
import { startTestServer, waitForJob } from "../test/helpers/server.js";
import { median } from "./median.js";

const SIZE = "512,512";
const R = 6378137;

export async function benchExportImage(out: string, samples = 21): Promise<string[][]> {
  await mkdir(out, { recursive: true });
  const input = join(out, "grid_1440x720.nc");
  if (!(await stat(input).catch(() => undefined))) await writeBigCube(input, { times: 24, height: 720, width: 1440 });
  const server = await startTestServer({ store: [`fileShare:bench=${out}`], "no-samples": true });
  try {
    const token = await server.token("admin", server.adminPassword);
    const submitted = await server.call(
      `${server.tools}/SubsetMultidimensionalRaster/submitJob`,
      { inputMultidimensionalRaster: '{"uri":"/fileShares/bench/grid_1440x720.nc"}', outputName: "bench_1440" },
      { token },
    );
    const job = await waitForJob(server, "SubsetMultidimensionalRaster", submitted.jobId, token, 600_000);
    if (job.jobStatus !== "esriJobSucceeded") throw new Error(JSON.stringify(job.messages));
    const service = `${server.url}/rest/services/Hosted/bench_1440/ImageServer/exportImage`;
    const md = await server.call("/rest/services/Hosted/bench_1440/ImageServer/multidimensionalInfo", { token }, { method: "GET" });
    const times = md.multidimensionalInfo.variables[0].dimensions[0].values as number[];
    const request = async (k: number, bbox: string) => {
      const params = new URLSearchParams({
        bbox,
        bboxSR: "3857",
        imageSR: "3857",
        size: SIZE,
        format: "png",
        time: String(times[k % times.length]),
        f: "image",
        token,
      });
      const t0 = performance.now();
      const r = await fetch(`${service}?${params}`);
      const bytes = await r.arrayBuffer();
      if (r.headers.get("content-type") !== "image/png" || bytes.byteLength < 100)
        throw new Error(`not an image: ${Buffer.from(bytes).toString().slice(0, 200)}`);
      return performance.now() - t0;
    };
    const world = `${-Math.PI * R},${-0.85 * Math.PI * R},${Math.PI * R},${0.85 * Math.PI * R}`;
    // Cold: each request a slice and view not drawn before (panning across the globe).
    const cold: number[] = [];
    for (let k = 0; k < samples; k++) {
      const x = -Math.PI * R + (k / samples) * Math.PI * R;
      cold.push(await request(k, `${x},${-0.4 * Math.PI * R},${x + Math.PI * R},${0.6 * Math.PI * R}`));
    }
    await request(0, world);
    const warm: number[] = [];
    for (let k = 0; k < samples; k++) warm.push(await request(0, world));
    // The floor of a cold request: reading one whole slice of the output.
    const store = join(server.dataDir, "rasters");
    const dataset = (await import("node:fs/promises")).readdir(store).then((names) => names.find((n) => !n.startsWith("."))!);
    const cube = await openCube(join(store, await dataset));
    const read: number[] = [];
    for (let k = 0; k < samples; k++) {
      const t0 = performance.now();
      await cube.variables[0].read({ dims: [[k % times.length, (k % times.length) + 1]] });
      read.push(performance.now() - t0);
    }
    await cube.close();
    const ms = (x: number) => x.toFixed(1);
    return [
      [
        "exportImage 512x512 PNG, 1440x720 grid: warm vs cold (median ms)",
        ms(median(warm)),
        ms(median(cold)),
        (median(warm) / median(cold)).toFixed(3),
      ],
      [
        "exportImage cold (median ms) vs reading the slice alone",
        ms(median(cold)),
        ms(median(read)),
        (median(cold) / median(read)).toFixed(2),
      ],
    ];
  } finally {
    await server.close();
  }
}
