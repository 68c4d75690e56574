/**
 * A hand-made NetCDF-3 cube for the trend raster tests whose every pixel is an exact line, so
 * each trend band's value is known without Strata: stored (south-up) rows r = 0, 1 at lat
 * -5, 5; columns c = 0, 1, 2 at lon -10, 0, 10; days 0..3 after 1970-01-01. Variable `a` is
 * interceptA + slopeA·t, nodata (-999) at the hole (r 0, c 1) at every time; `b` has a
 * `level` dimension (two levels k, values 1 and 2 m) with interceptB + slopeB·t.
 */
import { latLonDims, latLonVars } from "./latLonAxes.js";
import { writeNetcdf3 } from "./netcdf3Writer.js";

/** Slope of `a` at stored row r, column c: per day. */
export const slopeA = (_r: number, c: number) => c + 1;
export const interceptA = (r: number, c: number) => 10 * r + c;
/** Slope of `b` at level k (the same at every pixel). */
export const slopeB = (k: number) => -(k + 1) / 2;
export const interceptB = (k: number, r: number, c: number) => 100 * k + 10 * r + c;
/** The pixel of `a` that is nodata at every time. */
export const isHole = (r: number, c: number) => r === 0 && c === 1;
/** The valid pixels of `a`, as [row, column], row by row. */
export const validA = [0, 1].flatMap((r) => [0, 1, 2].filter((c) => !isHole(r, c)).map((c) => [r, c] as const));

const LATS = [-5, 5];
const LONS = [-10, 0, 10];

/** The value of pixel i (row-major over 2 × 3) from a function of (row, column). */
function pixel(i: number, f: (r: number, c: number) => number): number {
  return f(Math.floor(i / 3), i % 3);
}

/**
 * Write the cube to `path`.
 * @example
 * await writeTrendLines(join(dir, "lines.nc")); // then a GenerateTrendRaster job on it
 */
export async function writeTrendLines(path: string): Promise<void> {
  await writeNetcdf3(path, {
    dims: [{ name: "time", size: 4, record: true }, { name: "level", size: 2 }, ...latLonDims(LATS, LONS)],
    vars: [
      ...latLonVars(LATS, LONS),
      { name: "level", dims: ["level"], type: "double", attrs: { units: "m" }, data: [1, 2] },
      { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 1970-01-01" }, data: (t) => [t] },
      {
        name: "a",
        dims: ["time", "lat", "lon"],
        type: "double",
        attrs: { _FillValue: -999 },
        data: (t) => Array.from({ length: 6 }, (_, i) => pixel(i, (r, c) => (isHole(r, c) ? -999 : interceptA(r, c) + slopeA(r, c) * t))),
      },
      {
        name: "b",
        dims: ["time", "level", "lat", "lon"],
        type: "double",
        data: (t) => [0, 1].flatMap((k) => Array.from({ length: 6 }, (_, i) => pixel(i, (r, c) => interceptB(k, r, c) + slopeB(k) * t))),
      },
    ],
  });
}
