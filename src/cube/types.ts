/**
 * The multidimensional raster model. A Cube is a set of variables on one grid; each
 * variable has ordered non-spatial dimensions (StdTime, StdZ or any named dimension)
 * followed by the two spatial axes (rows north-up, then columns west-east).
 * No I/O here: readers in io/ supply the `read` function.
 */

/** ArcGIS pixel type names, used for decoded values. */
export type PixelType = "U8" | "S8" | "U16" | "S16" | "U32" | "S32" | "F32" | "F64";

export type TypedArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/** The typed array class that holds each pixel type. */
export const PIXEL_ARRAYS: Readonly<Record<PixelType, { new (length: number): TypedArray; from(values: ArrayLike<number>): TypedArray }>> =
  {
    U8: Uint8Array,
    S8: Int8Array,
    U16: Uint16Array,
    S16: Int16Array,
    U32: Uint32Array,
    S32: Int32Array,
    F32: Float32Array,
    F64: Float64Array,
  };

/** Name ArcGIS gives a CF time axis. */
export const STD_TIME = "StdTime";
/** Name ArcGIS gives a vertical axis (height: depths are stored negative). */
export const STD_Z = "StdZ";

export interface Dimension {
  /** Name clients use: StdTime, StdZ, or the source name. */
  readonly name: string;
  /** Name in the source file. */
  readonly sourceName: string;
  readonly description: string;
  /** Unit of `values`; "ISO8601" for StdTime, whose values are epoch milliseconds UTC. */
  readonly unit: string;
  readonly values: readonly number[];
  /** Present when values are evenly spaced (for StdTime, also whole calendar months/years). */
  readonly interval?: number;
  readonly intervalUnit?: string;
  /** For StdTime: the source calendar (standard, noleap, 360_day ...). */
  readonly calendar?: string;
}

/** GDAL-order affine geotransform: x = t0 + col*t1 + row*t2, y = t3 + col*t4 + row*t5. */
export type GeoTransform = readonly [number, number, number, number, number, number];

export interface Crs {
  readonly epsg?: number;
  readonly wkt?: string;
}

export interface Grid {
  readonly width: number;
  readonly height: number;
  /** Transform of the north-up presentation (t5 < 0 for a north-up geographic grid). */
  readonly transform: GeoTransform;
  readonly crs: Crs;
  /**
   * Cell-centre coordinates of the columns and of the rows (north-up order) as the source
   * states them. They equal the transform's for regular grids; for near-regular axes such
   * as Gaussian latitudes the transform is the best fit and these keep the exact values.
   */
  readonly x: Float64Array;
  readonly y: Float64Array;
}

/** A half-open index range [start, stop). */
export type IndexRange = readonly [number, number];

export interface Window {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Selection {
  /** One range per non-spatial dimension, in the variable's dimension order; absent = whole. */
  readonly dims?: readonly IndexRange[];
  /** Spatial window in north-up pixel coordinates; absent = whole grid. */
  readonly window?: Window;
  readonly signal?: AbortSignal;
  /**
   * An array the reader may fill and return as the slab's data instead of allocating one
   * (the variable's value type, the selection's length): streamed walks hand back the arrays
   * they are done with. Readers may ignore it; use the returned slab's data.
   */
  readonly into?: TypedArray;
}

/** Values in C order over [...dims, rows, cols], rows north-up. */
export interface Slab {
  readonly data: TypedArray;
  readonly shape: readonly number[];
}

export interface Variable {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly pixelType: PixelType;
  /**
   * The value that marks nodata in decoded arrays. For float pixel types NaN is always
   * nodata too; a float variable with no fill value in its source has nodata NaN.
   */
  readonly nodata?: number;
  /** Non-spatial dimensions, outermost first. */
  readonly dimensions: readonly Dimension[];
  /** Storage chunk shape over [...dims, rows, cols] (whole extent when unchunked). */
  readonly chunkShape: readonly number[];
  /** Other source attributes worth keeping (long_name, standard_name, history ...). */
  readonly attributes: Readonly<Record<string, unknown>>;
  read(selection?: Selection): Promise<Slab>;
}

export interface Cube {
  readonly grid: Grid;
  readonly variables: readonly Variable[];
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Variables of the source that are not part of the cube, and why (other grid, 1-D ...). */
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
  /** Release file handles. */
  close(): Promise<void>;
}

/** A variable as described, without its storage chunks or its reading: for views that read it otherwise. */
export function describedAs(v: Variable): Omit<Variable, "chunkShape" | "read"> {
  return {
    name: v.name,
    description: v.description,
    unit: v.unit,
    pixelType: v.pixelType,
    ...(v.nodata !== undefined ? { nodata: v.nodata } : {}),
    dimensions: v.dimensions,
    attributes: v.attributes,
  };
}

/** Shape of a variable over [...dims, rows, cols]. */
export function variableShape(v: Variable, grid: Grid): number[] {
  return [...v.dimensions.map((d) => d.values.length), grid.height, grid.width];
}

/** The cube's variable of that name; a plan naming a missing variable is a programming error. */
export function variableNamed(cube: Cube, name: string): Variable {
  const v = cube.variables.find((x) => x.name === name);
  if (!v) throw new RangeError(`no variable ${name} in the input`);
  return v;
}
