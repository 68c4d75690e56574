/** A dimension name, chosen among the input's dimensions (typed when they are not known). */
import { dimensionsOf } from "./types.js";
import type { WidgetProps } from "./types.js";

export function DimensionWidget(props: WidgetProps) {
  const value = props.value.type === "text" ? props.value.text : "";
  const set = (text: string) => props.onChange({ type: "text", text });
  const common = {
    id: props.id,
    name: props.spec.parameter.name,
    "aria-describedby": props.describedBy,
    "aria-invalid": props.invalid,
    "aria-required": props.spec.required,
  };
  const dimensions = dimensionsOf(props.input.variables);
  if (!dimensions.length) return <input type="text" {...common} value={value} onInput={(e) => set(e.currentTarget.value)} />;
  return (
    <select {...common} value={value} onChange={(e) => set(e.currentTarget.value)}>
      <option value="">Choose a dimension…</option>
      {dimensions.map((d) => (
        <option key={d.name} value={d.name}>
          {d.name} ({d.values.length} values)
        </option>
      ))}
    </select>
  );
}
