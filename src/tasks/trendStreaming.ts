/**
 * The trend's walk, chosen per input (plan/walkPlan.ts): least-squares fits along StdTime of
 * inputs stored a few time steps per chunk stream in storage order (analysis/trendStream.ts):
 * sums, merged and solved between passes through the job's scratch; the residuals when a
 * statistic is asked; then the bands, written on one thread. Mann-Kendall and Seasonal-
 * Kendall on such inputs transpose them once into time-whole tiles of the scratch and walk
 * those. Otherwise the tile walk (analysis/trendRaster.ts).
 */
import { streamUnits } from "../analysis/runs.js";
import { mergeStatistics, statisticsAccumulator } from "../analysis/statistics.js";
import { type TrendPlan, computeTrend, trendLayout } from "../analysis/trendRaster.js";
import {
  type TrendStreamPlan,
  TrendSums,
  needsResiduals,
  onePassResiduals,
  residualUnit,
  solveUnit,
  streamsTrend,
  sumUnit,
  trendSumBytes,
  writeUnit,
} from "../analysis/trendStream.js";
import { bandNames, bandStatisticsKey, coefficientCount } from "../analysis/trendModel.js";
import type { Cube } from "../cube/types.js";
import { variableNamed } from "../cube/types.js";
import { ACCUMULATOR_BUDGET_BYTES, type TaskWalk, type WalkPlan, chooseWalk, cubeWalk, taskWalk } from "../plan/walkPlan.js";
import type { Scratch } from "../store/scratch.js";
import { TREND_MAX_TILE } from "../analysis/trendRaster.js";
import type { OpenedInput, VariableStatistics } from "./common.js";
import { transposeWalk } from "./transposeWalk.js";
import { TREND_BANDS_COST, TREND_RESIDUALS_COST, kendallTilesCost } from "./passCosts.js";

export type TrendWalk = TaskWalk<TrendPlan>;

/**
 * Stream when every variable streams.
 * @example
 * const walk = chooseTrendWalk(cube, plan, 1);
 */
export function chooseTrendWalk(cube: Cube, plan: TrendPlan, threads: number): TrendWalk {
  const layouts = trendLayout(cube, plan);
  const walks = new Map<string, WalkPlan>();
  for (const layout of layouts) {
    const v = variableNamed(cube, layout.name);
    const shape = streamsTrend(plan)
      ? { bytesPerPixelGroup: trendSumBytes(coefficientCount(plan.model)), groups: 1, outputRows: TREND_MAX_TILE }
      : undefined;
    walks.set(layout.name, chooseWalk(v, plan.window, shape, layout.tile, ACCUMULATOR_BUDGET_BYTES / Math.max(1, threads)));
  }
  return taskWalk(cubeWalk(walks, plan.window, "tiles through the fitted dimension"), plan);
}

/** Output chunks of a streamed trend variable: the bands of a tile no taller than a band, no wider than a block. */
export function streamedTrendChunks(dimensions: number, bands: number, plan: TrendStreamPlan): number[] {
  return [
    ...Array.from({ length: dimensions - 1 }, () => 1),
    bands,
    Math.min(plan.bandRows, TREND_MAX_TILE),
    Math.min(plan.bandColumns, TREND_MAX_TILE),
  ];
}

/**
 * The walk of a trend as OpenedInput's passes: sums, (residuals), bands.
 * @example
 * const { walk, compute, merge } = trendWalk(cube, chooseTrendWalk(cube, plan, 1), plan);
 */
export function trendWalk(cube: Cube, chosen: TrendWalk, plan: TrendPlan): Pick<OpenedInput, "walk" | "compute" | "merge" | "needed"> {
  if (chosen.kind === "tile")
    return { walk: { passes: 1, note: chosen.note }, compute: (sink, walk) => computeTrend(cube, plan, sink, walk) };
  if (chosen.kind === "transpose") {
    // The tiles the walk would take over the input, transposed as such; when every variable's
    // are alike (the usual case) the walk is told to take exactly those, otherwise it derives
    // its own from the transposed chunks and a read may span several transposed tiles.
    const layouts = trendLayout(cube, chosen.plan);
    const tiles = Object.fromEntries(layouts.map((l) => [l.name, l.tile]));
    const fixed = layouts.every((l) => l.tile.height === layouts[0].tile.height && l.tile.width === layouts[0].tile.width);
    const tilePlan = fixed && layouts.length > 0 ? { ...chosen.plan, tile: layouts[0].tile } : chosen.plan;
    return transposeWalk(
      cube,
      plan.variables,
      { window: plan.window, tiles, runs: chosen.runs, bandRows: chosen.bandRows, bandColumns: chosen.bandColumns },
      chosen,
      false,
      (transposed, sink, walk) => computeTrend(transposed, tilePlan, sink, walk),
      kendallTilesCost,
    );
  }
  const stream = chosen.plan;
  const units = streamUnits(cube, stream);
  const residuals = needsResiduals(plan);
  const write = residuals ? 2 : 1;
  const p = coefficientCount(plan.model);
  const pixels = (u: number) => units[u].band.width * units[u].band.height;
  return {
    // The last pass reads no input: one thread writes the bands.
    walk: {
      passes: write + 1,
      note: residuals
        ? `${chosen.note} RMSE, R2 and the p-value come from the sums; pass 2 reads the input again only where a fit is too close to perfect for them.`
        : chosen.note,
      alone: [write],
      streamed: residuals ? [0, 1] : [0],
      // Its sums (and residuals) write nothing while they read: a spare thread inflates their chunks.
      fetchAside: residuals ? [0, 1] : [0],
      shares: chosen.shares,
      cost: (pass) => (pass === 0 ? 1 : pass === write ? TREND_BANDS_COST : TREND_RESIDUALS_COST),
    },
    async compute(sink, walk) {
      const pass = walk.pass ?? 0;
      const index = walk.share?.index ?? 0;
      const scratch = walk.scratch!;
      const progress = (u: number) => (f: number) => walk.onProgress?.((u + f) / units.length);
      const bands = bandNames(plan.model, plan.statistics);
      const bandStatistics = new Map(plan.variables.map((name) => [name, bands.map(() => statisticsAccumulator())]));
      for (const [u, unit] of units.entries()) {
        const unitWalk = { share: walk.share, signal: walk.signal, onProgress: progress(u) };
        if (pass === 0) {
          await scratch.writeArrays(`u${u}-s${index}`, (await sumUnit(cube, stream, unit, unitWalk)).views());
        } else if (pass < write) {
          // Only units whose residuals the sums could not give are read again.
          if ((await readFloats(scratch, `u${u}-reread`))[0] === 0) {
            unitWalk.onProgress(1);
            continue;
          }
          const partial = await residualUnit(cube, stream, unit, await readFloats(scratch, `u${u}-solution`), unitWalk);
          await scratch.writeArrays(`u${u}-r${index}`, [partial]);
        } else {
          walk.signal?.throwIfAborted();
          const solution = await readFloats(scratch, `u${u}-solution`);
          const sums = residuals ? await readFloats(scratch, `u${u}-residuals`) : undefined;
          await writeUnit(cube, plan, unit, solution, sums, sink, bandStatistics.get(unit.variable)!);
          unitWalk.onProgress(1);
        }
      }
      const result: VariableStatistics = new Map(plan.variables.map((name) => [name, undefined]));
      if (pass === write) {
        // A variable's statistics over all its bands are the merge of its bands' (histograms merge exactly).
        for (const [name, accs] of bandStatistics) {
          const perBand = accs.map((acc) => acc.result());
          result.set(name, mergeStatistics(perBand));
          bands.forEach((band, i) => result.set(bandStatisticsKey(name, band), perBand[i]));
        }
      }
      return result;
    },
    // The residual pass only when a unit's sums could not give its residuals.
    async needed(pass, scratch) {
      if (!residuals || pass !== 1) return true;
      for (let u = 0; u < units.length; u++) if ((await readFloats(scratch, `u${u}-reread`))[0] !== 0) return true;
      return false;
    },
    async merge(pass, shares, scratch) {
      for (const [u, unit] of units.entries()) {
        if (pass === 0) {
          // Read straight into the sums' arrays, one share's at a time (see anomalyStreaming's merge).
          const sums = new TrendSums(pixels(u), p);
          await scratch.readArrays(`u${u}-s0`, sums.views());
          const other = shares > 1 ? new TrendSums(pixels(u), p) : undefined;
          for (let s = 1; s < shares; s++) {
            await scratch.readArrays(`u${u}-s${s}`, other!.views());
            sums.merge(other!);
          }
          const solution = solveUnit(cube, plan, unit, sums);
          await scratch.writeArrays(`u${u}-solution`, [solution]);
          if (residuals) {
            const onePass = onePassResiduals(cube, plan, unit, sums, solution);
            await scratch.writeArrays(`u${u}-reread`, [Float64Array.of(onePass.exact ? 0 : 1)]);
            if (onePass.exact) await scratch.writeArrays(`u${u}-residuals`, [onePass.residuals]);
          }
        } else {
          if ((await readFloats(scratch, `u${u}-reread`))[0] === 0) continue;
          const total = await readFloats(scratch, `u${u}-r0`);
          for (let s = 1; s < shares; s++) {
            const part = await readFloats(scratch, `u${u}-r${s}`);
            for (let i = 0; i < total.length; i++) total[i] += part[i];
          }
          await scratch.writeArrays(`u${u}-residuals`, [total]);
        }
      }
    },
  };
}

async function readFloats(scratch: Scratch, name: string): Promise<Float64Array> {
  const bytes = await scratch.read(name);
  // A view when the read landed on an 8-byte boundary (large reads do), else a copy.
  return bytes.byteOffset % 8 === 0
    ? new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8)
    : new Float64Array(bytes.slice().buffer);
}
