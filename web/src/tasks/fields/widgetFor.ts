/** Which widget draws each kind of field. */
import type { FunctionComponent } from "preact";
import type { FieldKind } from "../fieldSpec.js";
import { DimensionWidget } from "./DimensionWidget.js";
import { RangesWidget } from "./RangesWidget.js";
import { RasterWidget } from "./RasterWidget.js";
import { ContextWidget } from "./ContextWidget.js";
import { BooleanWidget, ChoiceWidget, DimensionValueWidget, NumberWidget, OutputWidget, TextWidget } from "./SimpleWidgets.js";
import { SliceValuesWidget } from "./SliceValuesWidget.js";
import type { WidgetProps } from "./types.js";
import { ValueListWidget } from "./ValueListWidget.js";
import { VariablesWidget } from "./VariablesWidget.js";

const WIDGETS: Readonly<Record<FieldKind, FunctionComponent<WidgetProps>>> = {
  raster: RasterWidget,
  output: OutputWidget,
  variables: VariablesWidget,
  dimension: DimensionWidget,
  sliceValues: SliceValuesWidget,
  ranges: RangesWidget,
  valueList: ValueListWidget,
  dimensionValue: DimensionValueWidget,
  choice: ChoiceWidget,
  boolean: BooleanWidget,
  integer: NumberWidget,
  double: NumberWidget,
  context: ContextWidget,
  text: TextWidget,
};

export const widgetFor = (kind: FieldKind) => WIDGETS[kind];
