/**
 * A histogram accumulated while an output is written, before its range is known: counts in
 * bins of a power-of-two width, [j·2^e, (j+1)·2^e), at most FINE_BINS consecutive ones. When a
 * block reaches beyond them the width doubles (pairs of bins merge, exactly, since the bins of
 * each width nest in the next). Accumulators of shares of the values merge exactly too, and
 * in any order give what one accumulator given every value gives: the width is always the
 * narrowest that holds every value seen in FINE_BINS bins, starting from a block's own.
 * Services draw the usual 256 bins over [min, max] from it (`histogramBins`); each value then
 * lands at most 1/8 of a bin from where an exact second pass would put it.
 */
import { type StagedBlock, TALLY_BINS } from "../kernels/statistics.js";

/** Counts of values in [j·2^exponent, (j+1)·2^exponent) for j = first, first + 1, … */
export interface FineHistogram {
  readonly exponent: number;
  readonly first: number;
  readonly counts: readonly number[];
}

/** A FineHistogram whose counts are typed. */
export type TypedFineHistogram = Omit<FineHistogram, "counts"> & { readonly counts: Float64Array };

/** Bins kept at most: the 256 bins drawn from them are each at least 8 of them wide, less 2. */
export const FINE_BINS = TALLY_BINS;

export class HistogramAccumulator {
  private exponent = NaN;
  private first = 0;
  /** Index after the last bin counted in (relative to `first`), 0 while empty. */
  private used = 0;
  private counts = new Float64Array(FINE_BINS);

  /**
   * Count the staged block's values that are neither NaN nor `nodata`; `lo` and `hi` are their
   * minimum and maximum (the caller has them from its own pass), nothing when there are none.
   * @example
   * h.add(stageBlock(block), NaN, 271.2, 305.9);
   */
  add(block: StagedBlock, nodata: number, lo: number, hi: number): void {
    if (!(lo <= hi)) return;
    if (Number.isNaN(this.exponent)) this.exponent = narrowestExponent(lo, hi);
    this.cover(lo, hi);
    // x·scale is exact (a power of two), and a value's bin is its distance from the window's
    // first bin, truncated: never negative, always within the window.
    block.bin(nodata, 2 ** -this.exponent, this.first, this.counts);
  }

  /** Add the counts of another accumulator's result (or its typed result), which it leaves as they are. */
  merge(other: FineHistogram | TypedFineHistogram | undefined): void {
    if (!other || other.counts.length === 0) return;
    let { exponent, first } = other;
    // Read only (coarsened makes new counts): a chunk's summary merged as it came, no copy.
    let counts: ArrayLike<number> = other.counts;
    if (Number.isNaN(this.exponent)) this.exponent = exponent;
    // Both at the wider width; when making room widens this one, the other follows.
    for (;;) {
      while (this.exponent < exponent) this.coarsen();
      while (exponent < this.exponent) {
        ({ first, counts } = coarsened(first, counts));
        exponent++;
      }
      const w = 2 ** exponent;
      this.cover(first * w, (first + counts.length - 1) * w);
      if (this.exponent === exponent) break;
    }
    for (let i = 0; i < counts.length; i++) this.counts[first + i - this.first] += counts[i];
  }

  /** Empty again, to count anew in the same memory (a chunk's summary after another's). */
  reset(): void {
    this.counts.fill(0, 0, this.used);
    this.exponent = NaN;
    this.first = 0;
    this.used = 0;
  }

  /** The counts from the first bin counted in to the last; undefined when nothing was counted. */
  result(): FineHistogram | undefined {
    const typed = this.typedResult();
    if (!typed) return undefined;
    // A loop: Array.from over a typed array takes its iterator, 6 times slower.
    const counts = new Array<number>(typed.counts.length);
    for (let i = 0; i < counts.length; i++) counts[i] = typed.counts[i];
    return { ...typed, counts };
  }

  /** result() with its counts in a Float64Array, which crosses to another thread 6 times faster than an array. */
  typedResult(): TypedFineHistogram | undefined {
    let a = 0;
    let b = this.used;
    while (a < b && this.counts[a] === 0) a++;
    while (b > a && this.counts[b - 1] === 0) b--;
    if (a === b) return undefined;
    return { exponent: this.exponent, first: this.first + a, counts: this.counts.slice(a, b) };
  }

  /**
   * Widen the bins until [lo, hi] and what is counted fit in FINE_BINS of them, place the
   * window over both, and take [lo, hi]'s bins into the counted range.
   */
  private cover(lo: number, hi: number): void {
    for (;;) {
      const s = 2 ** -this.exponent;
      const empty = this.used === 0;
      const a = Math.min(Math.floor(lo * s), empty ? Infinity : this.first);
      const b = Math.max(Math.floor(hi * s), empty ? -Infinity : this.first + this.used - 1);
      if (b - a + 1 <= FINE_BINS) {
        if (empty) this.first = a;
        else if (a < this.first) this.shift(a);
        this.used = b - this.first + 1;
        return;
      }
      this.coarsen();
    }
  }

  /** Move the window to start at bin `first`. */
  private shift(first: number): void {
    const moved = new Float64Array(FINE_BINS);
    moved.set(this.counts.subarray(0, this.used), this.first - first);
    this.used += this.first - first;
    this.first = first;
    this.counts = moved;
  }

  private coarsen(): void {
    const { first, counts } = coarsened(this.first, this.counts.subarray(0, this.used));
    this.exponent++;
    this.first = first;
    this.used = counts.length;
    this.counts = new Float64Array(FINE_BINS);
    this.counts.set(counts);
  }
}

/** The same counts in bins twice as wide. */
function coarsened(first: number, counts: ArrayLike<number>): { first: number; counts: Float64Array } {
  const half = Math.floor(first / 2);
  const out = new Float64Array(Math.floor((first + counts.length - 1) / 2) - half + 1);
  for (let i = 0; i < counts.length; i++) out[Math.floor((first + i) / 2) - half] += counts[i];
  return { first: half, counts: out };
}

/** The narrowest power-of-two width whose bins hold [lo, hi] in FINE_BINS; for one value, bins a millionth of it. */
function narrowestExponent(lo: number, hi: number): number {
  const span = hi - lo;
  const scale = span > 0 ? span / (FINE_BINS - 2) : Math.max(Math.abs(lo), Number.MIN_VALUE) * 2 ** -20;
  let e = Math.max(-1074, Math.floor(Math.log2(scale)));
  while (Math.floor(hi * 2 ** -e) - Math.floor(lo * 2 ** -e) + 1 > FINE_BINS) e++;
  return e;
}

/**
 * `size` bins over [min, max] (ArcGIS's image-service histogram): each fine bin's count goes
 * to the bin holding its centre (clamped into the range); with min = max, all in the first.
 * @example
 * histogramBins(stats.histogram, stats.min, stats.max); // 256 counts
 */
export function histogramBins(h: FineHistogram, min: number, max: number, size = 256): number[] {
  const out = new Array<number>(size).fill(0);
  const w = 2 ** h.exponent;
  const width = (max - min) / size;
  h.counts.forEach((c, i) => {
    if (c === 0) return;
    const centre = Math.min(max, Math.max(min, (h.first + i + 0.5) * w));
    out[width > 0 ? Math.min(size - 1, Math.floor((centre - min) / width)) : 0] += c;
  });
  return out;
}
