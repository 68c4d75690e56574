/**
 * Which overview level an image reads (io/zarrOverviews.ts writes them): the coarsest whose
 * cells are still no larger than the image's, measured in the service's own units over the
 * image's extent, as GDAL chooses. The image then reads about the pixels it draws instead of
 * every cell of the full grid under it.
 */
import { transformEnvelope } from "../analysis/warp.js";
import type { Cube, Grid } from "../cube/types.js";
import { OVERVIEWS_ATTRIBUTE, type OverviewLevel } from "../io/zarrOverviews.js";
import { gridEnvelope } from "./info.js";
import { gridCrs } from "./spatial.js";

/**
 * The level to read a variable of `cube` from for an image on `target`; undefined for the
 * full grid.
 * @example
 * const level = overviewFor(cube, "tas", plan.target); // { path: "overviews/4", factor: 4, ... }
 */
export function overviewFor(cube: Cube, variable: string, target: Grid): OverviewLevel | undefined {
  const levels = (cube.attributes[OVERVIEWS_ATTRIBUTE] ?? []) as readonly OverviewLevel[];
  if (levels.length === 0) return undefined;
  const source = gridCrs(cube.grid).definition;
  const seen = transformEnvelope(gridEnvelope(target), gridCrs(target).definition, source);
  if (!seen) return undefined;
  const [, t1, , , , t5] = cube.grid.transform;
  // Source cells per image cell, along the axis where the image is finer.
  const ratio = Math.min((seen.xmax - seen.xmin) / target.width / Math.abs(t1), (seen.ymax - seen.ymin) / target.height / Math.abs(t5));
  let chosen: OverviewLevel | undefined;
  for (const level of levels) {
    if (level.factor <= ratio && level.variables.includes(variable) && (!chosen || level.factor > chosen.factor)) chosen = level;
  }
  return chosen;
}
