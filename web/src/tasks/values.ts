/**
 * The state of a task form (one value per field), its client-side checks, and how it becomes
 * the request's parameters (JSON descriptors, lists, keywords).
 */
import type { Item } from "../api/types.js";
import { type ContextValue, EMPTY_CONTEXT, contextJson, contextProblem } from "./contextValue.js";
import { type FieldSpec, applies } from "./fieldSpec.js";

export type FieldValue =
  | { type: "text"; text: string }
  | { type: "flag"; on: boolean }
  | { type: "list"; items: string[] }
  /** Chosen slice values (numbers as text) by dimension name. */
  | { type: "slices"; values: Record<string, string[]> }
  /** A [min, max] (numbers as text; "" = the dimension is not limited) by dimension name. */
  | { type: "ranges"; ranges: Record<string, { min: string; max: string }> }
  | { type: "context"; context: ContextValue };

export type FormValues = Record<string, FieldValue>;

/** Service names: letters, digits and underscores, at most 120 (SPEC §5). */
export const SERVICE_NAME = /^[A-Za-z0-9_]{1,120}$/;

export function initialValue(spec: FieldSpec): FieldValue {
  const d = spec.parameter.defaultValue;
  switch (spec.kind) {
    case "boolean":
      return { type: "flag", on: d === true || String(d).toLowerCase() === "true" };
    case "variables":
    case "valueList":
      return { type: "list", items: [] };
    case "sliceValues":
      return { type: "slices", values: {} };
    case "ranges":
      return { type: "ranges", ranges: {} };
    case "context":
      return { type: "context", context: EMPTY_CONTEXT };
    default:
      return { type: "text", text: d === null || d === undefined ? "" : String(d) };
  }
}

export const textOf = (v: FieldValue | undefined): string => (v?.type === "text" ? v.text.trim() : "");

/** The keyword chosen for a parameter, for field conditions. */
export const choiceOf = (values: FormValues) => (parameter: string) => textOf(values[parameter]) || undefined;

/** A date typed as YYYY-MM-DD (or a longer ISO form) that Date understands. */
const isDate = (s: string) => /^[+-]?\d{4,6}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s));
const isNumber = (s: string) => s !== "" && Number.isFinite(Number(s));

/** What the user must fix before the form can be sent, by parameter name. */
export function validate(specs: readonly FieldSpec[], values: FormValues, timeAxis: boolean): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const spec of specs) {
    if (!applies(spec, choiceOf(values))) continue;
    const name = spec.parameter.name;
    const v = values[name];
    const text = textOf(v);
    const empty =
      v === undefined ||
      (v.type === "text" && text === "") ||
      (v.type === "list" && v.items.every((i) => i.trim() === "")) ||
      (v.type === "slices" && Object.values(v.values).every((l) => l.length === 0)) ||
      (v.type === "ranges" && Object.values(v.ranges).every((r) => r.min === "" && r.max === "")) ||
      (v.type === "context" && Object.values(v.context).every((x) => x.trim() === ""));
    if (empty) {
      if (spec.required) errors[name] = `${spec.parameter.displayName} is required.`;
      continue;
    }
    if (spec.kind === "output" && !SERVICE_NAME.test(text)) {
      errors[name] = "Use letters, digits and underscores only (at most 120).";
    } else if (spec.kind === "integer" && !/^[+-]?\d+$/.test(text)) {
      errors[name] = "Enter a whole number.";
    } else if (spec.kind === "double" && !isNumber(text)) {
      errors[name] = "Enter a number.";
    } else if (spec.kind === "context" && v.type === "context") {
      const problem = contextProblem(v.context);
      if (problem) errors[name] = problem;
    } else if (spec.kind === "dimensionValue" && !(timeAxis ? isDate(text) : isNumber(text))) {
      errors[name] = timeAxis ? "Enter a date." : "Enter a number.";
    } else if (spec.kind === "valueList" && v.type === "list") {
      const bad = v.items.map((i) => i.trim()).filter((i) => i !== "" && !(timeAxis ? isDate(i) : isNumber(i)));
      if (bad.length) errors[name] = `${bad.join(", ")}: ${timeAxis ? "not a date" : "not a number"}.`;
    } else if (spec.kind === "ranges" && v.type === "ranges") {
      const reversed = Object.entries(v.ranges).find(([, r]) => r.min !== "" && r.max !== "" && Number(r.min) > Number(r.max));
      if (reversed) errors[name] = `The range of ${reversed[0]} ends before it starts.`;
    }
  }
  return errors;
}

/** An input raster descriptor: a hosted service by its URL, an uploaded raster by its item id. */
export function rasterDescriptor(item: Item | undefined, itemId: string): string {
  return JSON.stringify(item?.url ? { url: item.url } : { itemId });
}

/** The request's parameters; fields that do not apply or are left empty are not sent. */
export function toParams(
  specs: readonly FieldSpec[],
  values: FormValues,
  items: readonly Item[],
  timeAxis: boolean,
): Record<string, string> {
  const params: Record<string, string> = {};
  for (const spec of specs) {
    if (!applies(spec, choiceOf(values))) continue;
    const name = spec.parameter.name;
    const v = values[name];
    const text = textOf(v);
    if (!v) continue;
    switch (spec.kind) {
      case "raster":
        if (text)
          params[name] = rasterDescriptor(
            items.find((i) => i.id === text),
            text,
          );
        break;
      case "output":
        if (text) params[name] = JSON.stringify({ serviceProperties: { name: text } });
        break;
      case "boolean":
        if (v.type === "flag") params[name] = String(v.on);
        break;
      case "variables":
        if (v.type === "list" && v.items.length) params[name] = JSON.stringify(v.items);
        break;
      case "valueList": {
        const list = v.type === "list" ? v.items.map((i) => i.trim()).filter(Boolean) : [];
        if (list.length) params[name] = JSON.stringify(timeAxis ? list : list.map(Number));
        break;
      }
      case "sliceValues": {
        const list =
          v.type === "slices" ? Object.entries(v.values).flatMap(([d, vs]) => vs.map((x) => ({ dimension: d, value: Number(x) }))) : [];
        if (list.length) params[name] = JSON.stringify(list);
        break;
      }
      case "ranges": {
        const list =
          v.type === "ranges"
            ? Object.entries(v.ranges)
                .filter(([, r]) => r.min !== "" && r.max !== "")
                .map(([d, r]) => ({ dimension: d, minValue: Number(r.min), maxValue: Number(r.max) }))
            : [];
        if (list.length) params[name] = JSON.stringify(list);
        break;
      }
      case "context": {
        const json = v.type === "context" ? contextJson(v.context) : undefined;
        if (json) params[name] = JSON.stringify(json);
        break;
      }
      default:
        if (text) params[name] = text;
    }
  }
  return params;
}
