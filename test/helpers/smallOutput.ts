/**
 * A small output written by Strata's Zarr writer, for the tests of who reads it: a 4 × 5
 * geographic grid (cell centres lat 15..-15, lon -20..20, 10° apart, north-up) at 3 times
 * (2000-01-01, -02-01, -03-01 UTC), with three variables of the kinds of nodata outputs have:
 * `tas` float32, nodata NaN (implicit, no _FillValue), NaN at every 7th value; `count`
 * int16, nodata -1 at every 5th value; `flag` uint8 without nodata, holding zeros.
 */
import { gridFromTransform } from "../../src/cube/grid.js";
import type { Dimension, Grid, PixelType } from "../../src/cube/types.js";
import { createZarrWriter } from "../../src/io/zarrWrite.js";

export const SMALL_SHAPE = [3, 4, 5] as const;
export const SMALL_TIMES = [Date.UTC(2000, 0, 1), Date.UTC(2000, 1, 1), Date.UTC(2000, 2, 1)];
export const SMALL_GRID: Grid = gridFromTransform(5, 4, [-25, 10, 0, 20, 0, -10], { epsg: 4326 });

const TIME: Dimension = {
  name: "StdTime",
  sourceName: "time",
  description: "time",
  unit: "ISO8601",
  values: SMALL_TIMES,
  calendar: "standard",
};

/** Each variable's values in C order over [time, row (north-up), col]; NaN is nodata in tas. */
export const SMALL_VALUES: Readonly<Record<string, { pixelType: PixelType; nodata?: number; values: number[] }>> = {
  tas: { pixelType: "F32", values: Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? NaN : i * 0.25 - 5)) },
  count: { pixelType: "S16", nodata: -1, values: Array.from({ length: 60 }, (_, i) => (i % 5 === 1 ? -1 : i * 3)) },
  flag: { pixelType: "U8", values: Array.from({ length: 60 }, (_, i) => i % 3) },
};

/** Write the small output to `path` (which must not exist) through createZarrWriter. */
export async function writeSmallOutput(path: string): Promise<void> {
  const names = Object.keys(SMALL_VALUES);
  const writer = await createZarrWriter(path, {
    grid: SMALL_GRID,
    attributes: { title: "small output" },
    variables: names.map((name) => ({
      name,
      description: `${name} values`,
      unit: name === "tas" ? "K" : "",
      pixelType: SMALL_VALUES[name].pixelType,
      ...(SMALL_VALUES[name].nodata !== undefined ? { nodata: SMALL_VALUES[name].nodata } : {}),
      dimensions: [TIME],
      attributes: {},
    })),
  });
  for (const name of names) {
    const { pixelType, values } = SMALL_VALUES[name];
    const data = { F32: Float32Array, S16: Int16Array, U8: Uint8Array }[pixelType as "F32" | "S16" | "U8"].from(values);
    await writer.writeBlock(name, [0, 0, 0], { data, shape: SMALL_SHAPE });
  }
  await writer.finish({ "strata:statistics": {} });
}
