/**
 * A cube whose variables record every read they are asked for (the tests that count how
 * often a walk reads each stored chunk), and may replace the values read; and the stored
 * chunks those reads met.
 */
import type { Cube, Selection, TypedArray } from "../../src/cube/types.js";

/**
 * The cube with its variables' reads recorded (and their values replaced by `values`, when given).
 * @example
 * const { cube: seen, reads } = countedReads(cube);
 */
export function countedReads(cube: Cube, values?: (selection: Selection, data: TypedArray) => void): { cube: Cube; reads: Selection[] } {
  const reads: Selection[] = [];
  const variables = cube.variables.map((v) => ({
    ...v,
    read: async (selection?: Selection) => {
      reads.push(selection ?? {});
      const slab = await v.read(selection);
      values?.(selection!, slab.data);
      return slab;
    },
  }));
  return { cube: { ...cube, variables }, reads };
}

/**
 * How many recorded reads met each stored chunk of a [time, rows, columns] variable chunked
 * `timeChunk` steps by `rows` rows by `columns` columns (all of them in one chunk when
 * absent), keyed "time chunk:row chunk", with ":column chunk" when `columns` is given.
 * @example
 * chunksMet(reads, 100, 2); // Map { "0:0" => 1, "0:1" => 1, ... }
 */
export function chunksMet(reads: readonly Selection[], timeChunk: number, rows: number, columns?: number): Map<string, number> {
  const met = new Map<string, number>();
  for (const r of reads) {
    const [t0, t1] = r.dims![0];
    const w = r.window!;
    const [c0, c1] = columns === undefined ? [0, 0] : [Math.floor(w.x / columns), Math.floor((w.x + w.width - 1) / columns)];
    for (let c = Math.floor(t0 / timeChunk); c <= Math.floor((t1 - 1) / timeChunk); c++) {
      for (let row = Math.floor(w.y / rows); row <= Math.floor((w.y + w.height - 1) / rows); row++) {
        for (let column = c0; column <= c1; column++) {
          const key = columns === undefined ? `${c}:${row}` : `${c}:${row}:${column}`;
          met.set(key, (met.get(key) ?? 0) + 1);
        }
      }
    }
  }
  return met;
}
