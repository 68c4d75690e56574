/**
 * Multidimensional anomalies (SPEC §7, docs/tasks.md): each slice's departure from the
 * mean, median or standard score of its group of slices, pixel by pixel.
 *
 * `anomalyTile` is the kernel: one spatial tile through the whole time axis, time-major.
 * Means and deviations run over contiguous rows of pixels (a group's slices one after the
 * other), medians gather each pixel's valid values and quickselect them. `computeAnomaly`
 * walks a cube tile by tile into a block sink; it takes the medians of float32 (and small
 * integer) tiles with a SIMD sorting-network kernel instead (kernels/groupMedian.ts), the
 * same values. Pure: knows nothing of formats or jobs.
 */
import { combinationAt, combinationCount } from "../cube/combinations.js";
import {
  PIXEL_ARRAYS,
  STD_TIME,
  type Cube,
  type Dimension,
  type PixelType,
  type TypedArray,
  type Variable,
  type Window,
  variableNamed,
} from "../cube/types.js";
import { GroupAnomalyKernel, groupKernelTakes } from "../kernels/groupAnomaly.js";
import { chunkStagingBytes } from "../kernels/arena.js";
import { GROUP_INTERVALS, type GroupInterval, groupKeys } from "./groups.js";
import { type Share, ownsStep } from "./share.js";
import { type Statistics, statisticsAccumulator } from "./statistics.js";
import type { BlockSink } from "./subset.js";
import { MAX_TIME_TILE, TIME_TILE_BUDGET_BYTES, timeTileEdge, wholeChunkTile, windowTiles } from "./tiles.js";

export const ANOMALY_METHODS = [
  "DIFFERENCE_FROM_MEAN",
  "PERCENT_DIFFERENCE_FROM_MEAN",
  "PERCENT_OF_MEAN",
  "Z_SCORE",
  "DIFFERENCE_FROM_MEDIAN",
  "PERCENT_DIFFERENCE_FROM_MEDIAN",
  "PERCENT_OF_MEDIAN",
] as const;
export type AnomalyMethod = (typeof ANOMALY_METHODS)[number];

export const CALCULATION_INTERVALS = [...GROUP_INTERVALS, "EXTERNAL_RASTER"] as const;
export type CalculationInterval = (typeof CALCULATION_INTERVALS)[number];

// What is computed from x and the reference R (µ or m) and s.
const DIFFERENCE = 0;
const PERCENT_DIFFERENCE = 1;
const PERCENT_OF = 2;
const Z_SCORE = 3;

const KIND: Record<AnomalyMethod, { kind: number; median: boolean }> = {
  DIFFERENCE_FROM_MEAN: { kind: DIFFERENCE, median: false },
  PERCENT_DIFFERENCE_FROM_MEAN: { kind: PERCENT_DIFFERENCE, median: false },
  PERCENT_OF_MEAN: { kind: PERCENT_OF, median: false },
  Z_SCORE: { kind: Z_SCORE, median: false },
  DIFFERENCE_FROM_MEDIAN: { kind: DIFFERENCE, median: true },
  PERCENT_DIFFERENCE_FROM_MEDIAN: { kind: PERCENT_DIFFERENCE, median: true },
  PERCENT_OF_MEDIAN: { kind: PERCENT_OF, median: true },
};

export interface AnomalyTileOptions {
  /** The input's nodata value (NaN is always nodata). */
  readonly nodata?: number;
  /** Group index (0..G-1) of each slice (see groupKeys); its length is the number of slices T. */
  readonly groups: Int32Array;
  readonly method: AnomalyMethod;
  /** true: nodata slices are left out of µ, m and s; false: any nodata slice makes its group nodata at that pixel. */
  readonly ignoreNoData: boolean;
  /**
   * External µ (or m) per pixel, NaN for nodata: one slice [P] for every slice, or [T][P]
   * slice by slice. When given, groups and ignoreNoData play no part. Not with Z_SCORE.
   */
  readonly reference?: Float64Array;
  /**
   * Where to write [T][P]; default a new Float64Array for Float64Array input, else
   * Float32Array. May be `values` itself: each slice is read (its group's µ, m and s first)
   * before it is written.
   */
  readonly out?: Float32Array | Float64Array;
}

/**
 * Anomalies of a tile: `values` is time-major [T][P] (P pixels, one slice after another);
 * the result is [T][P] with NaN for nodata (a nodata input, a group without valid values,
 * or a division by zero; never Infinity).
 * @example
 * // one pixel, January 1990 and 1991 in one group: µ = 2 → [-1, 1]
 * anomalyTile(Float32Array.of(1, 3), { groups: Int32Array.of(0, 0), method: "DIFFERENCE_FROM_MEAN", ignoreNoData: true });
 */
export function anomalyTile(values: TypedArray, options: AnomalyTileOptions): Float32Array | Float64Array {
  const { groups, method, ignoreNoData, reference } = options;
  const T = groups.length;
  // P as an int32 (not the double a division gives) keeps every index arithmetic in integers.
  const P = T === 0 ? 0 : (values.length / T) | 0;
  if (P * T !== values.length) throw new RangeError(`${values.length} values are not ${T} slices of equal size`);
  const out = options.out ?? (values instanceof Float64Array ? new Float64Array(values.length) : new Float32Array(values.length));
  if (out.length !== values.length) throw new RangeError(`the output holds ${out.length} values, not ${values.length}`);
  const nd = options.nodata ?? NaN;
  const limit = out instanceof Float32Array ? F32_MAX : Number.MAX_VALUE;
  const { kind, median } = KIND[method];

  if (reference) {
    if (kind === Z_SCORE) throw new RangeError("Z_SCORE needs the group's standard deviation; it cannot use a reference raster");
    if (reference.length !== P && reference.length !== T * P) {
      throw new RangeError(`the reference holds ${reference.length} values, neither one slice (${P}) nor every slice (${T * P})`);
    }
    const perSlice = reference.length !== P;
    for (let t = 0; t < T; t++) applyRow(values, out, t * P, 0, P, nd, kind, reference, perSlice ? t * P : 0, reference, 0, limit);
    return out;
  }

  const { members, start, largest } = groupMembers(groups);
  const G = start.length - 1;
  const ref = new Float64Array(P); // µ or m of the group at each pixel
  const sd = new Float64Array(P); // s (Z_SCORE only)
  if (median) {
    const buf = new Float64Array(largest);
    for (let g = 0; g < G; g++) {
      const a = start[g];
      const b = start[g + 1];
      for (let p = 0; p < P; p++) {
        let n = 0;
        let bad = false;
        for (let j = a; j < b; j++) {
          const x = values[members[j] * P + p];
          if (x !== x || x === nd) bad = true;
          else buf[n++] = x;
        }
        ref[p] = n === 0 || (bad && !ignoreNoData) ? Number.NaN : medianOf(buf, n);
      }
      for (let j = a; j < b; j++) applyRow(values, out, members[j] * P, 0, P, nd, kind, ref, 0, sd, 0, limit);
    }
    return out;
  }

  const sum = new Float64Array(P);
  const count = new Int32Array(P);
  const bad = new Uint8Array(P);
  // Float32 and integer values sum exactly in float64, so a constant series has µ = x and
  // s = 0 exactly; float64 values may not, and are checked for constancy instead.
  const first = values instanceof Float64Array && kind === Z_SCORE ? new Float64Array(P) : undefined;
  for (let g = 0; g < G; g++) {
    const a = start[g];
    const b = start[g + 1];
    sum.fill(0);
    count.fill(0);
    bad.fill(0);
    for (let j = a; j < b; j++) {
      const row = members[j] * P;
      for (let p = 0; p < P; p++) {
        const x = values[row + p];
        if (x !== x || x === nd) bad[p] = 1;
        else {
          sum[p] += x;
          count[p]++;
        }
      }
    }
    for (let p = 0; p < P; p++) ref[p] = count[p] === 0 || (bad[p] && !ignoreNoData) ? Number.NaN : sum[p] / count[p];
    if (kind === Z_SCORE) {
      sd.fill(0);
      for (let j = a; j < b; j++) {
        const row = members[j] * P;
        for (let p = 0; p < P; p++) {
          const x = values[row + p];
          if (x !== x || x === nd) continue;
          const d = x - ref[p];
          sd[p] += d * d;
        }
      }
      for (let p = 0; p < P; p++) sd[p] = Math.sqrt(sd[p] / count[p]);
      if (first) constantToZero(values, members, a, b, P, nd, first, sd);
    }
    for (let j = a; j < b; j++) applyRow(values, out, members[j] * P, 0, P, nd, kind, ref, 0, sd, 0, limit);
  }
  return out;
}

/** Each group's slices, contiguous: group g's are members[start[g] .. start[g + 1]). */
interface GroupMembers {
  readonly members: Int32Array;
  readonly start: Int32Array;
  /** The most slices of a group. */
  readonly largest: number;
}

/**
 * The slices of each group of `groups` (a group index a slice).
 * @example
 * groupMembers(Int32Array.of(0, 1, 0)); // members [0, 2, 1], start [0, 2, 3], largest 2
 */
function groupMembers(groups: Int32Array): GroupMembers {
  const T = groups.length;
  let G = 0;
  for (let t = 0; t < T; t++) {
    if (groups[t] < 0) throw new RangeError(`group index ${groups[t]} of slice ${t} is negative`);
    if (groups[t] + 1 > G) G = groups[t] + 1;
  }
  const start = new Int32Array(G + 1);
  for (let t = 0; t < T; t++) start[groups[t] + 1]++;
  let largest = 0;
  for (let g = 0; g < G; g++) {
    largest = Math.max(largest, start[g + 1]);
    start[g + 1] += start[g];
  }
  const members = new Int32Array(T);
  const fill = start.slice(0, G);
  for (let t = 0; t < T; t++) members[fill[groups[t]]++] = t;
  return { members, start, largest };
}

/** s = 0 where a pixel's valid values of the group are all equal (float64 sums may miss it by an ulp). */
function constantToZero(
  values: TypedArray,
  members: Int32Array,
  a: number,
  b: number,
  P: number,
  nd: number,
  first: Float64Array,
  sd: Float64Array,
): void {
  first.fill(NaN);
  const varies = new Uint8Array(P);
  for (let j = a; j < b; j++) {
    const row = members[j] * P;
    for (let p = 0; p < P; p++) {
      const x = values[row + p];
      if (x !== x || x === nd) continue;
      if (first[p] !== first[p]) first[p] = x;
      else if (x !== first[p]) varies[p] = 1;
    }
  }
  for (let p = 0; p < P; p++) if (!varies[p]) sd[p] = 0;
}

/**
 * The anomalies of pixels [from, to) of one slice, values[row + p] into out[row + p], against
 * µ or m ref[roff + p] (and s = sd[soff + p] for Z_SCORE); see applyRow.
 * @example
 * applyAnomalyRow(slab, out, k * P, 0, P, NaN, "Z_SCORE", mean, g * P, sd, g * P);
 */
export function applyAnomalyRow(
  values: TypedArray,
  out: Float32Array | Float64Array,
  row: number,
  from: number,
  to: number,
  nodata: number,
  method: AnomalyMethod,
  ref: Float64Array,
  roff: number,
  sd: Float64Array | undefined,
  soff: number,
): void {
  const limit = out instanceof Float32Array ? F32_MAX : Number.MAX_VALUE;
  applyRow(values, out, row, from, to, nodata, KIND[method].kind, ref, roff, sd ?? ref, sd ? soff : roff, limit);
}

/** Largest finite float32. */
const F32_MAX = 3.4028234663852886e38;

/** A method's number in the anomaly kernels (kernels/anomalyApply.ts numbers them as applyRow does). */
export const anomalyKind = (method: AnomalyMethod): number => KIND[method].kind;

/** The largest anomaly an output of `type` keeps (beyond it, NaN: see applyRow). */
export const anomalyLimit = (type: "F32" | "F64"): number => (type === "F32" ? F32_MAX : Number.MAX_VALUE);

/**
 * The anomalies of pixels [from, to) of one slice (values[row + p]) against R = ref[roff + p]
 * (and s = sd[soff + p] for Z_SCORE). Nodata x, nodata R, a division by zero (±Infinity or 0/0) and values beyond
 * `limit` (the output type's largest finite value) all come out NaN: a value is kept only
 * when it compares within ±limit, which NaN never does.
 */
function applyRow(
  values: TypedArray,
  out: Float32Array | Float64Array,
  row: number,
  from: number,
  to: number,
  nd: number,
  kind: number,
  ref: Float64Array,
  roff: number,
  sd: Float64Array,
  soff: number,
  limit: number,
): void {
  switch (kind) {
    case DIFFERENCE:
      for (let p = from; p < to; p++) {
        const x = values[row + p];
        const v = x - ref[roff + p];
        out[row + p] = x !== nd && v <= limit && v >= -limit ? v : Number.NaN;
      }
      return;
    case PERCENT_DIFFERENCE:
      for (let p = from; p < to; p++) {
        const x = values[row + p];
        const r = ref[roff + p];
        const v = Math.abs(x - r) / ((x + r) / 2);
        out[row + p] = x !== nd && v <= limit && v >= -limit ? v : Number.NaN;
      }
      return;
    case PERCENT_OF:
      for (let p = from; p < to; p++) {
        const x = values[row + p];
        const v = x / ref[roff + p];
        out[row + p] = x !== nd && v <= limit && v >= -limit ? v : Number.NaN;
      }
      return;
    default:
      for (let p = from; p < to; p++) {
        const x = values[row + p];
        const v = (x - ref[roff + p]) / sd[soff + p];
        out[row + p] = x !== nd && v <= limit && v >= -limit ? v : Number.NaN;
      }
  }
}

/** The median of a[0..n) (n ≥ 1), reordering it: the middle value, or the mean of the two middle values. */
export function medianOf(a: Float64Array, n: number): number {
  const k = n >> 1;
  if (n <= 24) {
    for (let i = 1; i < n; i++) {
      const v = a[i];
      let j = i - 1;
      while (j >= 0 && a[j] > v) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = v;
    }
    return n & 1 ? a[k] : (a[k - 1] + a[k]) / 2;
  }
  select(a, 0, n - 1, k);
  if (n & 1) return a[k];
  // After selection a[0..k) holds the k smallest: the lower middle is their maximum.
  let lower = a[0];
  for (let i = 1; i < k; i++) if (a[i] > lower) lower = a[i];
  return (lower + a[k]) / 2;
}

/** Hoare quickselect: afterwards a[k] is the k-th smallest of a[left..right], smaller ones before it. */
function select(a: Float64Array, left: number, right: number, k: number): void {
  while (right > left) {
    const mid = (left + right) >> 1;
    // Median of three as pivot.
    if (a[mid] < a[left]) swap(a, mid, left);
    if (a[right] < a[left]) swap(a, right, left);
    if (a[right] < a[mid]) swap(a, right, mid);
    const pivot = a[mid];
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

// ---------------------------------------------------------------------------------------
// Walking a cube

export interface AnomalyPlan {
  /** Variables to compute (each has a StdTime dimension). */
  readonly variables: readonly string[];
  readonly method: AnomalyMethod;
  readonly calculationInterval: CalculationInterval;
  readonly ignoreNoData: boolean;
  /** Spatial window of the source (north-up pixels). */
  readonly window: Window;
  /** Spatial tile (an edge, or rows × columns); default from the input's chunks and tileBudgetBytes (anomalyTileShape). */
  readonly tile?: number | { readonly height: number; readonly width: number };
  /** Memory budget of one tile (default TIME_TILE_BUDGET_BYTES); threads sharing a job split it. */
  readonly tileBudgetBytes?: number;
}

export interface AnomalyWalkOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (fraction: number) => void;
  /** The reference raster of EXTERNAL_RASTER (same grid; its variables named as the input's). */
  readonly reference?: Cube;
  /** Do only this share of the tiles (another thread does the rest); default all. */
  readonly share?: Share;
}

/** Pixel type of an anomaly output: float64 for float64 input, else float32. */
export function anomalyPixelType(input: PixelType): "F32" | "F64" {
  return input === "F64" ? "F64" : "F32";
}

/**
 * The spatial tile used for a variable (output chunks are [T, 1..., height, width]): the
 * plan's edge, else whole stored chunks where the input's are smaller than the window
 * (tiles.ts wholeChunkTile: each chunk read once), else the budget's square edge.
 */
export function anomalyTileShape(
  v: Variable,
  plan: Pick<AnomalyPlan, "tile" | "tileBudgetBytes" | "window">,
): { readonly height: number; readonly width: number } {
  if (plan.tile !== undefined) return typeof plan.tile === "number" ? { height: plan.tile, width: plan.tile } : plan.tile;
  const slices = timeDimension(v).values.length;
  const budget = plan.tileBudgetBytes ?? TIME_TILE_BUDGET_BYTES;
  const whole = wholeChunkTile(v.chunkShape, plan.window, slices * 8, budget, MAX_TIME_TILE);
  const edge = timeTileEdge(slices, budget);
  return whole ?? { height: edge, width: edge };
}

/** Bytes of one anomaly output chunk, about: small enough that drawing one slice decodes little. */
export const ANOMALY_CHUNK_BYTES = 1024 * 1024;

/**
 * Output chunk shape of a variable: a run of time steps of about ANOMALY_CHUNK_BYTES, one
 * slice of every other dimension, a tile. A tile's block (all of its time steps) then covers
 * whole chunks, so it is written without reading back, and an image of one slice decodes a
 * run of steps per tile rather than the whole time axis.
 * @example
 * anomalyChunks(v, { height: 61, width: 61 }, window); // e.g. [70, 61, 61] for 2100 daily float32 steps
 */
export function anomalyChunks(
  v: Variable,
  tile: { readonly height: number; readonly width: number },
  window: Window,
  bytesPerValue = 4,
): number[] {
  const [h, w] = [Math.min(tile.height, window.height), Math.min(tile.width, window.width)];
  const run = Math.max(1, Math.floor(ANOMALY_CHUNK_BYTES / (h * w * bytesPerValue)));
  return [...v.dimensions.map((d) => (d.name === STD_TIME ? Math.min(run, d.values.length) : 1)), h, w];
}

function timeDimension(v: Variable): Dimension {
  const d = v.dimensions.find((x) => x.name === STD_TIME);
  if (!d) throw new RangeError(`variable ${v.name} has no ${STD_TIME} dimension`);
  return d;
}

/**
 * Why `ref` cannot serve as the reference of `input`, or undefined when it can: its StdTime
 * is absent, one slice, or the input's values; its other dimensions are the input's.
 * @example
 * const reason = referenceMismatch(cube.variables[0], reference.variables[0]);
 */
export function referenceMismatch(input: Variable, ref: Variable): string | undefined {
  const time = ref.dimensions.find((d) => d.name === STD_TIME);
  const inputTime = timeDimension(input);
  if (time && time.values.length > 1) {
    const same = time.values.length === inputTime.values.length && time.values.every((v, i) => v === inputTime.values[i]);
    if (!same) {
      return `its ${STD_TIME} has ${time.values.length} values that are not the input's ${inputTime.values.length}; give one slice or the input's times`;
    }
  }
  const others = (v: Variable) => v.dimensions.filter((d) => d.name !== STD_TIME);
  const mine = others(input);
  const theirs = others(ref);
  const names = (ds: Dimension[]) => ds.map((d) => d.name).join(", ") || "none";
  if (theirs.length !== mine.length || theirs.some((d) => !mine.some((m) => m.name === d.name))) {
    return `its dimensions other than ${STD_TIME} (${names(theirs)}) are not the input's (${names(mine)})`;
  }
  for (const m of mine) {
    const d = theirs.find((x) => x.name === m.name)!;
    const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
    if (d.values.length !== m.values.length || d.values.some((v, i) => !close(v, m.values[i]))) {
      return `its ${m.name} values are not the input's`;
    }
  }
  return undefined;
}

/**
 * Compute the anomalies of the plan's variables tile by tile (each tile through the whole
 * time axis, at each combination of the other dimensions) and write them to `sink` at
 * output positions (over [...dims, rows, cols] of the window). Returns each variable's
 * statistics. Cancellation is checked between tiles and reaches every read.
 * @example
 * const stats = await computeAnomaly(cube, { variables: ["sst"], method: "Z_SCORE", calculationInterval: "RECURRING_MONTHLY",
 *   ignoreNoData: true, window }, writer);
 */
export async function computeAnomaly(
  cube: Cube,
  plan: AnomalyPlan,
  sink: BlockSink,
  options: AnomalyWalkOptions = {},
): Promise<Map<string, Statistics | undefined>> {
  const { signal } = options;
  const external = plan.calculationInterval === "EXTERNAL_RASTER";
  if (external && !options.reference) throw new RangeError("EXTERNAL_RASTER needs a reference raster");
  const steps: Step[] = [];
  let step = 0;
  for (const name of plan.variables) {
    const v = variableNamed(cube, name);
    let ref: Variable | undefined;
    if (external) {
      ref = options.reference!.variables.find((x) => x.name === name);
      if (!ref) throw new RangeError(`the reference raster has no variable ${name}`);
      const why = referenceMismatch(v, ref);
      if (why) throw new RangeError(`the reference variable ${name} does not match the input: ${why}`);
    }
    const groups = groupKeys(timeDimension(v).values, external ? "ALL" : (plan.calculationInterval as GroupInterval));
    const members = groupMembers(groups);
    const shape = anomalyTileShape(v, plan);
    const tiles = windowTiles(plan.window, shape.height, shape.width);
    const others = v.dimensions.filter((d) => d.name !== STD_TIME);
    const sizes = others.map((d) => d.values.length);
    for (let c = 0; c < combinationCount(sizes); c++) {
      const indices = combinationAt(c, sizes);
      const at = new Map(others.map((d, k) => [d.name, indices[k]]));
      const rangeOf = (d: Dimension): readonly [number, number] =>
        d.name === STD_TIME ? [0, d.values.length] : [at.get(d.name)!, at.get(d.name)! + 1];
      const dims = v.dimensions.map(rangeOf);
      const refDims = ref?.dimensions.map(rangeOf);
      for (const tile of tiles) {
        if (ownsStep(step++, options.share)) steps.push({ v, ref, groups, members, dims, refDims, tile });
      }
    }
  }

  const accumulators = new Map(plan.variables.map((name) => [name, statisticsAccumulator()]));
  const kernel = groupKernelFor(steps, KIND[plan.method].median);
  const arrays = new TileArrays();
  // Read one tile ahead: the next tile's file reads overlap this tile's computing and writing.
  // Step i's tile is read into slot i % 2 (the kernel's, for its float32 tiles), where it is computed.
  const read = (i: number) => {
    const s = steps[i];
    const window = { x: s.tile.x, y: s.tile.y, width: s.tile.width, height: s.tile.height };
    const length = s.groups.length * s.tile.width * s.tile.height;
    const into =
      kernel && s.v.pixelType === "F32" ? kernel.tileArray(slotOf(i), length) : arrays.get(`in${slotOf(i)}`, s.v.pixelType, length);
    const p = Promise.all([
      s.v.read({ dims: s.dims, window, signal, into }).then((slab) => ({ slab, ours: slab.data.buffer === into?.buffer })),
      s.ref ? referenceTile(s.ref, s.refDims!, window, signal) : undefined,
    ]);
    p.catch(() => {}); // awaited (and thrown) in turn; never an unhandled rejection meanwhile
    return p;
  };
  let next = steps.length > 0 ? read(0) : undefined;
  for (let i = 0; i < steps.length; i++) {
    signal?.throwIfAborted();
    const { v, groups, members, dims, tile } = steps[i];
    const [{ slab, ours }, reference] = await next!;
    signal?.throwIfAborted();
    next = i + 1 < steps.length ? read(i + 1) : undefined;
    let out: Float32Array | Float64Array;
    if (kernel) {
      const { kind } = KIND[plan.method];
      const inKernel = kernel.anomalies(
        slotOf(i),
        slab.data,
        tile.width * tile.height,
        members.members,
        members.start,
        kind,
        v.nodata ?? NaN,
        plan.ignoreNoData,
        F32_MAX,
      );
      accumulators.get(v.name)!.add(inKernel, undefined);
      out = inKernel; // written (the sink is done with it once writeBlock resolves) before step i + 2 is read into its slot
    } else {
      out = anomalyTile(slab.data, {
        nodata: v.nodata,
        groups,
        method: plan.method,
        ignoreNoData: plan.ignoreNoData,
        reference,
        // In place when the tile is in our slot and of the output's type (anomalyTile allows
        // it); either is free again once writeBlock below resolves.
        out:
          ours && anomalyPixelType(v.pixelType) === v.pixelType
            ? (slab.data as Float32Array | Float64Array)
            : (arrays.get("out", anomalyPixelType(v.pixelType), slab.data.length) as Float32Array | Float64Array),
      });
      accumulators.get(v.name)!.add(out, undefined);
    }
    const shape = [...dims.map(([a, b]) => b - a), tile.height, tile.width];
    signal?.throwIfAborted();
    await sink.writeBlock(v.name, [...dims.map(([a]) => a), tile.oy, tile.ox], { data: out, shape });
    options.onProgress?.((i + 1) / steps.length);
  }
  return new Map([...accumulators].map(([name, acc]) => [name, acc.result()]));
}

/**
 * The SIMD kernel sized for the steps' tiles, when it takes every one: no reference, values
 * it takes, groups it sorts (for medians). Otherwise anomalyTile does them all. Chunks are
 * unshuffled in the kernel as they are read where it can stage them (chunkStagingBytes; the
 * reader's own loop and its flip of south-up rows were 3.6 of the 23 s of a mean anomaly on
 * one thread).
 */
function groupKernelFor(steps: readonly Step[], median: boolean): GroupAnomalyKernel | undefined {
  let values = 0;
  let pixels = 0;
  let largest = 0;
  let chunk = 0;
  for (const s of steps) {
    const group = s.members.largest;
    if (s.ref || !groupKernelTakes(s.v.pixelType, group, median)) return undefined;
    const P = s.tile.width * s.tile.height;
    values = Math.max(values, P * s.groups.length);
    pixels = Math.max(pixels, P);
    largest = Math.max(largest, group);
    chunk = Math.max(
      chunk,
      s.v.chunkShape.reduce((a, b) => a * b, 1),
    );
  }
  if (steps.length === 0) return undefined;
  return new GroupAnomalyKernel(values, pixels, largest, median, chunkStagingBytes(chunk * 4, values * 4));
}

/**
 * Arrays a tile walk reuses tile after tile, by role and pixel type, each grown to the
 * largest tile asked: fresh arrays of a tile's values (20 MB for 60 × 60 pixels through 1461
 * days) for each read and each output took a one-thread mean anomaly's peak 56 MB higher.
 */
class TileArrays {
  private readonly arrays = new Map<string, TypedArray>();

  get(role: string, type: PixelType, length: number): TypedArray {
    const key = `${role} ${type}`;
    let a = this.arrays.get(key);
    if (!a || a.length < length) this.arrays.set(key, (a = new PIXEL_ARRAYS[type](length)));
    return a.subarray(0, length);
  }
}

/** The kernel's slot of step i's tile. */
const slotOf = (i: number): 0 | 1 => (i % 2 === 0 ? 0 : 1);

/** One tile of one variable at one combination of its other dimensions. */
interface Step {
  readonly v: Variable;
  readonly ref: Variable | undefined;
  readonly groups: Int32Array;
  readonly members: GroupMembers;
  /** Index ranges over the variable's (and the reference's) dimensions: whole time, one index of the others. */
  readonly dims: readonly (readonly [number, number])[];
  readonly refDims: readonly (readonly [number, number])[] | undefined;
  readonly tile: ReturnType<typeof windowTiles>[number];
}

/** A reference tile as float64 with NaN for nodata: [P] or [T][P]. */
async function referenceTile(
  ref: Variable,
  dims: readonly (readonly [number, number])[],
  window: Window,
  signal: AbortSignal | undefined,
): Promise<Float64Array> {
  const slab = await ref.read({ dims, window, signal });
  const out = Float64Array.from(slab.data as ArrayLike<number>);
  const nd = ref.nodata ?? NaN;
  for (let i = 0; i < out.length; i++) if (out[i] === nd) out[i] = NaN;
  return out;
}
