/**
 * A made-up variable `tas` (float32, kelvin) along StdTime, one value a day, stored
 * `chunkShape` a chunk: for the tests that plan or walk a cube by how it is stored.
 */
import type { Selection, Slab, Variable } from "../../src/cube/types.js";

const DAY = 86_400_000;

/**
 * @example
 * dailyVariable([365, 60, 60], 1461); // planned only: reading it rejects
 */
export function dailyVariable(
  chunkShape: number[],
  days: number,
  options: { readonly start?: number; readonly read?: (selection: Selection) => Promise<Slab> } = {},
): Variable {
  const start = options.start ?? 0;
  return {
    name: "tas",
    description: "",
    unit: "K",
    pixelType: "F32",
    dimensions: [
      {
        name: "StdTime",
        sourceName: "time",
        description: "",
        unit: "ISO8601",
        values: Array.from({ length: days }, (_, i) => start + i * DAY),
      },
    ],
    chunkShape,
    attributes: {},
    read: async (selection: Selection = {}) => {
      if (!options.read) throw new Error("not read here");
      return options.read(selection);
    },
  };
}
