/**
 * A field's help in the form's terms. The task descriptions document the REST API (JSON
 * descriptors, "BY_RANGES: …" prefixes that the form's conditions already apply); where a
 * widget builds that JSON, the help says what to do with the widget instead, and the REST
 * text stays one click away.
 */
import { type FieldSpec, escapeRegExp } from "./fieldSpec.js";
import { keywordLabel } from "./keywordLabels.js";

const BY_KIND: Partial<Record<FieldSpec["kind"], string>> = {
  raster: "One of your image services or uploaded rasters.",
  output: "A name for the new image service: letters, digits and underscores.",
  variables: "The variables to use (listed once an input is chosen); none means all of them.",
  sliceValues: "Pick the slices to keep along each dimension.",
  ranges: "Keep only the slices within a range along a dimension (both ends included).",
  valueList: "The values to predict at, one per box: dates when the trend was fitted along time, numbers otherwise.",
  context:
    "Optional: where the output is made (draw a box), its cell size, its coordinate system and how values are resampled. Empty means as the input.",
};

export function helpFor(spec: FieldSpec): string {
  const own = BY_KIND[spec.kind];
  if (own) return own;
  // "BY_ITERATION: start of the first window." → "Start of the first window.": the field
  // only shows once that keyword is chosen.
  let text = spec.parameter.description.replace(/^[A-Z][A-Z_-]+(?: only)?: /, "");
  // A keyword field's help names its choices as the options do ("Ranges of values", not BY_RANGES).
  const choices = [...(spec.parameter.choiceList ?? [])].sort((a, b) => b.length - a.length);
  for (const c of choices)
    text = text.replace(new RegExp(`(?<![\\w-])${escapeRegExp(c)}(?![\\w-])`, "g"), keywordLabel(spec.parameter.name, c));
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Whether the REST description says more than the help (worth showing on request). */
export const hasRestDetail = (spec: FieldSpec) => helpFor(spec).toLowerCase() !== spec.parameter.description.toLowerCase();
