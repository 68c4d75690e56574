/**
 * What of an input raster is not read, as job warnings: variables and coordinates the reader
 * leaves out and dimensions counted 0..n-1 for want of a coordinate (Cube.skipped), each
 * prefixed with the parameter that names the raster.
 */
import type { Cube } from "../cube/types.js";

/**
 * @example
 * warnings.push(...inputNotes(cube, "inputMultidimensionalRaster"));
 * // ["inputMultidimensionalRaster: dimension member has no coordinate variable Strata can read; its values are the indices 0..1"]
 */
export function inputNotes(cube: Pick<Cube, "skipped">, parameter: string): string[] {
  return cube.skipped.map((s) => `${parameter}: ${s.reason}`);
}
