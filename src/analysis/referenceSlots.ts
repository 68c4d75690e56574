/**
 * The reference of a streamed anomaly's pass 1 (µ, and s for Z_SCORE, per group and pixel)
 * held a few groups at a time: the groups a run needs are read from the merged sums when
 * they are not held, into slots of the kernel's memory, the least recently used slot given
 * up. A daily cube's 12 monthly groups were 25 MB of float64 a share, all held through the
 * pass; a run of 8 days needs one or two of them, and runs come in time order, so each group
 * is read about once a year of the series.
 */

/** Where a unit's reference comes from: its groups, whether it has s, and a group's read into given arrays. */
export interface ReferenceSource {
  readonly groups: number;
  readonly withSd: boolean;
  /** µ (and s) of `group` into `mean` (and `sd`), one value a pixel. */
  readGroup(group: number, mean: Float64Array, sd: Float64Array | undefined): Promise<void>;
}

/**
 * Slots a unit's pass 1 needs: as many as the most groups one run of it spans (every group
 * when that is all of them).
 * @example
 * referenceSlotCount(groups, [[0, 8], [8, 16]], 12); // 1 or 2 for monthly groups of daily slices
 */
export function referenceSlotCount(groups: ArrayLike<number>, runs: readonly (readonly [number, number])[], groupCount: number): number {
  let most = 1;
  for (const [a, b] of runs) {
    const seen = new Set<number>();
    for (let t = a; t < b; t++) seen.add(groups[t]);
    most = Math.max(most, seen.size);
  }
  return Math.min(most, groupCount);
}

export class ReferenceSlots {
  /** The slot of each group held, least recently used first. */
  private readonly held = new Map<number, number>();

  /** `slots` slots of `pixels` values each in `mean` (and `sd`), filled from `source`. */
  constructor(
    private readonly source: ReferenceSource,
    private readonly mean: Float64Array,
    private readonly sd: Float64Array | undefined,
    private readonly pixels: number,
    private readonly slots: number,
  ) {}

  /** Hold every one of `groups` (no more of them than there are slots), reading those not held. */
  async hold(groups: Iterable<number>): Promise<void> {
    const needed = new Set(groups);
    if (needed.size > this.slots) throw new RangeError(`a run spans ${needed.size} groups; the reference has ${this.slots} slots`);
    for (const group of needed) {
      let slot = this.held.get(group);
      if (slot !== undefined) {
        this.held.delete(group); // most recently used now
        this.held.set(group, slot);
        continue;
      }
      slot = this.held.size < this.slots ? this.held.size : undefined;
      for (const [old, s] of this.held) {
        if (slot !== undefined) break;
        if (!needed.has(old)) {
          this.held.delete(old);
          slot = s;
        }
      }
      const at = slot! * this.pixels;
      await this.source.readGroup(group, this.mean.subarray(at, at + this.pixels), this.sd?.subarray(at, at + this.pixels));
      this.held.set(group, slot!);
    }
  }

  /** The slot holding `group` (held by the last hold). */
  slotOf(group: number): number {
    const slot = this.held.get(group);
    if (slot === undefined) throw new RangeError(`group ${group} is not held`);
    return slot;
  }
}
