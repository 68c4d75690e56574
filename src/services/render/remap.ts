/**
 * The ArcGIS Remap raster function: pixel values in [min, max) of an input range become that
 * range's output value; values in a NoData range become NoData (whatever range they are also
 * in); values in no range keep their value while AllowUnmatched is true (the default), else
 * become ReplacementValue, or NoData when there is none. Where input ranges overlap the one
 * listed last wins (as the Maps SDK remaps); a range whose min equals its max matches that one
 * value, and IsLastInputRangeInclusive makes the last range include its max.
 */
import type { PixelValues } from "./stretch.js";

export interface RemapSpec {
  /** [min, max) pairs, each remapped to the output value at the same index. */
  readonly inputRanges: readonly (readonly [number, number])[];
  readonly outputValues: readonly number[];
  /** [min, max) pairs whose values become NoData. */
  readonly noDataRanges: readonly (readonly [number, number])[];
  readonly allowUnmatched: boolean;
  readonly replacementValue?: number;
  readonly lastRangeInclusive: boolean;
}

/**
 * A Remap's arguments, read through `arg` (a case-insensitive lookup by lower-case key).
 * @throws RangeError naming the argument and what is wrong with it.
 * @example
 * parseRemap((k) => ({ inputranges: [0, 10, 10, 20], outputvalues: [1, 2] })[k]);
 */
export function parseRemap(arg: (key: string) => unknown): RemapSpec {
  const inputRanges = ranges(arg("inputranges"), "InputRanges");
  const outputValues = numbers(arg("outputvalues"), "OutputValues");
  const noDataRanges = ranges(arg("nodataranges"), "NoDataRanges");
  if (outputValues.length !== inputRanges.length) {
    throw new RangeError(
      `OutputValues has ${outputValues.length} value(s) for ${inputRanges.length} InputRanges pair(s); give one output value per [min, max) pair`,
    );
  }
  if (inputRanges.length === 0 && noDataRanges.length === 0)
    throw new RangeError("a Remap needs InputRanges with OutputValues, or NoDataRanges");
  const allowUnmatched = boolean(arg("allowunmatched"), "AllowUnmatched") ?? true;
  const replacement = arg("replacementvalue");
  if (replacement !== undefined && replacement !== null && !(typeof replacement === "number" && Number.isFinite(replacement))) {
    throw new RangeError(`ReplacementValue must be a finite number, not ${JSON.stringify(replacement)}`);
  }
  const useTable = arg("usetable");
  if (useTable === true)
    throw new RangeError("UseTable (remapping through an attribute table) is not supported; give InputRanges and OutputValues");
  return {
    inputRanges,
    outputValues,
    noDataRanges,
    allowUnmatched,
    ...(typeof replacement === "number" ? { replacementValue: replacement } : {}),
    lastRangeInclusive: boolean(arg("islastinputrangeinclusive"), "IsLastInputRangeInclusive") ?? false,
  };
}

/**
 * Remap values; NaN marks NoData (the input's nodata and NaN stay NoData).
 * @example
 * applyRemap([5, 15, 25], undefined, spec); // [1, 2, 25] for ranges [0,10) -> 1, [10,20) -> 2, unmatched allowed
 */
export function applyRemap(values: PixelValues, nodata: number | undefined, spec: RemapSpec): Float64Array {
  const { inputRanges, outputValues, noDataRanges, allowUnmatched, replacementValue, lastRangeInclusive } = spec;
  const last = inputRanges.length - 1;
  const out = new Float64Array(values.length);
  const unmatched = (v: number): number => (allowUnmatched ? v : (replacementValue ?? NaN));
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v || v === nodata) {
      out[i] = NaN;
      continue;
    }
    let r = last;
    for (; r >= 0; r--) {
      const [lo, hi] = inputRanges[r];
      if (v === lo || (v > lo && (v < hi || (r === last && lastRangeInclusive && v === hi)))) break;
    }
    let o = r >= 0 ? outputValues[r] : unmatched(v);
    for (const [lo, hi] of noDataRanges) {
      if (v === lo || (v > lo && v < hi)) {
        o = NaN;
        break;
      }
    }
    out[i] = o;
  }
  return out;
}

function numbers(v: unknown, name: string): number[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
    throw new RangeError(`${name} must be a list of finite numbers, not ${JSON.stringify(v)}`);
  }
  return v as number[];
}

function ranges(v: unknown, name: string): [number, number][] {
  const flat = numbers(v, name);
  if (flat.length % 2 !== 0) throw new RangeError(`${name} must list [min, max) pairs flat (an even count of numbers); got ${flat.length}`);
  const out: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) {
    if (flat[i] > flat[i + 1]) throw new RangeError(`${name}: pair ${i / 2} has min ${flat[i]} above max ${flat[i + 1]}`);
    out.push([flat[i], flat[i + 1]]);
  }
  return out;
}

function boolean(v: unknown, name: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw new RangeError(`${name} must be true or false, not ${JSON.stringify(v)}`);
  return v;
}
