/**
 * One measured run in its own process (clean peak RSS): `anomaly` computes a
 * RECURRING_MONTHLY difference from the mean; `copy` (the peer) decodes the cube once and
 * writes it once, the floor any pass over the data pays. Prints one JSON line.
 * Usage: node --import tsx bench/anomalyChild.ts <anomaly|copy> <in.nc> <out.zarr>
 */
import { openCube } from "../src/io/open.js";
import { writeAnomaly } from "../src/tasks/anomaly.js";
import { wholeCubePlan } from "../src/tasks/plan.js";
import { writeSubset } from "../src/tasks/subset.js";

const [mode, input, output] = process.argv.slice(2);
const cube = await openCube(input);
const t0 = performance.now();
if (mode === "anomaly") {
  const window = { x: 0, y: 0, width: cube.grid.width, height: cube.grid.height };
  await writeAnomaly(
    cube,
    { variables: ["tas"], method: "DIFFERENCE_FROM_MEAN", calculationInterval: "RECURRING_MONTHLY", ignoreNoData: true, window },
    output,
  );
} else {
  await writeSubset(cube, wholeCubePlan(cube), output);
}
const seconds = (performance.now() - t0) / 1000;
await cube.close();
process.stdout.write(`${JSON.stringify({ seconds, peakMB: process.resourceUsage().maxRSS / 1024 })}\n`);
