/**
 * A hand-checkable NetCDF-3 cube for the image service query tests: variable `a` on a 4 × 5
 * geographic grid (cell centres lat -15..15, lon -20..20, 10° apart) at 3 times (days 0,
 * 31, 60 after 2000-01-01), value 100·t + 10·row + col with rows SOUTH-UP as stored (so the
 * north-up row r holds 100·t + 10·(3 − r) + col), nodata -999 at t = 1, stored row 2, col 2.
 */
import { writeNetcdf3 } from "./netcdf3Writer.js";

/** The value stored at time t, stored (south-up) row and column; undefined at the nodata cell. */
export function smallCubeValue(t: number, storedRow: number, col: number): number | undefined {
  return t === 1 && storedRow === 2 && col === 2 ? undefined : 100 * t + 10 * storedRow + col;
}

export async function writeSmallCube(path: string): Promise<void> {
  await writeNetcdf3(path, {
    dims: [
      { name: "time", size: 3, record: true },
      { name: "lat", size: 4 },
      { name: "lon", size: 5 },
    ],
    vars: [
      { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [-15, -5, 5, 15] },
      { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [-20, -10, 0, 10, 20] },
      { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: (r) => [[0, 31, 60][r]] },
      {
        name: "a",
        dims: ["time", "lat", "lon"],
        type: "float",
        attrs: { _FillValue: -999 },
        data: (t) => Array.from({ length: 20 }, (_, k) => smallCubeValue(t, Math.floor(k / 5), k % 5) ?? -999),
      },
    ],
  });
}
