/**
 * The anomaly's walk, chosen per input (plan/walkPlan.ts): for the mean methods on inputs
 * stored a few time steps per chunk, two passes in storage order (sums per group, merged
 * across shares through the job's scratch; then the anomalies); for the median methods on
 * such inputs, the input transposed once into time-whole tiles of the scratch, then the tile
 * walk over those; otherwise the tile walk through time (analysis/anomaly.ts).
 */
import { type AnomalyPlan, anomalyPixelType, anomalyTileShape, computeAnomaly } from "../analysis/anomaly.js";
import { type AnomalyStreamPlan, accumulateUnit, anomalyMomentBytes, applyUnit, streamsMethod } from "../analysis/anomalyStream.js";
import type { ReferenceSource } from "../analysis/referenceSlots.js";
import { GroupMoments, groupViewOffsets } from "../analysis/groupMoments.js";
import { type StreamUnit, streamUnits } from "../analysis/runs.js";
import { transposeWalk } from "./transposeWalk.js";
import { anomalyApplyCost, medianTilesCost } from "./passCosts.js";
import { groupKeys } from "../analysis/groups.js";
import { statisticsAccumulator } from "../analysis/statistics.js";
import { TIME_TILE_BUDGET_BYTES } from "../analysis/tiles.js";
import { STD_TIME, type Cube, type Variable, variableNamed } from "../cube/types.js";
import { type OutputCompression, TILE } from "../io/zarrWrite.js";
import { overviewFactors } from "../io/zarrOverviews.js";
import { ACCUMULATOR_BUDGET_BYTES, type TaskWalk, type WalkPlan, chooseWalk, cubeWalk, taskWalk } from "../plan/walkPlan.js";
import type { Scratch, ScratchFile } from "../store/scratch.js";
import type { OpenedInput, VariableStatistics } from "./common.js";

/** The walk of an anomaly: the tile walk, streaming passes with each variable's bands and runs, or a transpose. */
export type AnomalyWalk = TaskWalk<AnomalyPlan & Pick<AnomalyStreamPlan, "keepInput">>;

/**
 * Stream when every variable streams; threads share the job's memory as they share its tile
 * budget (perThread), so the accumulators' budget shrinks with it. A mean method whose output
 * is of the input's type keeps the input's values raw beside the output between its passes
 * (BlockSink.keepBlock), so the input is decoded once, not twice: on the bench's daily cube
 * (NetCDF-4, zlib) the zstd anomaly took 6.3-7.1 s against 7.1-7.7 s decoding it again, and
 * reading the kept values back beat reading even a NetCDF-3 copy again (7.1 against 7.7 s).
 * @example
 * const walk = chooseAnomalyWalk(cube, plan);
 */
export function chooseAnomalyWalk(cube: Cube, plan: AnomalyPlan): AnomalyWalk {
  const share = (plan.tileBudgetBytes ?? TIME_TILE_BUDGET_BYTES) / TIME_TILE_BUDGET_BYTES;
  const external = plan.calculationInterval === "EXTERNAL_RASTER";
  const walks = new Map<string, WalkPlan>();
  for (const name of plan.variables) {
    const v = variableNamed(cube, name);
    const shape = streamsMethod(plan)
      ? {
          // EXTERNAL_RASTER keeps no sums: one pass against the reference.
          bytesPerPixelGroup: external ? 0 : anomalyMomentBytes(plan),
          groups: external ? 1 : groupCount(v, plan),
          outputRows: TILE,
        }
      : undefined;
    walks.set(name, chooseWalk(v, plan.window, shape, anomalyTileShape(v, plan), ACCUMULATOR_BUDGET_BYTES * share));
  }
  const walk = taskWalk(cubeWalk(walks, plan.window, "tiles through time"), plan);
  const keepInput =
    walk.kind === "stream" &&
    !external &&
    plan.variables.every((name) => {
      const { pixelType } = variableNamed(cube, name);
      return anomalyPixelType(pixelType) === pixelType;
    });
  if (!keepInput) return walk;
  return {
    ...walk,
    note: `${walk.note} Pass 1 keeps the input's values, raw, beside the output, and pass 2 reads them back instead of decoding the input again.`,
    plan: { ...walk.plan, keepInput },
  };
}

function groupCount(v: Variable, plan: AnomalyPlan): number {
  const time = v.dimensions.find((d) => d.name === STD_TIME)!;
  return groupKeys(time.values, plan.calculationInterval as Exclude<AnomalyPlan["calculationInterval"], "EXTERNAL_RASTER">).reduce(
    (m, g) => Math.max(m, g + 1),
    0,
  );
}

/**
 * Output chunks of a streamed variable: a tile no taller than a band, its columns split
 * evenly (in multiples of 16, for the overview levels): 1100 columns as three chunks of 368
 * rather than 512 + 512 + 76, whose fill a raw store (context.compression NONE) would write
 * out. A band's rows whole when they hold no more than a TILE × TILE tile's values: a
 * 360 × 720 grid is one chunk a day, not two (half the files to create, 9 % of the zstd
 * anomaly of the bench cube). One slice of each dimension, but for a small grid
 * (no overview levels) several time steps, up to a tile's values: a 4 × 5 grid's 1096 days
 * were 1096 files of 80 bytes. The time steps of a chunk divide the walk's runs, so a run
 * (one share's) is whole chunks and shares never write the same chunk.
 *
 * A raw output (`raw`) of a grid without overview levels is one chunk a run, the band
 * whole (a run is at most RUN_BYTES, plan/walkPlan.ts): raw values need no decoding, so a
 * chunk of several slices costs a reader of one slice nothing but its bytes, and pass 1's
 * kept run becomes the chunk's file (io/zarrChunks.ts takeKept): 183 files for the bench's
 * 1461 days, none made in pass 2.
 */
export function streamedChunks(v: Variable, plan: AnomalyStreamPlan, raw = false): number[] {
  const { width: gridWidth, height } = plan.window;
  // A unit's columns: the window's, or a block's (whole chunks, at most a TILE: plan/walkPlan.ts).
  const width = plan.bandColumns;
  const [first] = plan.runs[v.name];
  const step = first[1] - first[0];
  const levels = overviewFactors(height, gridWidth).length > 0;
  const slices = (steps: number) => v.dimensions.map((d) => (d.name === STD_TIME ? steps : 1));
  if (raw && !levels) return [...slices(step), plan.bandRows, width];
  const rows = Math.min(plan.bandRows, TILE);
  const columns = rows * width <= TILE * TILE ? width : Math.ceil(width / Math.ceil(width / TILE) / 16) * 16;
  // The largest divisor of the runs' length whose time steps fit a tile's values.
  let steps = levels ? 1 : step;
  while (step % steps !== 0 || steps * rows * columns > TILE * TILE) steps--;
  return [...slices(steps), rows, columns];
}

/**
 * The walk of an anomaly as OpenedInput's passes: compute and merge.
 * @example
 * const { walk, compute, merge } = anomalyWalk(cube, chooseAnomalyWalk(cube, plan), plan, reference);
 */
export function anomalyWalk(
  cube: Cube,
  chosen: AnomalyWalk,
  plan: AnomalyPlan & { readonly compression?: OutputCompression },
  reference: Cube | undefined,
): Pick<OpenedInput, "walk" | "compute" | "merge"> {
  const compressed = plan.compression !== "NONE";
  if (chosen.kind === "tile") {
    // Paced by reading, inflating and writing an output as large as the input (the tiles'
    // arithmetic a SIMD kernel's), as the transposed medians' tiles are: one thread computes,
    // another inflates its chunks. On the bench's cube stored 365 × 60 × 60 a chunk, the mean
    // anomaly took 10.2-14.0 s and 278 MB so against 10.5-10.9 s and 430 MB with two threads
    // computing; the median anomaly 11.6-12.9 s and 270 MB against 10.5 s and 421 MB.
    return {
      walk: { passes: 1, note: chosen.note, streamed: [0], fetchAside: [0] },
      compute: (sink, walk) => computeAnomaly(cube, plan, sink, { ...walk, reference }),
    };
  }
  if (chosen.kind === "transpose") {
    const fitted = chosen.plan;
    const tiles = Object.fromEntries(plan.variables.map((name) => [name, anomalyTileShape(variableNamed(cube, name), fitted)]));
    return transposeWalk(
      cube,
      plan.variables,
      { window: plan.window, tiles, runs: chosen.runs, bandRows: chosen.bandRows, bandColumns: chosen.bandColumns },
      chosen,
      true,
      (transposed, sink, walk) => computeAnomaly(transposed, fitted, sink, { ...walk, reference }),
      (threads) => medianTilesCost(compressed, threads),
    );
  }
  const stream = chosen.plan;
  const units = streamUnits(cube, stream);
  const external = plan.calculationInterval === "EXTERNAL_RASTER";
  const passes = external ? 1 : 2;
  const last = passes - 1;
  return {
    walk: {
      passes,
      note: chosen.note,
      shares: chosen.shares,
      streamed: external ? [0] : [0, 1],
      cost: (pass, threads) => (pass === 0 ? 1 : anomalyApplyCost(compressed, threads)),
    },
    async compute(sink, walk) {
      const pass = walk.pass ?? 0;
      const index = walk.share?.index ?? 0;
      const progress = (u: number) => (f: number) => walk.onProgress?.((u + f) / units.length);
      const statistics = new Map(plan.variables.map((name) => [name, statisticsAccumulator()]));
      let moments: GroupMoments | undefined;
      for (const [u, unit] of units.entries()) {
        const unitWalk = { share: walk.share, signal: walk.signal, onProgress: progress(u) };
        if (pass < last) {
          moments = await accumulateUnit(cube, stream, unit, unitWalk, sink, moments);
          await walk.scratch!.writeArrays(`u${u}-s${index}`, moments.views());
          continue;
        }
        const ref = external ? undefined : referenceSource(walk.scratch!, u, unit, cube, stream);
        await applyUnit(cube, stream, unit, ref, sink, statistics.get(unit.variable)!, { ...unitWalk, referenceCube: reference });
      }
      for (const acc of statistics.values()) await acc.settled();
      return new Map([...statistics].map(([name, acc]) => [name, pass === last ? acc.result() : undefined])) as VariableStatistics;
    },
    async merge(_pass, shares, scratch) {
      for (const [u, unit] of units.entries()) {
        // A group at a time, each share's sums read straight into the arrays of a GroupMoments
        // of one group: the merge holds two shares' sums of one group, not of all (84 MB for
        // a daily cube's months on 2 threads, at the moment the threads' next arenas start).
        const shape = momentsShape(cube, stream, unit);
        const one = { ...shape, groups: 1 };
        const [sums, other] = [new GroupMoments(one), new GroupMoments(one)];
        const parts: ScratchFile[] = [];
        let reference: ScratchFile | undefined;
        try {
          for (let s = 0; s < shares; s++) parts.push(await scratch.openAt(`u${u}-s${s}`, "read"));
          reference = await scratch.openAt(`u${u}-ref`, "write");
          for (let g = 0; g < shape.groups; g++) {
            const offsets = groupViewOffsets(shape, g);
            const read = (from: ScratchFile, into: GroupMoments) => Promise.all(into.views().map((a, i) => from.readAt(a, offsets[i])));
            await read(parts[0], sums);
            for (let s = 1; s < shares; s++) {
              await read(parts[s], other);
              sums.merge(other);
            }
            const { mean, sd } = sums.finish(plan.ignoreNoData);
            const at = referenceOffsets(shape, g);
            await reference.writeAt(mean, at.mean);
            if (sd) await reference.writeAt(sd, at.sd);
          }
        } finally {
          await Promise.all([...parts, ...(reference ? [reference] : [])].map((f) => f.close()));
        }
      }
    },
  };
}

function momentsShape(cube: Cube, plan: AnomalyStreamPlan, unit: StreamUnit) {
  const v = variableNamed(cube, unit.variable);
  return { groups: groupCount(v, plan), pixels: unit.band.width * unit.band.height, withSd: plan.method === "Z_SCORE" };
}

/** Where group `g`'s µ and s lie in a unit's merged reference (`u<u>-ref`): µ of every group, [g][p], then s of every group (float64). */
function referenceOffsets({ groups, pixels }: { groups: number; pixels: number }, g: number): { mean: number; sd: number } {
  return { mean: g * pixels * 8, sd: (groups + g) * pixels * 8 };
}

/** A unit's merged reference, read a group at a time. */
function referenceSource(scratch: Scratch, u: number, unit: StreamUnit, cube: Cube, plan: AnomalyStreamPlan): ReferenceSource {
  const { groups, pixels, withSd } = momentsShape(cube, plan, unit);
  return {
    groups,
    withSd,
    async readGroup(group, mean, sd) {
      const file = await scratch.openAt(`u${u}-ref`, "read");
      try {
        const at = referenceOffsets({ groups, pixels }, group);
        await file.readAt(mean, at.mean);
        if (sd) await file.readAt(sd, at.sd);
      } finally {
        await file.close();
      }
    },
  };
}
