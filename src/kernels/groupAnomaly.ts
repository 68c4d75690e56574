/**
 * The median anomaly of a time-whole tile as a WebAssembly SIMD kernel
 * (assembly/groupMedian.ts): each group's median of every pixel by a sorting network four
 * pixels at a time, then the group's slices replaced by their anomalies, in the kernel's
 * memory. Values, medians and anomalies are analysis/anomaly.ts's anomalyTile's, value for
 * value, for the values it takes: float32 and the integers float32 holds exactly.
 */
import type { PixelType, TypedArray } from "../cube/types.js";
import { KernelArena, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./groupMedian.wasm.js";
import { oddEvenMergeSort } from "./sortingNetwork.js";

/** The largest group a kernel sorts (its network ~35 comparators a value; a column of 64 KB). */
const MEDIAN_KERNEL_GROUP_LIMIT = 4096;

/** The pixel types whose every value float32 holds exactly. */
const EXACT_IN_F32: ReadonlySet<PixelType> = new Set<PixelType>(["F32", "S8", "U8", "S16", "U16"]);

/** Whether a kernel takes tiles of `pixelType` with groups of at most `largestGroup` slices. */
export const medianKernelTakes = (pixelType: PixelType, largestGroup: number): boolean =>
  EXACT_IN_F32.has(pixelType) && largestGroup <= MEDIAN_KERNEL_GROUP_LIMIT;

/** A group's two networks as byte offsets into the kernel's column of f32x4. */
interface Networks {
  /** Puts the two middle positions in place (four pixels without a missing value). */
  readonly complete: Uint32Array;
  /** Sorts every position (a lane's middle lies wherever its valid values end). */
  readonly every: Uint32Array;
}

export class GroupMedianKernel {
  private readonly arena: KernelArena;
  /** Two tiles' room: one computed while the next is read into the other. */
  private readonly slots: readonly [Float32Array, Float32Array];
  private readonly rows: Int32Array;
  private readonly ref: Float64Array;
  private readonly column: Float32Array;
  private readonly complete: Uint32Array;
  private readonly every: Uint32Array;
  private readonly networks = new Map<number, Networks>();
  /** The group size whose networks are in the kernel's memory. */
  private placed = -1;

  /** For tiles of at most `values` values and `pixels` pixels a slice, groups of at most `largestGroup` slices. */
  constructor(values: number, pixels: number, largestGroup: number) {
    if (largestGroup > MEDIAN_KERNEL_GROUP_LIMIT)
      throw new RangeError(`a group of ${largestGroup} slices; the kernel sorts ${MEDIAN_KERNEL_GROUP_LIMIT} at most`);
    const pairs = oddEvenMergeSort(largestGroup).length;
    const { arena, placed } = KernelArena.create(kernelModule("groupMedian", WASM_BASE64), (space) => ({
      slots: [space.allocate(Float32Array, values), space.allocate(Float32Array, values)] as const,
      rows: space.allocate(Int32Array, largestGroup),
      ref: space.allocate(Float64Array, pixels),
      column: space.allocate(Float32Array, 4 * largestGroup),
      complete: space.allocate(Uint32Array, pairs),
      every: space.allocate(Uint32Array, pairs),
    }));
    this.arena = arena;
    ({ slots: this.slots, rows: this.rows, ref: this.ref, column: this.column, complete: this.complete, every: this.every } = placed);
  }

  /** Slot `slot`'s room for a float32 tile of `length` values, to read the tile into (see anomalies). */
  tileArray(slot: 0 | 1, length: number): Float32Array | undefined {
    return length <= this.slots[slot].length ? this.slots[slot].subarray(0, length) : undefined;
  }

  /**
   * The anomalies of a tile (`tile`: slice after slice of `pixels`), by method `kind`
   * (anomaly.ts's numbering) against each group's median: group g's slices are
   * members[start[g] .. start[g + 1]). NaN where x is `nodata`, the median is missing (no
   * valid value, or one missing and `ignoreNoData` false) or the anomaly is beyond ±limit.
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
      e.applyRowsF32(kind, values.byteOffset, pixels, this.rows.byteOffset, count, nodata, this.ref.byteOffset, limit);
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
