/**
 * exportImage with sharp against the pure-JS encoders, in one run: two servers, each in a
 * process of its own (`--image-encoder sharp` and `--image-encoder js`), publish the samples
 * on first start and draw 1024×1024 images of the SST climatology sample; requests alternate
 * between them (so the machine's noise falls on both) and each asks a view not drawn before
 * (the image cache never answers). Rows: median latency over HTTP per format, sharp vs JS;
 * the encoding alone (encodeImage in this process, on the RGBA of such an image); and each
 * server's resident memory at rest after start, at its peak over the run, and during and
 * after a burst of concurrent exports.
 * Usage: npm run bench -- --only encoders
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ImageEncoder, type PictureFormat, encodeImage } from "../src/services/render/encodeImage.js";
import { loadSharp } from "../src/services/render/sharpImage.js";
import { decodePng } from "../test/helpers/pngDecode.js";
import { type ServerProcess, startServerProcess } from "../test/helpers/serverProcess.js";
import { median } from "./median.js";

const SIZE = 1024;
const FORMATS: readonly PictureFormat[] = ["png", "png32", "jpg"];
const ENCODERS: readonly ImageEncoder[] = ["sharp", "js"];
const BURST = 100;
/** Longer than the work pool's idle timeout (10 s), so threads beyond the warm one have exited. */
const SETTLE_MS = 15_000;

export async function benchImageEncoders(samples = 15): Promise<string[][]> {
  const dirs = await Promise.all(ENCODERS.map(() => mkdtemp(join(tmpdir(), "strata-bench-encoders-"))));
  const servers: ServerProcess[] = [];
  try {
    for (const [i, encoder] of ENCODERS.entries())
      servers.push(await startServerProcess(dirs[i], ["--image-encoder", encoder, "--allow-anonymous", "--work-threads", "2"]));
    const resting = await Promise.all(servers.map((s) => s.rssMb()));
    let view = 0;
    const request = async (server: ServerProcess, format: PictureFormat): Promise<{ ms: number; bytes: Uint8Array }> => {
      // A new view each time: the bbox moves by a thousandth of a degree.
      const west = -180 + 0.001 * view++;
      const params = new URLSearchParams({
        bbox: `${west},-90,${west + 360},90`,
        bboxSR: "4326",
        size: `${SIZE},${SIZE}`,
        format,
        f: "image",
      });
      const t0 = performance.now();
      const r = await fetch(`${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer/exportImage?${params}`);
      const bytes = new Uint8Array(await r.arrayBuffer());
      if (!r.ok || !r.headers.get("content-type")?.startsWith("image/"))
        throw new Error(`not an image: ${Buffer.from(bytes).toString().slice(0, 200)}`);
      return { ms: performance.now() - t0, bytes };
    };
    const rows: string[][] = [];
    for (const format of FORMATS) {
      const times: number[][] = ENCODERS.map(() => []);
      for (const server of servers) await request(server, format); // warm: threads started, sharp loaded
      for (let k = 0; k < samples; k++) for (const [i, server] of servers.entries()) times[i].push((await request(server, format)).ms);
      const [sharp, js] = times.map(median);
      rows.push([`exportImage ${SIZE}x${SIZE} ${format}: sharp vs pure-JS (median ms)`, ms(sharp), ms(js), (sharp / js).toFixed(2)]);
    }
    // The encoding alone, on the exact RGBA of such an image (a png32 decoded).
    const rgba = decodePng((await request(servers[0], "png32")).bytes).rgba;
    await loadSharp();
    for (const format of FORMATS) {
      const times: number[][] = ENCODERS.map(() => []);
      for (let k = 0; k < samples; k++)
        for (const [i, encoder] of ENCODERS.entries()) {
          const t0 = performance.now();
          await encodeImage(rgba, SIZE, SIZE, format, { encoder });
          times[i].push(performance.now() - t0);
        }
      const [sharp, js] = times.map(median);
      rows.push([`encodeImage ${SIZE}x${SIZE} ${format} alone: sharp vs pure-JS (median ms)`, ms(sharp), ms(js), (sharp / js).toFixed(2)]);
    }
    const peaks = await Promise.all(servers.map((s) => peakRssMb(s.pid)));
    // A burst: BURST concurrent png32 and jpg exports on each server in turn; its resident
    // memory above the level before, at the burst's highest and SETTLE_MS after it.
    const burst: number[][] = [[], []];
    for (const server of servers) {
      const before = await server.rssMb();
      let highest = before;
      const watch = setInterval(() => void server.rssMb().then((mb) => (highest = Math.max(highest, mb))), 100);
      await Promise.all(Array.from({ length: BURST }, (_, k) => request(server, k % 2 ? "jpg" : "png32")));
      clearInterval(watch);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      burst[0].push(highest - before);
      burst[1].push((await server.rssMb()) - before);
    }
    const mb = ([sharp, js]: number[], what: string) => [
      `server ${what}: sharp vs pure-JS (MB)`,
      sharp.toFixed(0),
      js.toFixed(0),
      sharp > 0 && js > 0 ? (sharp / js).toFixed(2) : "-", // memory can settle below rest
    ];
    rows.push(
      mb(resting, "RSS at rest after start"),
      mb(peaks, "peak RSS over the run"),
      mb(burst[0], `RSS above rest during ${BURST} concurrent png32/jpg exports`),
      mb(burst[1], `RSS above rest ${SETTLE_MS / 1000} s after them`),
    );
    return rows;
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}

/** The highest resident memory the process has had (Linux /proc VmHWM), in MB. */
async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmHWM:\s+(\d+)\s+kB/)![1]) / 1024;
}

const ms = (x: number): string => x.toFixed(1);
