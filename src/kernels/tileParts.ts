/**
 * The transposition's cut of a run into its tiles' parts (assembly/tileParts.ts), in a kernel
 * whose memory also holds two arrays a walk can read its runs into (float input), so that
 * chunks are unshuffled straight into the run with SIMD and the run is cut where it was decoded.
 *
 * ```ts
 * const kernel = new TilePartsKernel(runValues, "F32");
 * const parts = kernel.cut(run, { steps: 8, height: 360, width: 720 }, 60, 60); // tile after tile
 * ```
 */
import { PIXEL_ARRAYS, type PixelType, type TypedArray } from "../cube/types.js";
import { KernelArena, RunInput, kernelModule } from "./arena.js";
import { WASM_BASE64 } from "./tileParts.wasm.js";

export class TilePartsKernel {
  private readonly arena: KernelArena;
  private readonly runs: RunInput;
  private readonly parts: Uint8Array;

  /** For runs of at most `runValues` values of `pixelType`. */
  constructor(runValues: number, pixelType: PixelType) {
    const { arena, placed } = KernelArena.create(kernelModule("tileParts", WASM_BASE64), (space) => {
      const runs = new RunInput(space, runValues, pixelType);
      return { runs, parts: space.allocate(Uint8Array, runValues * new PIXEL_ARRAYS[pixelType](0).BYTES_PER_ELEMENT) };
    });
    ({ runs: this.runs, parts: this.parts } = placed);
    this.arena = arena;
  }

  /** An array in the kernel's memory to read a run of `length` values into, while one is free (float input only). */
  runArray(length: number): TypedArray | undefined {
    return this.runs.runArray(length);
  }

  /**
   * The run's values (`steps` slices of height × width) cut into tiles of tileHeight ×
   * tileWidth (smaller at the edges, row by row as windowTiles lists them): each tile's
   * part, slice by slice, one after the other. Valid until the next cut.
   */
  cut(values: TypedArray, run: { steps: number; height: number; width: number }, tileHeight: number, tileWidth: number): Uint8Array {
    const bytes = this.runs.bytes(values);
    if (bytes.length > this.parts.length) throw new Error(`tile parts: a run of ${bytes.length} bytes, sized for ${this.parts.length}`);
    const size = values.BYTES_PER_ELEMENT;
    this.arena.exports.tileParts(bytes.byteOffset, this.parts.byteOffset, run.steps, run.height, run.width, tileHeight, tileWidth, size);
    return this.parts.subarray(0, run.steps * run.height * run.width * size);
  }
}
