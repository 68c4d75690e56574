/**
 * Stream a whole cube into a new Zarr store, one output chunk at a time: memory stays at
 * one chunk per variable whatever the cube's size.
 */
import type { Cube, Variable } from "../cube/types.js";
import { createZarrWriter } from "./zarrWrite.js";

export interface WriteCubeOptions {
  readonly signal?: AbortSignal;
  /** Called after each chunk with the fraction done (0..1). */
  readonly onProgress?: (fraction: number) => void;
}

/**
 * @example
 * const cube = await openCube("winds.cdf");
 * await writeCube(cube, "winds.zarr");
 */
export async function writeCube(cube: Cube, path: string, options: WriteCubeOptions = {}): Promise<void> {
  const writer = await createZarrWriter(path, cube);
  const plans = cube.variables.map((v) => ({ v, blocks: blocksOf(v, writer.chunkShapes.get(v.name)!, cube.grid.height, cube.grid.width) }));
  const total = plans.reduce((n, p) => n + p.blocks.length, 0);
  let done = 0;
  for (const { v, blocks } of plans) {
    for (const b of blocks) {
      options.signal?.throwIfAborted();
      const nd = v.dimensions.length;
      const slab = await v.read({
        dims: b.start.slice(0, nd).map((s, i) => [s, s + b.count[i]] as const),
        window: { y: b.start[nd], x: b.start[nd + 1], height: b.count[nd], width: b.count[nd + 1] },
        signal: options.signal,
      });
      await writer.writeBlock(v.name, b.start, slab);
      options.onProgress?.(++done / total);
    }
  }
  await writer.finish();
}

interface Block {
  readonly start: number[];
  readonly count: number[];
}

/** The chunk-aligned blocks covering a variable, in C order. */
function blocksOf(v: Variable, chunk: readonly number[], height: number, width: number): Block[] {
  const shape = [...v.dimensions.map((d) => d.values.length), height, width];
  const counts = shape.map((n, i) => Math.ceil(n / chunk[i]));
  const total = counts.reduce((a, b) => a * b, 1);
  const out: Block[] = [];
  for (let k = 0; k < total; k++) {
    let rem = k;
    const start = new Array<number>(shape.length);
    const count = new Array<number>(shape.length);
    for (let d = shape.length - 1; d >= 0; d--) {
      const c = rem % counts[d];
      rem = Math.floor(rem / counts[d]);
      start[d] = c * chunk[d];
      count[d] = Math.min(chunk[d], shape[d] - start[d]);
    }
    out.push({ start, count });
  }
  return out;
}
