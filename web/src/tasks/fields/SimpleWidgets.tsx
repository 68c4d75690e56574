/** One-control widgets: keywords (labelled, keyword beside), flags, numbers, names and plain text. */
import { keywordOption } from "../keywordLabels.js";
import type { WidgetProps } from "./types.js";

const text = (props: WidgetProps) => (props.value.type === "text" ? props.value.text : "");
const setText = (props: WidgetProps, t: string) => props.onChange({ type: "text", text: t });

/** Attributes every control shares: id, description and state for assistive technology. */
const aria = (props: WidgetProps) => ({
  id: props.id,
  name: props.spec.parameter.name,
  "aria-describedby": props.describedBy,
  "aria-invalid": props.invalid,
  "aria-required": props.spec.required,
});

export function ChoiceWidget(props: WidgetProps) {
  const p = props.spec.parameter;
  const hasDefault = p.defaultValue !== null && p.defaultValue !== undefined;
  return (
    <select {...aria(props)} value={text(props)} onChange={(e) => setText(props, e.currentTarget.value)}>
      {!hasDefault && <option value="">{props.spec.required ? "Choose…" : "(not set)"}</option>}
      {(p.choiceList ?? []).map((c) => (
        <option key={c} value={c}>
          {keywordOption(p.name, c)}
        </option>
      ))}
    </select>
  );
}

export function BooleanWidget(props: WidgetProps) {
  const on = props.value.type === "flag" && props.value.on;
  return (
    <input type="checkbox" {...aria(props)} checked={on} onChange={(e) => props.onChange({ type: "flag", on: e.currentTarget.checked })} />
  );
}

/** Numbers are typed as text so a mistyped value reaches our check (a number input would just blank it). */
export function NumberWidget(props: WidgetProps) {
  const integer = props.spec.kind === "integer";
  return (
    <input
      type="text"
      inputMode={integer ? "numeric" : "decimal"}
      autoComplete="off"
      {...aria(props)}
      value={text(props)}
      onInput={(e) => setText(props, e.currentTarget.value)}
    />
  );
}

export function OutputWidget(props: WidgetProps) {
  return (
    <input
      type="text"
      autoComplete="off"
      spellcheck={false}
      placeholder="letters, digits and _"
      {...aria(props)}
      value={text(props)}
      onInput={(e) => setText(props, e.currentTarget.value)}
    />
  );
}

export function TextWidget(props: WidgetProps) {
  return (
    <input type="text" autoComplete="off" {...aria(props)} value={text(props)} onInput={(e) => setText(props, e.currentTarget.value)} />
  );
}

/** One value along a dimension: a date for StdTime, a number otherwise. */
export function DimensionValueWidget(props: WidgetProps) {
  const time = props.input.timeAxis;
  return (
    <input
      type={time ? "date" : "text"}
      inputMode={time ? undefined : "decimal"}
      {...aria(props)}
      value={text(props)}
      onInput={(e) => setText(props, e.currentTarget.value)}
    />
  );
}
