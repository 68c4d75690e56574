/** What a field widget gets: its spec and value, and what the form knows about the chosen input. */
import type { Item, Variable } from "../../api/types.js";
import type { FieldSpec } from "../fieldSpec.js";
import type { FieldValue } from "../values.js";

export interface InputContext {
  /** The user's services and raster items, for raster pickers. */
  items: readonly Item[];
  /** The chosen input's variables with their dimensions, when known (hosted services). */
  variables?: readonly Variable[];
  /** Whether values typed along "the dimension" are dates (StdTime) or numbers. */
  timeAxis: boolean;
}

export interface WidgetProps {
  spec: FieldSpec;
  value: FieldValue;
  onChange(value: FieldValue): void;
  /** The control's id; `${id}-help` and `${id}-error` describe it. */
  id: string;
  describedBy: string;
  invalid: boolean;
  input: InputContext;
}

/** The dimensions of the chosen variables (all variables when none are chosen), each with its values. */
export function dimensionsOf(variables: readonly Variable[] | undefined, chosen: readonly string[] = []) {
  const byName = new Map<string, number[]>();
  for (const v of variables ?? []) {
    if (chosen.length && !chosen.includes(v.name)) continue;
    for (const d of v.dimensions) if (!byName.has(d.name)) byName.set(d.name, d.values);
  }
  return [...byName].map(([name, values]) => ({ name, values }));
}
