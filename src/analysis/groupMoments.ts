/**
 * Per-pixel mean and standard deviation of groups of slices, accumulated one slice at a time
 * (any order) and merged across shares of the slices: the state of the streaming anomaly.
 *
 * Sums are shifted by the first valid value of each pixel and group (K): Σ(x−K) and
 * Σ(x−K)² lose nothing to cancellation when the values sit far from zero, and a constant
 * series has exactly s = 0. Memory: 8 + 8 (+ 8 with s) + 4 + 1 bytes per pixel and group.
 */
import type { TypedArray } from "../cube/types.js";

export interface GroupMomentsShape {
  readonly groups: number;
  readonly pixels: number;
  /** Keep Σ(x−K)² for the standard deviation. */
  readonly withSd: boolean;
}

/** Bytes per pixel and group. */
export const momentBytes = (withSd: boolean): number => (withSd ? 29 : 21);

export class GroupMoments {
  readonly shift: Float64Array;
  readonly s1: Float64Array;
  readonly s2: Float64Array | undefined;
  readonly n: Uint32Array;
  /** 1 where a nodata value was met (a group with one is nodata unless nodata is ignored). */
  readonly bad: Uint8Array;

  constructor(readonly shape: GroupMomentsShape) {
    const cells = shape.groups * shape.pixels;
    this.shift = new Float64Array(cells);
    this.s1 = new Float64Array(cells);
    this.s2 = shape.withSd ? new Float64Array(cells) : undefined;
    this.n = new Uint32Array(cells);
    this.bad = new Uint8Array(cells);
  }

  /**
   * Add one slice of group `g`: values[offset .. offset + pixels); NaN and `nodata` are nodata.
   * @example
   * m.add(slab.data, t * P, groups[t], v.nodata ?? NaN);
   */
  add(values: TypedArray, offset: number, g: number, nodata: number): void {
    const P = this.shape.pixels;
    const base = g * P;
    const { shift, s1, s2, n, bad } = this;
    for (let p = 0; p < P; p++) {
      const x = values[offset + p];
      const i = base + p;
      if (x !== x || x === nodata) {
        bad[i] = 1;
        continue;
      }
      if (n[i] === 0) shift[i] = x;
      const d = x - shift[i];
      s1[i] += d;
      if (s2) s2[i] += d * d;
      n[i]++;
    }
  }

  /** Add another share's sums (same shape), re-shifted to this one's K. */
  merge(other: GroupMoments): void {
    const { shift, s1, s2, n, bad } = this;
    for (let i = 0; i < n.length; i++) {
      bad[i] |= other.bad[i];
      const m = other.n[i];
      if (m === 0) continue;
      if (n[i] === 0) {
        shift[i] = other.shift[i];
        s1[i] = other.s1[i];
        if (s2) s2[i] = other.s2![i];
        n[i] = m;
        continue;
      }
      // Σ(x−K) = Σ(x−K') + m·(K'−K); Σ(x−K)² = Σ(x−K')² + 2(K'−K)·Σ(x−K') + m·(K'−K)².
      const delta = other.shift[i] - shift[i];
      if (s2) s2[i] += other.s2![i] + 2 * delta * other.s1[i] + m * delta * delta;
      s1[i] += other.s1[i] + m * delta;
      n[i] += m;
    }
  }

  /**
   * µ per group and pixel ([g][p]) and, with s, the population standard deviation; NaN where a
   * group has no valid value, or (unless `ignoreNoData`) met a nodata value.
   */
  finish(ignoreNoData: boolean): { mean: Float64Array; sd: Float64Array | undefined } {
    const { shift, s1, s2, n, bad } = this;
    const mean = new Float64Array(n.length);
    const sd = s2 ? new Float64Array(n.length) : undefined;
    for (let i = 0; i < n.length; i++) {
      const count = n[i];
      if (count === 0 || (bad[i] && !ignoreNoData)) {
        mean[i] = NaN;
        if (sd) sd[i] = NaN;
        continue;
      }
      const d = s1[i] / count;
      mean[i] = shift[i] + d;
      if (sd) sd[i] = Math.sqrt(Math.max(0, s2![i] / count - d * d));
    }
    return { mean, sd };
  }

  /**
   * The state as typed arrays, to hand a share's sums to whoever merges them (written end to
   * end, and read back into a fresh GroupMoments's views, with no packed copy).
   */
  views(): (Float64Array | Uint32Array | Uint8Array)[] {
    return [this.shift, this.s1, ...(this.s2 ? [this.s2] : []), this.n, this.bad];
  }
}
