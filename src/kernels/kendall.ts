/**
 * The loops of the Kendall tests on long series (analysis/kendall.ts) as a WebAssembly kernel
 * (assembly/kendall.ts): the inversion-counting sort (S, and each cut of Sen's slope), the
 * insertion from one cut's order to a nearby one, and the listing of the slopes between two
 * cuts; about three times the JavaScript's speed, with the same counts and slopes. The series
 * and every array those loops touch live in the kernel's memory, where the caller reads and
 * writes them as typed arrays.
 *
 * ```ts
 * const k = new KendallKernel(4, 16);
 * k.key.set([3, 1, 2, 1]);
 * k.order.set([0, 1, 2, 3]);
 * k.sortCount(0, 4, true); // 4: (3,1) (3,2) (3,1) (2,1); key 1,1,2,3; order 1,3,2,0
 * ```
 */
import { KernelArena, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./kendall.wasm.js";

/** The radix sort's digit counts: two passes' 11-bit digits (the selection's 8-bit ones use 256 of them). */
const DIGIT_COUNTS = 4096;
/** The inversion count's bitset, in 64-point words (assembly/kendall.ts BITSET_WORDS). */
const BITSET_WORDS = 64;

/** What the tests need of a series before Sen's slope (KendallKernel.summarize). */
export interface SeriesSummary {
  /** S, and Var(S) with the tie correction, summed over the seasons. */
  readonly score: number;
  readonly variance: number;
  /** Pairs in decreasing order of y, and pairs of equal y. */
  readonly decreasing: number;
  readonly tiedPairs: number;
  /** The least gap between distinct values of y. */
  readonly minGapY: number;
  /** Σ(x − x̄)², Σ(x − x̄)(y − ȳ) and Σ(y − ȳ)², the means taken within each season. */
  readonly sxx: number;
  readonly sxy: number;
  readonly syy: number;
  readonly maxAbsY: number;
  readonly maxAbsX: number;
  /** The least step of x greater than 0 (∞ when x never steps), and the widest span of x in a season. */
  readonly minStepX: number;
  readonly maxSpanX: number;
  /** Whether x repeats within a season. */
  readonly equalXRuns: boolean;
}

export class KendallKernel {
  /** The series being tested (n points). */
  readonly x: Float64Array;
  readonly y: Float64Array;
  /** Keys at a cut, and the points in their order. */
  readonly key: Float64Array;
  readonly order: Int32Array;
  /** The seasons of two values or more: [segFrom[s], segTo[s]) in x/y. */
  readonly segFrom: Int32Array;
  readonly segTo: Int32Array;
  /** The slopes a listing found, as far as they fit. */
  readonly candidates: Float64Array;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the kernel's own exports
  private readonly kernel: Record<string, (...args: any[]) => any>;
  private readonly summary: Float64Array;

  /** For series of up to n points, listing up to `candidates` slopes. */
  constructor(n: number, candidates: number) {
    const { arena, placed } = KernelArena.create(kernelModule("kendall", WASM_BASE64), (space) => ({
      x: space.allocate(Float64Array, n),
      y: space.allocate(Float64Array, n),
      key: space.allocate(Float64Array, n),
      keyTmp: space.allocate(Float64Array, n),
      order: space.allocate(Int32Array, n),
      orderTmp: space.allocate(Int32Array, n),
      segFrom: space.allocate(Int32Array, n),
      segTo: space.allocate(Int32Array, n),
      bits: space.allocate(BigUint64Array, n),
      bitsTmp: space.allocate(BigUint64Array, n),
      position: space.allocate(Int32Array, n),
      positionTmp: space.allocate(Int32Array, n),
      counts: space.allocate(Int32Array, DIGIT_COUNTS),
      tree: space.allocate(Int32Array, n + 1),
      placed: space.allocate(BigUint64Array, BITSET_WORDS),
      candidates: space.allocate(Float64Array, candidates),
      summary: space.allocate(Float64Array, 13),
    }));
    ({
      x: this.x,
      y: this.y,
      key: this.key,
      order: this.order,
      segFrom: this.segFrom,
      segTo: this.segTo,
      candidates: this.candidates,
    } = placed);
    this.kernel = arena.exports;
    this.summary = placed.summary;
    const p = placed;
    this.kernel.bind(
      ...[
        p.x,
        p.y,
        p.key,
        p.keyTmp,
        p.order,
        p.orderTmp,
        p.segFrom,
        p.segTo,
        p.bits,
        p.bitsTmp,
        p.position,
        p.positionTmp,
        p.counts,
        p.tree,
        p.placed,
        p.candidates,
      ].map((a) => a.byteOffset),
      candidates,
      p.summary.byteOffset,
    );
  }

  /**
   * The summary of the series over the first `segments` seasons, null when a value is not
   * finite or x decreases within a season; sorts each season by y into key and order (ties
   * in x order), the order Sen's slope starts from.
   */
  summarize(segments: number): SeriesSummary | null {
    if (!this.kernel.summarize(segments)) return null;
    const s = this.summary;
    return {
      score: s[0],
      variance: s[1],
      decreasing: s[2],
      tiedPairs: s[3],
      minGapY: s[4],
      sxx: s[5],
      sxy: s[6],
      maxAbsY: s[7],
      maxAbsX: s[8],
      minStepX: s[9],
      maxSpanX: s[10],
      equalXRuns: s[11] === 1,
      syy: s[12],
    };
  }

  /** key[i] = the key of point i at cut t (y − t·x; x at −∞, −x at +∞) and order[i] = i, for i in [from, to). */
  resetKeys(t: number, from: number, to: number): void {
    this.kernel.resetKeys(t, from, to);
  }

  /**
   * Sorts key[from..to) ascending, moving order along, and returns how many pairs it
   * reverses: a later key smaller (strict) or smaller or equal (not strict). Equal keys keep
   * their order when strict and are reversed otherwise. Keys must not be NaN.
   */
  sortCount(from: number, to: number, strict: boolean): number {
    return this.kernel.sortCount(from, to, strict ? 1 : 0);
  }

  /**
   * About how many moves insertToCut(t) would make (a sample of `samples` points a season),
   * `reach` being |t − the order's cut| times the widest span of x in a season.
   */
  crossingsAhead(t: number, reach: number, segments: number, samples: number): number {
    return this.kernel.crossingsAhead(t, reach, segments, samples);
  }

  /**
   * Re-sorts order, sorted at a cut with `below` pairs below it, to the cut at t by
   * insertion (each of the first `segments` seasons alone; equal keys keep their order) and
   * returns the pairs the new order has out of x order (those below t, but for equal keys,
   * which stay as they were), or null once past `cap` moves; `moves` is what it made.
   */
  insertToCut(t: number, segments: number, cap: number, below: number): { count: number | null; moves: number } {
    const count: number = this.kernel.insertToCut(t, segments, cap, below);
    return { count: Number.isNaN(count) ? null : count, moves: this.kernel.moves() };
  }

  /**
   * Lists in candidates the slope of every pair whose order differs between order's cut and
   * the cut at t, as far as they fit, and returns how many there are; once past `limit`, it
   * stops and returns the count so far.
   */
  listCrossings(t: number, segments: number, limit: number): number {
    return this.kernel.listCrossings(t, segments, limit);
  }

  /**
   * Takes the last listing (of `listed` slopes, not stopped by its limit) on from its cut to
   * the cut at t, further the same way: the slopes of the pairs whose order differs between
   * the two cuts are put after them, as far as they fit. Returns the count of all, likewise
   * stopping past `limit`. After listCrossings to t1, the pairs listCrossings to t lists.
   */
  extendCrossings(t: number, segments: number, limit: number, listed: number): number {
    return this.kernel.extendCrossings(t, segments, limit, listed);
  }

  /**
   * The values of ranks low ≤ high (high ≤ low + 1) among candidates[0..count), by a radix
   * select in O(count) (−0 counted as 0); leaves candidates overwritten.
   */
  selectRanks(count: number, low: number, high: number): { lower: number; upper: number } {
    this.kernel.selectRanks(count, low, high);
    return { lower: this.kernel.ranked(0), upper: this.kernel.ranked(1) };
  }

  /** The median of candidates[0..count) (the mean of the two middle ones when count is even; NaN for none); overwrites them. */
  medianOfCandidates(count: number): number {
    if (count === 0) return NaN;
    const k = count >> 1;
    const { lower, upper } = this.selectRanks(count, count % 2 === 1 ? k : k - 1, k);
    return count % 2 === 1 ? upper : (lower + upper) / 2;
  }
}
