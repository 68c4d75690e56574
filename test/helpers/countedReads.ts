/**
 * A cube whose variables record every read they are asked for (the tests that count how
 * often a walk reads each stored chunk), and may replace the values read.
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
