/**
 * The anomaly of a time-whole tile against each group's median or mean as a WebAssembly SIMD
 * kernel (assembly/groupAnomaly.ts): medians by a sorting network four pixels at a time,
 * means (and standard deviations) summed as the JavaScript loop sums them; then the group's
 * slices replaced by their anomalies, in the kernel's memory, where the tile was read (its
 * chunks unshuffled there, rows reversed as they decode). Values, µ, m, s and anomalies are
 * analysis/anomaly.ts's anomalyTile's, value for value, for the values it takes: float32 and
 * the integers float32 holds exactly.
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { KernelArena, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./groupAnomaly.wasm.js";
import { oddEvenMergeSort } from "./sortingNetwork.js";

/** anomaly.ts's number of Z_SCORE, the one method that needs s. */
const Z_SCORE = 3;

/** The largest group a kernel sorts for its median (its network ~35 comparators a value; a column of 64 KB). */
const MEDIAN_KERNEL_GROUP_LIMIT = 4096;

/** The pixel types whose every value float32 holds exactly. */
const EXACT_IN_F32: ReadonlySet<PixelType> = new Set<PixelType>(["F32", "S8", "U8", "S16", "U16"]);

/** Whether a kernel takes tiles of `pixelType` with groups of at most `largestGroup` slices, for medians or means. */
export const groupKernelTakes = (pixelType: PixelType, largestGroup: number, median: boolean): boolean =>
  EXACT_IN_F32.has(pixelType) && (!median || largestGroup <= MEDIAN_KERNEL_GROUP_LIMIT);

/** A group's two networks as byte offsets into the kernel's column of f32x4. */
interface Networks {
  /** Puts the two middle positions in place (four pixels without a missing value). */
  readonly complete: Uint32Array;
  /** Sorts every position (a lane's middle lies wherever its valid values end). */
  readonly every: Uint32Array;
}

export class GroupAnomalyKernel {
  private readonly arena: KernelArena;
  /** Two tiles' room: one computed while the next is read into the other. */
  private readonly slots: readonly [Float32Array, Float32Array];
  private readonly rows: Int32Array;
  private readonly ref: Float64Array;
  private readonly sd: Float64Array;
  private readonly column: Float32Array;
  private readonly complete: Uint32Array;
  private readonly every: Uint32Array;
  private readonly networks = new Map<number, Networks>();
  /** The group size whose networks are in the kernel's memory. */
  private placed = -1;

  /**
   * For tiles of at most `values` values and `pixels` pixels a slice, groups of at most
   * `largestGroup` slices, against their medians or means; chunks of at most `chunkBytes`
   * read into a slot are unshuffled in the kernel (0: by the reader, as it would anywhere).
   */
  constructor(
    values: number,
    pixels: number,
    largestGroup: number,
    private readonly median: boolean,
    chunkBytes = 0,
  ) {
    if (median && largestGroup > MEDIAN_KERNEL_GROUP_LIMIT)
      throw new RangeError(`a group of ${largestGroup} slices; the kernel sorts ${MEDIAN_KERNEL_GROUP_LIMIT} at most`);
    const pairs = median ? oddEvenMergeSort(largestGroup).length : 0;
    const { arena, placed } = KernelArena.create(kernelModule("groupAnomaly", WASM_BASE64), (space) => ({
      slots: [space.allocate(Float32Array, values), space.allocate(Float32Array, values)] as const,
      rows: space.allocate(Int32Array, largestGroup),
      ref: space.allocate(Float64Array, pixels),
      sd: space.allocate(Float64Array, median ? 0 : pixels),
      column: space.allocate(Float32Array, median ? 4 * largestGroup : 0),
      complete: space.allocate(Uint32Array, pairs),
      every: space.allocate(Uint32Array, pairs),
      staging: space.allocate(Uint8Array, chunkBytes),
    }));
    this.arena = arena;
    ({
      slots: this.slots,
      rows: this.rows,
      ref: this.ref,
      sd: this.sd,
      column: this.column,
      complete: this.complete,
      every: this.every,
    } = placed);
    if (chunkBytes > 0) arena.stageDecodesIn(placed.staging);
  }

  /** Slot `slot`'s room for a float32 tile of `length` values, to read the tile into (see anomalies). */
  tileArray(slot: 0 | 1, length: number): Float32Array | undefined {
    return length <= this.slots[slot].length ? this.slots[slot].subarray(0, length) : undefined;
  }

  /**
   * The anomalies of a tile (`tile`: slice after slice of `pixels`), by method `kind`
   * (anomaly.ts's numbering) against each group's median or mean (and s): group g's slices
   * are members[start[g] .. start[g + 1]). NaN where x is `nodata`, the median or mean is
   * missing (no valid value, or one missing and `ignoreNoData` false) or the anomaly is
   * beyond ±limit.
   * Computed in slot `slot`, where the tile is when it was read into tileArray(slot), else
   * copied there; the result lies there until that slot's next tile.
   */
  anomalies(
    slot: 0 | 1,
    tile: TypedArray,
    pixels: number,
    members: Int32Array,
    start: Int32Array,
    kind: number,
    nodata: number,
    ignoreNoData: boolean,
    limit: number,
  ): Float32Array {
    const room = this.slots[slot];
    if (tile.length > room.length || pixels > this.ref.length)
      throw new RangeError(`a tile of ${tile.length} values; the kernel holds ${room.length}`);
    const values = room.subarray(0, tile.length);
    if (tile.buffer !== values.buffer || tile.byteOffset !== values.byteOffset) values.set(tile);
    // A nodata value float32 cannot hold equals no value of the tile.
    const nodataF32 = Math.fround(nodata) === nodata ? nodata : NaN;
    const e = this.arena.exports;
    for (let g = 0; g + 1 < start.length; g++) {
      const count = start[g + 1] - start[g];
      if (count === 0) continue;
      this.rows.set(members.subarray(start[g], start[g + 1]));
      if (this.median) {
        const { complete, every } = this.place(count);
        e.groupMediansF32(
          values.byteOffset,
          pixels,
          this.rows.byteOffset,
          count,
          this.complete.byteOffset,
          complete,
          this.every.byteOffset,
          every,
          this.column.byteOffset,
          nodataF32,
          ignoreNoData ? 1 : 0,
          this.ref.byteOffset,
        );
      } else {
        const withSd = kind === Z_SCORE;
        e.groupMeansF32(
          values.byteOffset,
          pixels,
          this.rows.byteOffset,
          count,
          nodataF32,
          ignoreNoData ? 1 : 0,
          withSd ? 1 : 0,
          this.ref.byteOffset,
          this.sd.byteOffset,
        );
      }
      const sd = this.median ? this.ref : this.sd;
      e.applyRowsF32(kind, values.byteOffset, pixels, this.rows.byteOffset, count, nodata, this.ref.byteOffset, sd.byteOffset, limit);
    }
    return values;
  }

  /** The networks of a group of `count` into the kernel's memory; their comparator counts. */
  private place(count: number): { complete: number; every: number } {
    let networks = this.networks.get(count);
    if (!networks) {
      const offsets = (pairs: Int32Array) => Uint32Array.from(pairs, (wire) => wire * 16);
      networks = {
        complete: offsets(oddEvenMergeSort(count, [(count - 1) >> 1, count >> 1])),
        every: offsets(oddEvenMergeSort(count)),
      };
      this.networks.set(count, networks);
    }
    if (this.placed !== count) {
      this.complete.set(networks.complete);
      this.every.set(networks.every);
      this.placed = count;
    }
    return { complete: networks.complete.length / 2, every: networks.every.length / 2 };
  }
}
