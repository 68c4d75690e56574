/**
 * The streaming anomaly (mean, standard deviation and z-score methods; a reference raster):
 * slices are read in runs, in storage order, over bands of rows. Pass 0 accumulates each
 * group's sums per pixel (GroupMoments); once the shares' sums are merged, pass 1 reads the
 * runs again and writes x against µ (and s). EXTERNAL_RASTER needs pass 1 only. Each unit
 * (a variable at one value of its other dimensions, one band) is independent; a share takes
 * every count-th run of each unit, so shares of one pass never write the same chunk.
 */
import type { BlockHold } from "../cube/blockHold.js";
import { STD_TIME, type Cube, type IndexRange, type Selection, type Slab, type Variable, variableNamed } from "../cube/types.js";
import { AnomalyApplyKernel } from "../kernels/anomalyApply.js";
import { type AnomalyPlan, anomalyKind, anomalyLimit, anomalyPixelType, applyAnomalyRow, referenceMismatch } from "./anomaly.js";
import { GroupMoments, momentBytes } from "./groupMoments.js";
import { type GroupInterval, groupKeys } from "./groups.js";
import { type RunWalk, type StreamShape, type StreamUnit, eachRun } from "./runs.js";
import { type ReferenceSource, ReferenceSlots, referenceSlotCount } from "./referenceSlots.js";
import { CHUNK_STATISTICS, type StatisticsAccumulator, statisticsAccumulator } from "./statistics.js";
import type { BlockSink } from "./subset.js";

export type AnomalyStreamPlan = AnomalyPlan &
  StreamShape & {
    /**
     * Keep the input's values in the sink during pass 0 (BlockSink.keepBlock) and read them
     * back in pass 1 instead of decoding the input again: for outputs whose type is the
     * input's (the tasks decide). A run pass 1 does not find kept is read from the input.
     */
    readonly keepInput?: boolean;
  };

/** Whether a method's reference is a mean (streams) rather than a median (needs whole series). */
export const streamsMethod = (plan: Pick<AnomalyPlan, "method">): boolean => !plan.method.includes("MEDIAN");

/** Bytes of accumulators per pixel and group for the plan's method. */
export const anomalyMomentBytes = (plan: Pick<AnomalyPlan, "method">): number => momentBytes(plan.method === "Z_SCORE");

/** The group of each slice of a unit's variable (all in one group for EXTERNAL_RASTER). */
function groupsOf(v: Variable, plan: AnomalyPlan): Int32Array {
  const time = v.dimensions.find((d) => d.name === STD_TIME)!;
  return groupKeys(time.values, plan.calculationInterval === "EXTERNAL_RASTER" ? "ALL" : (plan.calculationInterval as GroupInterval));
}

function timeAxis(v: Variable): number {
  return v.dimensions.findIndex((d) => d.name === STD_TIME);
}

export type StreamWalk = RunWalk;

/**
 * Pass 0 of a unit: this share's sums of its runs, and with plan.keepInput its runs kept in
 * `sink` for pass 1 (those it cannot keep, pass 1 reads from the input). `reuse`: the sums of
 * the share's last unit, reset and taken again when sized as this one's (a kernel per unit,
 * its shared memory freed only when collected, took a 5,844-day cube stored 365 × 60 × 60 a
 * chunk, streamed in 72 blocks, to a GB).
 * @example
 * const moments = await accumulateUnit(cube, plan, unit, { share }, sink);
 */
export async function accumulateUnit(
  cube: Cube,
  plan: AnomalyStreamPlan,
  unit: StreamUnit,
  walk: StreamWalk = {},
  sink?: BlockSink,
  reuse?: GroupMoments,
): Promise<GroupMoments> {
  const v = variableNamed(cube, unit.variable);
  const groups = groupsOf(v, plan);
  const P = unit.band.width * unit.band.height;
  const G = groups.reduce((m, g) => Math.max(m, g + 1), 0);
  const runs = plan.runs[v.name];
  const values = P * Math.max(...runs.map(([a, b]) => b - a));
  const shape = { groups: G, pixels: P, withSd: plan.method === "Z_SCORE" };
  const sized = { values, pixelType: v.pixelType };
  const moments = reuse?.sizedFor(shape, sized) ? reuse : new GroupMoments(shape, sized);
  if (moments === reuse) moments.reset();
  const nodata = v.nodata ?? NaN;
  const keep = plan.keepInput ? sink?.keepBlock?.bind(sink) : undefined;
  await eachRun(v, runs, unit.dims, unit.band, { ...walk, arrays: (length) => moments.runArray(length) }, async (t0, slab, hold) => {
    moments.addRun(slab, groups, t0, nodata);
    if (keep) {
      const { start, shape } = unitBlock(v, unit, t0, slab.length / P);
      // Kept (from the run's array, held meanwhile) while the next run is read.
      await keep(v.name, start, { data: slab, shape }, hold);
    }
  });
  return moments;
}

/** Where a run of a unit's slices (t0 and on) stands in the output: its start and shape. */
function unitBlock(v: Variable, unit: StreamUnit, t0: number, slices: number): { start: number[]; shape: number[] } {
  const t = timeAxis(v);
  const start = [...unit.dims.map(([a]) => a), unit.row, unit.column];
  start[t] = t0;
  const shape = [...unit.dims.map(([a, b], i) => (i === t ? slices : b - a)), unit.band.height, unit.band.width];
  return { start, shape };
}

/**
 * Pass 1 of a unit: x against the unit's reference, written to `sink`; `reference` reads the
 * merged pass-0 sums finished, or for EXTERNAL_RASTER is undefined (the reference cube is read).
 * With plan.keepInput, x comes back from the sink where pass 0 kept it (else from the input).
 */
export async function applyUnit(
  cube: Cube,
  plan: AnomalyStreamPlan,
  unit: StreamUnit,
  reference: ReferenceSource | undefined,
  sink: BlockSink,
  statistics: StatisticsAccumulator,
  walk: StreamWalk & { readonly referenceCube?: Cube } = {},
): Promise<void> {
  const v = variableNamed(cube, unit.variable);
  const groups = groupsOf(v, plan);
  const P = unit.band.width * unit.band.height;
  const nodata = v.nodata ?? NaN;
  const type = anomalyPixelType(v.pixelType) === "F64" ? "F64" : "F32";
  const runs = plan.runs[v.name];
  const source = plan.keepInput ? keptRuns(v, unit, sink) : undefined;
  // The statistics of each chunk taken where the sink encodes it (off this thread: a fifth of
  // a raw anomaly's time here), in the order written; a block the sink does not summarize, here.
  const summaries = { summarizer: CHUNK_STATISTICS, take: (part: Promise<unknown>) => statistics.addLater(part) };
  const write = async (t0: number, out: Float32Array | Float64Array, here: (part: StatisticsAccumulator) => void, hold?: BlockHold) => {
    const { start, shape } = unitBlock(v, unit, t0, out.length / P);
    walk.signal?.throwIfAborted();
    if (await sink.writeBlock(v.name, start, { data: out, shape }, summaries, hold)) return;
    const part = statisticsAccumulator();
    here(part);
    statistics.addLater(Promise.resolve(part.part()));
  };
  if (reference) {
    // Against the groups' µ (and s), read a few groups at a time straight into the kernel's
    // memory, where it computes each run and its statistics.
    const values = P * Math.max(...runs.map(([a, b]) => b - a));
    const slots = referenceSlotCount(groups, runs, reference.groups);
    const kernel = new AnomalyApplyKernel(slots, P, reference.withSd, values, v.pixelType, type);
    const held = new ReferenceSlots(reference, kernel.mean, kernel.sd, P, slots);
    const [kind, limit] = [anomalyKind(plan.method), anomalyLimit(type)];
    await eachRun(
      v,
      runs,
      unit.dims,
      unit.band,
      { ...walk, source, arrays: (length) => kernel.runArray(length) },
      async (t0, slab, hold) => {
        const slices = slab.length / P;
        await held.hold(groups.subarray(t0, t0 + slices));
        // Over the run's values, so that the sink may write them from there while the walk holds them.
        const out = kernel.apply(slab, (k) => held.slotOf(groups[t0 + k]), kind, nodata, limit, { inPlace: true });
        await write(t0, out.values, (part) => part.addStaged(out, undefined), out.values === slab ? hold : undefined);
      },
    );
    return;
  }
  const external = externalReference(v, plan, walk.referenceCube)!;
  // One output array for every run (the sink is done with it when writeBlock resolves): runs
  // are megabytes each, and allocating them anew kept the garbage collector busy.
  let buffer: Float32Array | Float64Array | undefined;
  await eachRun(v, runs, unit.dims, unit.band, { ...walk, source }, async (t0, slab) => {
    const slices = slab.length / P;
    if (!buffer || buffer.length < slab.length) buffer = type === "F64" ? new Float64Array(slab.length) : new Float32Array(slab.length);
    const out = buffer.subarray(0, slab.length);
    const given = await external.read(unit, t0, t0 + slices, walk.signal);
    for (let k = 0; k < slices; k++) {
      applyAnomalyRow(slab, out, k * P, 0, P, nodata, plan.method, given.values, given.perSlice ? k * P : 0, undefined, 0);
    }
    await write(t0, out, (part) => part.add(out, undefined));
  });
}

/**
 * A unit's runs as pass 0 kept them in the sink (eachRun's source); a run it could not keep,
 * or one taken already by a run of this pass that failed and is run again, from the input.
 */
function keptRuns(v: Variable, unit: StreamUnit, sink: BlockSink): (selection: Selection) => Promise<Slab> {
  const t = timeAxis(v);
  return async (selection) => {
    const [t0, t1] = selection.dims![t];
    const { start, shape } = unitBlock(v, unit, t0, t1 - t0);
    const data = await sink.readKept?.(v.name, start, shape, selection.into);
    return data ? { data, shape } : v.read(selection);
  };
}

/** The reference raster of EXTERNAL_RASTER for a unit: one slice for all, or the slices of a run. */
function externalReference(v: Variable, plan: AnomalyPlan, referenceCube: Cube | undefined) {
  if (plan.calculationInterval !== "EXTERNAL_RASTER") return undefined;
  const ref = referenceCube?.variables.find((x) => x.name === v.name);
  if (!ref) throw new RangeError(`the reference raster has no variable ${v.name}`);
  const why = referenceMismatch(v, ref);
  if (why) throw new RangeError(`the reference variable ${v.name} does not match the input: ${why}`);
  const time = ref.dimensions.find((d) => d.name === STD_TIME);
  const perSlice = !!time && time.values.length > 1;
  let single: Float64Array | undefined;
  return {
    async read(unit: StreamUnit, t0: number, t1: number, signal?: AbortSignal): Promise<{ values: Float64Array; perSlice: boolean }> {
      if (!perSlice && single) return { values: single, perSlice };
      // The reference's dimensions by name: StdTime the run (or its one slice), the others the unit's.
      const dims = ref.dimensions.map((d): IndexRange => {
        if (d.name === STD_TIME) return perSlice ? [t0, t1] : [0, 1];
        return unit.dims[v.dimensions.findIndex((x) => x.name === d.name)];
      });
      const slab = await ref.read({ dims, window: unit.band, signal });
      const values = Float64Array.from(slab.data as ArrayLike<number>);
      const nd = ref.nodata ?? NaN;
      for (let i = 0; i < values.length; i++) if (values[i] === nd) values[i] = NaN;
      if (!perSlice) single = values;
      return { values, perSlice };
    },
  };
}
