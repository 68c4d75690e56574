/**
 * A synthetic daily cube on disk as NetCDF-3 (one record per time step, as most NetCDF
 * files store time): the values follow a formula, so any read can be checked.
 */
import { writeNetcdf3 } from "./netcdf3Writer.js";

export interface BigCubeShape {
  times: number;
  height: number;
  width: number;
  /** false: time a fixed dimension, the variable stored contiguously (time whole); default one record per step. */
  record?: boolean;
}

/** The value at (t, row, col) in north-up order; rows are stored south-up in the file. */
export function bigCubeValue(t: number, row: number, col: number): number {
  return Math.fround(t + 0.001 * row + 0.000001 * col);
}

/**
 * `value` gives the value at (t, north-up row, col), bigCubeValue by default; it is called
 * in storage order.
 * @example
 * await writeBigCube("/tmp/big.nc", { times: 1000, height: 360, width: 720 }); // 1.04 GB
 */
export async function writeBigCube(
  path: string,
  { times, height, width, record = true }: BigCubeShape,
  value: (t: number, row: number, col: number) => number = bigCubeValue,
): Promise<void> {
  const plane = new Float32Array(height * width);
  const slice = (t: number) => {
    // Stored south-up: storage row s is north-up row height-1-s.
    for (let s = 0; s < height; s++) {
      const row = height - 1 - s;
      for (let c = 0; c < width; c++) plane[s * width + c] = value(t, row, c);
    }
    return plane;
  };
  // A fixed (non-record) variable is written whole: every slice at once (small cubes only).
  const whole = (each: (t: number) => ArrayLike<number>, size: number) => {
    const out = new Float64Array(times * size);
    for (let t = 0; t < times; t++) out.set(each(t), t * size);
    return out;
  };
  await writeNetcdf3(path, {
    dims: [
      { name: "time", size: times, record },
      { name: "lat", size: height },
      { name: "lon", size: width },
    ],
    attrs: { Conventions: "CF-1.8", title: "synthetic cube for memory and speed benchmarks" },
    vars: [
      {
        name: "time",
        dims: ["time"],
        type: "double",
        attrs: { units: "days since 2000-01-01", calendar: "standard" },
        data: record ? (t) => [t] : Array.from({ length: times }, (_, t) => t),
      },
      {
        name: "lat",
        dims: ["lat"],
        type: "double",
        attrs: { units: "degrees_north" },
        data: Array.from({ length: height }, (_, i) => -90 + (180 / height) * (i + 0.5)),
      },
      {
        name: "lon",
        dims: ["lon"],
        type: "double",
        attrs: { units: "degrees_east" },
        data: Array.from({ length: width }, (_, i) => -180 + (360 / width) * (i + 0.5)),
      },
      {
        name: "tas",
        dims: ["time", "lat", "lon"],
        type: "float",
        attrs: { units: "K", long_name: "synthetic temperature", _FillValue: -9999 },
        data: record ? slice : whole(slice, height * width),
      },
    ],
  });
}
