/**
 * The passes of a transposed walk (plan/walkPlan.ts), for a task whose tile walk needs each
 * pixel's whole series: pass 0 transposes the input into time-whole tiles of the job's
 * scratch (shares take runs of slices), pass 1 is the task's own tile walk over the
 * transposed cube (shares take tiles) and writes the output, `tilesCost` times as long as
 * pass 0 on the job's threads (tasks/passCosts.ts). Pass 0 is a streamed pass
 * (OpenedInput.walk.streamed), and so is pass 1 when `tilesStream`: when it writes an output
 * as large as its input (an anomaly's), its share's chunk encoder keeps a second core busy
 * as a streamed pass's does (the median anomaly on 2 threads of a 2-core machine: 8.3-8.7 s
 * against 7.3-7.5 s on one, and 120-160 MB more).
 */
import { streamUnits } from "../analysis/runs.js";
import { type TransposeKernels, type TransposeLayout, transposeUnit, transposedCube } from "../analysis/transpose.js";
import type { Cube } from "../cube/types.js";
import type { BlockSink } from "../analysis/subset.js";
import type { OpenedInput, VariableStatistics, WalkOptions } from "./common.js";

/**
 * @example
 * return transposeWalk(cube, plan.variables, layout, chosen, true, (transposed, sink, walk) => computeAnomaly(transposed, plan, sink, walk), (threads) => medianTilesCost(true, threads));
 */
export function transposeWalk(
  cube: Cube,
  variables: readonly string[],
  layout: TransposeLayout,
  chosen: { readonly note: string; readonly shares: number },
  tilesStream: boolean,
  tileWalk: (transposed: Cube, sink: BlockSink, walk: WalkOptions) => Promise<VariableStatistics>,
  tilesCost: (threads: number) => number,
): Pick<OpenedInput, "walk" | "compute"> {
  const { window, bandRows, bandColumns, runs } = layout;
  const units = streamUnits(cube, { variables, window, bandRows, bandColumns, runs });
  return {
    walk: {
      passes: 2,
      note: chosen.note,
      shares: chosen.shares,
      streamed: tilesStream ? [0, 1] : [0],
      cost: (pass, threads) => (pass === 0 ? 1 : tilesCost(threads)),
    },
    async compute(sink, walk) {
      const scratch = walk.scratch!;
      if ((walk.pass ?? 0) === 1) return tileWalk(transposedCube(cube, layout, scratch), sink, walk);
      const kernels: TransposeKernels = new Map();
      for (const [u, unit] of units.entries()) {
        const onProgress = (f: number) => walk.onProgress?.((u + f) / units.length);
        await transposeUnit(cube, layout, unit, scratch, { share: walk.share, signal: walk.signal, onProgress }, kernels);
      }
      return new Map(variables.map((name) => [name, undefined]));
    },
  };
}
