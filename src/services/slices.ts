/**
 * Which slice of a multidimensional service a request means (SPEC §11): `sliceId`, a
 * `mosaicRule.multidimensionalDefinition`, or `time`, for exportImage, identify, getSamples,
 * statistics and download. The slices of a service are numbered variable by variable, each
 * variable's dimension values last dimension fastest (the `slices` resource lists them). A
 * trend raster's bands are no dimension of the service (bands.ts): a slice holds them all.
 */
import { sliceDimensions } from "./bands.js";
import { parseJsonParam } from "./spatial.js";
import { combinationAt, combinationCount } from "../cube/combinations.js";
import { InvalidInputError } from "../cube/errors.js";
import { parseIsoTime } from "../cube/time.js";
import { type Cube, STD_TIME, type Variable } from "../cube/types.js";

/** One slice: a variable and one index along each of its slice dimensions (bands.ts: all but a band axis). */
export interface Slice {
  readonly variable: Variable;
  readonly indices: readonly number[];
}

/** What a request says about the slice (raw parameter text). */
export interface SliceParams {
  readonly sliceId?: string;
  readonly mosaicRule?: string;
  readonly time?: string;
  /** A variable named outside the mosaic rule (e.g. identify's or a renderingRule's variableName). */
  readonly variableName?: string;
}

/** A dimension's constraint: values (each an instant or an inclusive [min, max] range). */
type Wanted = readonly (number | readonly [number, number])[];

/**
 * Every slice of the cube in sliceId order.
 * @example
 * listSlices(cube).length; // 12 × variables for a monthly year
 */
export function listSlices(cube: Cube): Slice[] {
  const out: Slice[] = [];
  for (const variable of cube.variables) {
    const sizes = sliceDimensions(variable).map((d) => d.values.length);
    for (let k = 0; k < combinationCount(sizes); k++) out.push({ variable, indices: combinationAt(k, sizes) });
  }
  return out;
}

/**
 * The multidimensionalDefinition that names a slice (as ArcGIS writes it).
 * @example
 * sliceDefinition(slice); // [{ variableName: "sst", dimensionName: "StdTime", values: [631152000000], isSlice: true }]
 */
export function sliceDefinition(slice: Slice): Record<string, unknown>[] {
  const dims = sliceDimensions(slice.variable);
  if (dims.length === 0) return [{ variableName: slice.variable.name, dimensionName: "", values: [], isSlice: true }];
  return dims.map((d, i) => ({
    variableName: slice.variable.name,
    dimensionName: d.name,
    values: [d.values[slice.indices[i]]],
    isSlice: true,
  }));
}

/**
 * The slice a request means, or undefined when it names values the service has no slice at
 * (drawn blank, identified as NoData). Order of precedence: sliceId; then the mosaic rule's
 * definition per dimension; then `time` for StdTime; any dimension left unconstrained takes
 * its first value. An instant matches a slice at that value; for StdTime it means the slice
 * in effect then (the latest at or before it). A range matches the latest slice inside it.
 * @example
 * selectSlice(cube, { time: "631152000000" });
 * selectSlice(cube, { mosaicRule: '{"multidimensionalDefinition":[{"variableName":"sst","dimensionName":"StdTime","values":[[0, 1e12]]}]}' });
 */
export function selectSlice(cube: Cube, params: SliceParams): Slice | undefined {
  if (cube.variables.length === 0) throw new InvalidInputError("the service has no variables", { parameter: "mosaicRule" });
  if (params.sliceId !== undefined && params.sliceId.trim() !== "") {
    const id = Number(params.sliceId);
    const all = listSlices(cube);
    if (!Number.isInteger(id) || id < 0 || id >= all.length) {
      throw new InvalidInputError(`sliceId must be a whole number from 0 to ${all.length - 1}; got "${params.sliceId}"`, {
        parameter: "sliceId",
      });
    }
    return all[id];
  }
  const definition = parseDefinition(params.mosaicRule);
  const variable = namedVariable(cube, definition, params.variableName);
  const wanted = new Map<string, Wanted>();
  for (const d of definition) {
    if (d.variableName && d.variableName.toLowerCase() !== variable.name.toLowerCase()) continue;
    if (d.dimensionName && d.values.length > 0) wanted.set(dimensionKey(variable, d.dimensionName), d.values);
  }
  if (
    !wanted.has(STD_TIME) &&
    params.time !== undefined &&
    params.time.trim() !== "" &&
    sliceDimensions(variable).some((d) => d.name === STD_TIME)
  ) {
    wanted.set(STD_TIME, [parseTimeParam(params.time)]);
  }
  const indices: number[] = [];
  for (const d of sliceDimensions(variable)) {
    const w = wanted.get(d.name);
    const index = w === undefined ? 0 : matchIndex(d.values, w, d.name === STD_TIME);
    if (index === undefined) return undefined;
    indices.push(index);
  }
  return { variable, indices };
}

/**
 * Every index each dimension of `variable` keeps under a request's `mosaicRule` and `time`
 * (for downloads): values and ranges keep every slice they match; an instant of `time` keeps
 * the slice in effect then; a dimension left unconstrained is kept whole (absent).
 * @example
 * selectIndices(cube.variables[0], { time: "631152000000,662688000000" }); // { StdTime: [0, 1, ..., 11] }
 */
export function selectIndices(variable: Variable, params: Pick<SliceParams, "mosaicRule" | "time">): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const d of parseDefinition(params.mosaicRule)) {
    if (d.variableName && d.variableName.toLowerCase() !== variable.name.toLowerCase()) continue;
    if (!d.dimensionName || d.values.length === 0) continue;
    const name = dimensionKey(variable, d.dimensionName);
    const values = variable.dimensions.find((x) => x.name === name)!.values;
    out[name] = matchAll(values, d.values, name === STD_TIME);
  }
  const time = sliceDimensions(variable).find((d) => d.name === STD_TIME);
  if (time && !(STD_TIME in out) && params.time !== undefined && params.time.trim() !== "") {
    out[STD_TIME] = matchAll(time.values, [parseTimeParam(params.time)], true);
  }
  return out;
}

function matchAll(values: readonly number[], wanted: Wanted, inEffect: boolean): number[] {
  const keep = new Set<number>();
  for (const w of wanted) {
    if (typeof w === "number") {
      const i = matchIndex(values, [w], inEffect);
      if (i !== undefined) keep.add(i);
    } else {
      values.forEach((v, i) => {
        if (v >= w[0] - 1e-9 * Math.abs(w[0]) && v <= w[1] + 1e-9 * Math.abs(w[1])) keep.add(i);
      });
    }
  }
  return [...keep].sort((a, b) => a - b);
}

/**
 * The variable a request means, whether or not its dimension values match a slice: the one
 * its mosaic rule names, else `variableName`, else the first.
 * @example
 * requestedVariable(cube, { mosaicRule: '{"multidimensionalDefinition":[{"variableName":"VWND"}]}' }).name; // "VWND"
 */
export function requestedVariable(cube: Cube, params: Pick<SliceParams, "mosaicRule" | "variableName">): Variable {
  return namedVariable(cube, parseDefinition(params.mosaicRule), params.variableName);
}

function namedVariable(cube: Cube, definition: readonly DefinitionEntry[], variableName: string | undefined): Variable {
  const named = definition.find((d) => d.variableName)?.variableName ?? variableName;
  return named === undefined || named === "" ? cube.variables[0] : variableByName(cube, named);
}

function variableByName(cube: Cube, name: string): Variable {
  const v = cube.variables.find((x) => x.name === name) ?? cube.variables.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!v) {
    throw new InvalidInputError(`the service has no variable "${name}" (it has ${cube.variables.map((x) => x.name).join(", ")})`, {
      parameter: "mosaicRule",
    });
  }
  return v;
}

function dimensionKey(variable: Variable, name: string): string {
  const dims = sliceDimensions(variable);
  const d = dims.find((x) => x.name === name) ?? dims.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!d) {
    const has = dims.map((x) => x.name).join(", ") || "none";
    const bands = dims.length < variable.dimensions.length ? "; its bands are chosen with bandIds" : "";
    throw new InvalidInputError(`variable ${variable.name} has no dimension "${name}" (its dimensions: ${has}${bands})`, {
      parameter: "mosaicRule",
    });
  }
  return d.name;
}

/** The index a constraint picks along values (increasing or not), or undefined. */
function matchIndex(values: readonly number[], wanted: Wanted, inEffect: boolean): number | undefined {
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  for (const w of wanted) {
    if (typeof w === "number") {
      const exact = values.findIndex((v) => close(v, w));
      if (exact >= 0) return exact;
      if (inEffect) {
        const latest = latestIndex(values, (v) => v <= w);
        if (latest !== undefined) return latest;
      }
    } else {
      const inside = latestIndex(values, (v) => v >= w[0] - 1e-9 * Math.abs(w[0]) && v <= w[1] + 1e-9 * Math.abs(w[1]));
      if (inside !== undefined) return inside;
    }
  }
  return undefined;
}

function latestIndex(values: readonly number[], ok: (v: number) => boolean): number | undefined {
  let best: number | undefined;
  values.forEach((v, i) => {
    if (ok(v) && (best === undefined || v > values[best])) best = i;
  });
  return best;
}

/**
 * `time`: an instant or "start,end" in epoch ms (or ISO 8601); "null" leaves an end open.
 * @example
 * parseTimeParam("631152000000,662688000000"); // [631152000000, 662688000000]
 */
export function parseTimeParam(text: string): number | readonly [number, number] {
  const parts = text.split(",").map((p) => p.trim());
  const one = (p: string, open: number): number => {
    if (p === "" || p.toLowerCase() === "null") return open;
    const t = parseIsoTime(p);
    if (t === undefined)
      throw new InvalidInputError(`time must be epoch milliseconds or ISO 8601, as "t" or "t1,t2"; got "${text}"`, { parameter: "time" });
    return t;
  };
  if (parts.length === 1) {
    if (parts[0] === "" || parts[0].toLowerCase() === "null") throw new InvalidInputError("time is empty", { parameter: "time" });
    return one(parts[0], NaN);
  }
  if (parts.length !== 2) throw new InvalidInputError(`time must be "t" or "t1,t2"; got "${text}"`, { parameter: "time" });
  const range: [number, number] = [one(parts[0], -Infinity), one(parts[1], Infinity)];
  if (range[0] > range[1]) throw new InvalidInputError(`time starts after it ends: "${text}"`, { parameter: "time" });
  return range;
}

interface DefinitionEntry {
  readonly variableName?: string;
  readonly dimensionName?: string;
  readonly values: Wanted;
}

function parseDefinition(text: string | undefined): DefinitionEntry[] {
  if (text === undefined || text.trim() === "") return [];
  const rule = parseJsonParam(text, "mosaicRule");
  if (typeof rule !== "object" || rule === null || Array.isArray(rule))
    throw new InvalidInputError("mosaicRule must be a JSON object", { parameter: "mosaicRule" });
  const defs = (rule as Record<string, unknown>).multidimensionalDefinition;
  if (defs === undefined || defs === null) return [];
  if (!Array.isArray(defs))
    throw new InvalidInputError("mosaicRule.multidimensionalDefinition must be an array", { parameter: "mosaicRule" });
  return defs.map((d, i): DefinitionEntry => {
    const where = `mosaicRule.multidimensionalDefinition[${i}]`;
    if (typeof d !== "object" || d === null) throw new InvalidInputError(`${where} must be an object`, { parameter: "mosaicRule" });
    const o = d as Record<string, unknown>;
    const text = (k: string) => (typeof o[k] === "string" ? (o[k] as string) : undefined);
    const values = o.values ?? [];
    if (!Array.isArray(values)) throw new InvalidInputError(`${where}.values must be an array`, { parameter: "mosaicRule" });
    return {
      variableName: text("variableName"),
      dimensionName: text("dimensionName"),
      values: values.map((v, j) => definitionValue(v, `${where}.values[${j}]`)),
    };
  });
}

function definitionValue(v: unknown, where: string): number | readonly [number, number] {
  const number = (x: unknown): number => {
    const n = typeof x === "number" ? x : typeof x === "string" ? (parseIsoTime(x) ?? NaN) : NaN;
    if (!Number.isFinite(n))
      throw new InvalidInputError(`${where} must be a number (epoch ms for StdTime) or [min, max]; got ${JSON.stringify(v)}`, {
        parameter: "mosaicRule",
      });
    return n;
  };
  if (Array.isArray(v)) {
    if (v.length !== 2)
      throw new InvalidInputError(`${where} must be a value or [min, max]; got ${JSON.stringify(v)}`, { parameter: "mosaicRule" });
    const [a, b] = [number(v[0]), number(v[1])];
    if (a > b) throw new InvalidInputError(`${where} starts after it ends`, { parameter: "mosaicRule" });
    return [a, b];
  }
  return number(v);
}
