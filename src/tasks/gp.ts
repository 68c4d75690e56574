/**
 * Geoprocessing parameter tables: each task declares its parameters once, and that table
 * both validates requests and produces the task description JSON (ArcGIS GPServer task
 * resource). The small parsers here decode the ArcGIS encodings of SPEC §3 and throw
 * InvalidInputError naming the parameter and the reason.
 */
import { InvalidInputError } from "../cube/errors.js";

export type GpDataType =
  "GPString" | "GPBoolean" | "GPLong" | "GPDouble" | "GPDate" | "GPMultiValue:GPString" | "GPRasterDataLayer" | "GPValueTable";

export interface ParameterSpec {
  readonly name: string;
  readonly dataType: GpDataType;
  readonly displayName: string;
  readonly description: string;
  readonly direction?: "esriGPParameterDirectionInput" | "esriGPParameterDirectionOutput";
  readonly required?: boolean;
  readonly defaultValue?: string | number | boolean;
  readonly category?: string;
  /** Keywords (canonical upper case); matched case-insensitively. */
  readonly choiceList?: readonly string[];
  /** Other names accepted for this parameter (dimensionDef for dimensionDefinition). */
  readonly aliases?: readonly string[];
}

export interface TaskInfo {
  readonly name: string;
  readonly displayName: string;
  readonly description: string;
  readonly category: string;
  readonly parameters: readonly ParameterSpec[];
}

/** Parameters that are not task parameters but request plumbing. */
export const NON_TASK_PARAMS = new Set(["f", "token", "returnmessages", "returntype", "returnz", "returnm", "env:outsr", "env:processsr"]);

/** The name a task's output is published under (SPEC §2). */
export const OUTPUT_PARAM = "outputMultidimensionalRaster";

/** The output in a task description: GPString, as its result (`{url, itemId}`) is typed. */
const OUTPUT_PARAMETER = {
  name: OUTPUT_PARAM,
  dataType: "GPString",
  displayName: "Output Multidimensional Raster",
  description: "The hosted image service the job created or updated: its url and itemId.",
  direction: "esriGPParameterDirectionOutput",
  defaultValue: null,
  parameterType: "esriGPParameterTypeRequired",
  category: "",
};

/** The task resource JSON, generated from the table. */
export function describeTask(task: TaskInfo, helpUrl: string): Record<string, unknown> {
  return {
    name: task.name,
    displayName: task.displayName,
    description: task.description,
    category: task.category,
    helpUrl,
    executionType: "esriExecutionTypeAsynchronous",
    // The output is listed after the inputs, as ArcGIS's task descriptions do: clients read result names from it.
    parameters: [
      ...task.parameters.map((p) => ({
        name: p.name,
        dataType: p.dataType,
        displayName: p.displayName,
        description: p.description,
        direction: p.direction ?? "esriGPParameterDirectionInput",
        defaultValue: p.defaultValue ?? null,
        parameterType: p.required ? "esriGPParameterTypeRequired" : "esriGPParameterTypeOptional",
        category: p.category ?? "",
        ...(p.choiceList ? { choiceList: [...p.choiceList] } : {}),
      })),
      OUTPUT_PARAMETER,
    ],
  };
}

/**
 * The request's task parameters by canonical name (case-insensitive match, aliases folded).
 * Unknown parameters are returned apart so the caller can warn about them.
 */
export function collectParameters(task: TaskInfo, raw: Record<string, string>): { values: Map<string, string>; unknown: string[] } {
  const byKey = new Map<string, string>();
  for (const p of task.parameters) {
    byKey.set(p.name.toLowerCase(), p.name);
    for (const a of p.aliases ?? []) byKey.set(a.toLowerCase(), p.name);
  }
  const values = new Map<string, string>();
  const unknown: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    const name = byKey.get(k.toLowerCase());
    if (name) {
      if (values.has(name) && values.get(name) !== v)
        throw new InvalidInputError(`${name} was given twice with different values`, { parameter: name });
      if (v !== "") values.set(name, v);
    } else if (!NON_TASK_PARAMS.has(k.toLowerCase())) unknown.push(k);
  }
  return { values, unknown };
}

/** True when at least one task parameter is present (the short form of submitJob). */
export function hasTaskParameter(task: TaskInfo, raw: Record<string, string>): boolean {
  const names = new Set(task.parameters.flatMap((p) => [p.name, ...(p.aliases ?? [])].map((n) => n.toLowerCase())));
  return Object.keys(raw).some((k) => names.has(k.toLowerCase()));
}

export function required(values: Map<string, string>, name: string): string {
  const v = values.get(name);
  if (v === undefined || v.trim() === "") throw new InvalidInputError(`${name} is required`, { parameter: name });
  return v;
}

/** A JSON parameter; the reason names the parameter and what JSON.parse found wrong. */
export function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InvalidInputError(`${name} is not valid JSON: ${(e as Error).message}`, { parameter: name });
  }
}

/** A keyword from the choice list, matched case-insensitively, answered in canonical case. */
export function parseKeyword(text: string | undefined, spec: ParameterSpec): string {
  const choices = spec.choiceList ?? [];
  if (text === undefined || text.trim() === "") return String(spec.defaultValue ?? choices[0]);
  const found = choices.find((c) => c.toLowerCase() === text.trim().toLowerCase());
  if (!found) throw new InvalidInputError(`${spec.name} must be one of ${choices.join(", ")}; got "${text}"`, { parameter: spec.name });
  return found;
}

/** true/false (any case). */
export function parseBoolean(text: string | undefined, name: string, fallback: boolean): boolean {
  if (text === undefined || text.trim() === "") return fallback;
  const t = text.trim().toLowerCase();
  if (t === "true") return true;
  if (t === "false") return false;
  throw new InvalidInputError(`${name} must be true or false; got "${text}"`, { parameter: name });
}

/**
 * ignoreNodata: true/false, or the GP strings DATA (leave nodata out: true) and NODATA
 * (false). Advertised with that spelling, from which the ArcGIS API for Python derives its
 * keyword `ignore_nodata` (SPEC); names match in any case, so `ignoreNoData` is accepted too.
 */
export function parseIgnoreNoData(text: string | undefined): boolean {
  const t = text?.trim().toUpperCase();
  if (t === "DATA") return true;
  if (t === "NODATA") return false;
  if (t === undefined || t === "" || t === "TRUE" || t === "FALSE") return t !== "FALSE";
  throw new InvalidInputError(`ignoreNodata must be true, false, DATA or NODATA; got "${text}"`, { parameter: "ignoreNodata" });
}

/** A list given as JSON (["a","b"]) or as a comma-separated string (a,b). */
export function parseStringList(text: string | undefined, name: string): string[] | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const t = text.trim();
  if (t.startsWith("{"))
    throw new InvalidInputError(`${name} must be a list of names (a JSON list or comma-separated), not an object`, { parameter: name });
  let names: string[];
  if (t.startsWith("[")) {
    const v = parseJson(t, name);
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string" || typeof x === "number")) {
      throw new InvalidInputError(`${name} must be a list of names`, { parameter: name });
    }
    names = v.map((x) => String(x).trim()).filter(Boolean);
  } else {
    names = t
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  }
  if (names.length === 0)
    throw new InvalidInputError(`${name} names nothing: give at least one name, or leave it out for all`, { parameter: name });
  return names;
}

/** A finite number. */
export function parseNumber(text: string | number | undefined, name: string): number | undefined {
  if (text === undefined || text === "") return undefined;
  const n = typeof text === "number" ? text : Number(String(text).trim());
  if (!Number.isFinite(n)) throw new InvalidInputError(`${name} must be a number; got "${text}"`, { parameter: name });
  return n;
}

/** A JSON object parameter, refusing arrays and scalars. */
export function parseObject(text: string, name: string): Record<string, unknown> {
  const v = parseJson(text, name);
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new InvalidInputError(`${name} must be a JSON object`, { parameter: name });
  return v as Record<string, unknown>;
}
