/**
 * Per-pixel mean and standard deviation of groups of slices, accumulated one slice at a time
 * (any order) and merged across shares of the slices: the state of the streaming anomaly.
 *
 * Sums are shifted by a first valid value (K): Σ(x−K) and Σ(x−K)² lose nothing to
 * cancellation when the values sit far from zero. With s, K is each pixel and group's own, so
 * a constant series has exactly s = 0; for the mean alone one K per pixel does as well (the
 * mean is K + Σ(x−K)/n either way) and saves 8 bytes per pixel and group. Memory: 8 + 4 + 1
 * bytes per pixel and group, + 16 with s.
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { type ArraySpace, plainArrays } from "../kernels/arena.js";
import { GroupSumsKernel } from "../kernels/groupSums.js";

export interface GroupMomentsShape {
  readonly groups: number;
  readonly pixels: number;
  /** Keep Σ(x−K)² for the standard deviation. */
  readonly withSd: boolean;
}

/** Bytes per pixel and group. */
export const momentBytes = (withSd: boolean): number => (withSd ? 29 : 13);

export class GroupMoments {
  /** K per pixel and group with s, else per pixel; NaN until a valid value comes. */
  readonly shift: Float64Array;
  readonly s1: Float64Array;
  readonly s2: Float64Array | undefined;
  readonly n: Uint32Array;
  /** 1 where a nodata value was met (a group with one is nodata unless nodata is ignored). */
  readonly bad: Uint8Array;

  /** The sums as a WebAssembly kernel (whose memory holds the arrays above), when sized for runs. */
  private readonly kernel?: GroupSumsKernel;

  /**
   * `runs` sizes the sums for addRun (the values of the longest run and their type): without
   * it they can only be merged into.
   */
  constructor(
    readonly shape: GroupMomentsShape,
    private readonly runs?: { readonly values: number; readonly pixelType: PixelType },
  ) {
    const cells = shape.groups * shape.pixels;
    const layout = (space: ArraySpace) => ({
      shift: space.allocate(Float64Array, shape.withSd ? cells : shape.pixels).fill(Number.NaN),
      s1: space.allocate(Float64Array, cells),
      s2: shape.withSd ? space.allocate(Float64Array, cells) : undefined,
      n: space.allocate(Uint32Array, cells),
      bad: space.allocate(Uint8Array, cells),
    });
    if (runs) this.kernel = new GroupSumsKernel(layout, shape.pixels, runs.values, runs.pixelType);
    ({ shift: this.shift, s1: this.s1, s2: this.s2, n: this.n, bad: this.bad } = this.kernel?.sums ?? layout(plainArrays));
  }

  /** Whether these sums, sized for runs, are of `shape` and take runs of `values` values of `pixelType`. */
  sizedFor(shape: GroupMomentsShape, runs: { readonly values: number; readonly pixelType: PixelType }): boolean {
    const own = this.shape;
    return (
      own.groups === shape.groups &&
      own.pixels === shape.pixels &&
      own.withSd === shape.withSd &&
      this.runs !== undefined &&
      this.runs.values >= runs.values &&
      this.runs.pixelType === runs.pixelType
    );
  }

  /** Back to no slice added, for another unit of the same shape (its kernel and run arrays kept), once the last unit's walk is done. */
  reset(): void {
    this.kernel?.reclaimRuns();
    this.shift.fill(Number.NaN);
    this.s1.fill(0);
    this.s2?.fill(0);
    this.n.fill(0);
    this.bad.fill(0);
  }

  /**
   * Add a run of slices, values[k·P .. (k+1)·P) of group groups[t0 + k] for each k; NaN and
   * `nodata` are nodata. Each cell adds its slices in order (the same sums as slice by slice).
   * @example
   * m.addRun(slab.data, groups, t0, v.nodata ?? NaN);
   */
  addRun(values: TypedArray, groups: ArrayLike<number>, t0: number, nodata: number): void {
    if (!this.kernel) throw new Error("GroupMoments: sums not sized for runs (a merge target) were given one");
    this.kernel.addRun(values, groups, t0, nodata);
  }

  /** An array to read a run into where addRun sums it without a copy (float input). */
  runArray(length: number): TypedArray | undefined {
    return this.kernel?.runArray(length);
  }

  /** Add another share's sums (same shape), re-shifted to this one's K. */
  merge(other: GroupMoments): void {
    const { shift, s1, s2, n, bad } = this;
    // A K not yet set takes the other's (its sums are all 0, so nothing moves).
    for (let k = 0; k < shift.length; k++) if (Number.isNaN(shift[k])) shift[k] = other.shift[k];
    const P = this.shape.pixels;
    for (let i = 0; i < n.length; i++) {
      bad[i] |= other.bad[i];
      const m = other.n[i];
      if (m === 0) continue;
      const k = s2 ? i : i % P;
      // Σ(x−K) = Σ(x−K') + m·(K'−K); Σ(x−K)² = Σ(x−K')² + 2(K'−K)·Σ(x−K') + m·(K'−K)².
      const delta = other.shift[k] - shift[k];
      if (s2) s2[i] += other.s2![i] + 2 * delta * other.s1[i] + m * delta * delta;
      s1[i] += other.s1[i] + m * delta;
      n[i] += m;
    }
  }

  /** Where group g's K start in `shift` (cell i's K is at i with s, at i mod pixels without). */
  private shiftBase(g: number): number {
    return this.s2 ? g * this.shape.pixels : 0;
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
      mean[i] = shift[s2 ? i : i % this.shape.pixels] + d;
      if (sd) sd[i] = Math.sqrt(Math.max(0, s2![i] / count - d * d));
    }
    return { mean, sd };
  }

  /**
   * The state as typed arrays, to hand a share's sums to whoever merges them (written end to
   * end, and read back into a fresh GroupMoments's views, with no packed copy; or a group at
   * a time, groupViewOffsets).
   */
  views(): (Float64Array | Uint32Array | Uint8Array)[] {
    return [this.shift, this.s1, ...(this.s2 ? [this.s2] : []), this.n, this.bad];
  }
}

/**
 * Where group `g`'s part of each of views()'s arrays lies when the arrays of sums of `shape`
 * are written end to end (byte offsets, in views()'s order), for the views of a GroupMoments
 * of one group to be read from there: the group's K with s (without, the pixels' K, which
 * every group shares), Σ(x−K), Σ(x−K)², n and bad. Merged and finished a group at a time,
 * two shares' sums of a daily cube's 12 months take 7 MB, not 84.
 * @example
 * const one = new GroupMoments({ ...shape, groups: 1 });
 * groupViewOffsets(shape, g).forEach((at, i) => file.readAt(one.views()[i], at));
 */
export function groupViewOffsets(shape: GroupMomentsShape, g: number): number[] {
  const { groups, pixels, withSd } = shape;
  const cells = groups * pixels;
  const shiftBytes = (withSd ? cells : pixels) * 8;
  const offsets = [withSd ? g * pixels * 8 : 0, shiftBytes + g * pixels * 8];
  let end = shiftBytes + cells * 8;
  if (withSd) {
    offsets.push(end + g * pixels * 8);
    end += cells * 8;
  }
  offsets.push(end + g * pixels * 4, end + cells * 4 + g * pixels);
  return offsets;
}
