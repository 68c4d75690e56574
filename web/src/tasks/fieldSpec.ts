/**
 * Turn a task description's parameter table (the one the server validates with) into form
 * fields: which widget each parameter gets, and when it applies. Widgets follow the data
 * type, with a few parameter names the tasks share (variables, dimension, dimensionValues…)
 * getting pickers fed by the chosen input's dimensions.
 */
import type { TaskParameter } from "../api/types.js";

export type FieldKind =
  | "raster" // an input raster descriptor: a picker of the user's services and raster items
  | "output" // the output service: a name
  | "variables" // the input's variables, several
  | "dimension" // one of the input's dimension names
  | "sliceValues" // [{dimension, value}] chosen among the input's real values
  | "ranges" // [{dimension, minValue, maxValue}] chosen among the input's real values
  | "valueList" // values to predict at: dates or numbers the user types
  | "dimensionValue" // one value along a dimension (start/end style): a date or a number
  | "choice"
  | "boolean"
  | "integer"
  | "double"
  | "context" // environment settings: extent (drawn on a map), cell size, output coordinate system…
  | "text";

/** The field applies only when `parameter` has one of `values` (e.g. dimensionRanges with BY_RANGES). */
export interface Condition {
  parameter: string;
  values: readonly string[];
}

export interface FieldSpec {
  parameter: TaskParameter;
  kind: FieldKind;
  required: boolean;
  condition?: Condition;
}

function kindOf(p: TaskParameter): FieldKind {
  if (p.dataType === "GPRasterDataLayer") return "raster";
  if (p.name === "outputName") return "output";
  if (p.name === "context") return "context";
  if (p.choiceList?.length) return "choice";
  if (p.name === "variables") return "variables";
  if (p.name === "dimension") return "dimension";
  if (p.name === "dimensionRanges") return "ranges";
  // Subset's values name their dimension ({"dimension":…,"value":…}); Predict's are bare values.
  if (p.name === "dimensionValues") return p.description.includes('"dimension"') ? "sliceValues" : "valueList";
  if (/^(start|end)(OfFirstIteration)?$/.test(p.name)) return "dimensionValue";
  if (p.dataType === "GPBoolean") return "boolean";
  if (p.dataType === "GPLong") return "integer";
  if (p.dataType === "GPDouble") return "double";
  return "text";
}

/** Text matched literally inside a RegExp. */
export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");

/**
 * A parameter documented as belonging to keywords of another parameter ("BY_RANGES: …",
 * "HARMONIC: …; POLYNOMIAL: …", "EXTERNAL_RASTER only: …") applies only when one of them is chosen.
 */
function conditionOf(p: TaskParameter, all: readonly TaskParameter[]): Condition | undefined {
  for (const other of all) {
    if (other === p || !other.choiceList) continue;
    const values = other.choiceList.filter((c) => new RegExp(`^${escapeRegExp(c)}(?![\\w-])|\\b${escapeRegExp(c)}:`).test(p.description));
    if (values.length > 0) return { parameter: other.name, values };
  }
  return undefined;
}

export function fieldSpecs(parameters: readonly TaskParameter[]): FieldSpec[] {
  return parameters
    .filter((p) => p.direction !== "esriGPParameterDirectionOutput")
    .map((p) => {
      const condition = conditionOf(p, parameters);
      return {
        parameter: p,
        kind: kindOf(p),
        required: p.parameterType === "esriGPParameterTypeRequired",
        ...(condition ? { condition } : {}),
      };
    });
}

/** Whether a field applies given the current keyword choices. */
export function applies(spec: FieldSpec, choiceOf: (parameter: string) => string | undefined): boolean {
  if (!spec.condition) return true;
  const chosen = choiceOf(spec.condition.parameter);
  return chosen !== undefined && spec.condition.values.includes(chosen.toUpperCase());
}
