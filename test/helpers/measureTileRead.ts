/**
 * Run in a child process (clean heap): open a cube, settle, then read one tile through the
 * whole time axis and report the resident memory it added. Prints one JSON line.
 * Usage: node --expose-gc --import tsx test/helpers/measureTileRead.ts <path> <variable> <x> <y> <size|whole>
 * ("whole" reads the full grid of every time step: the peer a tile read is compared with).
 */
import { openCube } from "../../src/io/open.js";

const [path, variable, x, y, size] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const cube = await openCube(path);
const v = cube.variables.find((c) => c.name === variable)!;
// Touch the reader once so lazily loaded code and codecs count as "at rest".
await v.read({ dims: v.dimensions.map(() => [0, 1] as const), window: { x: 0, y: 0, width: 1, height: 1 } });
gc();
await new Promise((r) => setTimeout(r, 50));
const rest = process.memoryUsage().rss;
let peak = rest;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
const t0 = performance.now();
const n = Number(size);
const slab = await v.read(size === "whole" ? {} : { window: { x: Number(x), y: Number(y), width: n, height: n } });
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
const first = [slab.data[0], slab.data[slab.data.length - 1]];
await cube.close();
process.stdout.write(
  `${JSON.stringify({ restMB: rest / 2 ** 20, peakMB: peak / 2 ** 20, addedMB: (peak - rest) / 2 ** 20, seconds, shape: slab.shape, first })}\n`,
);
