/** The plan that copies a whole cube (every variable, slice and cell). */
import type { SubsetPlan } from "../analysis/subset.js";
import type { Cube } from "../cube/types.js";
import { TILE } from "../io/zarrWrite.js";

export function wholeCubePlan(cube: Cube): SubsetPlan {
  return {
    variables: cube.variables.map((v) => ({ name: v.name, indices: v.dimensions.map((d) => d.values.map((_, i) => i)) })),
    window: { x: 0, y: 0, width: cube.grid.width, height: cube.grid.height },
    tile: TILE,
  };
}
