/** Slices by value: for each dimension of the input, a list of its real values to pick from. */
import { formatValue } from "../../format.js";
import { dimensionsOf } from "./types.js";
import type { WidgetProps } from "./types.js";

export function SliceValuesWidget(props: WidgetProps) {
  const chosen = props.value.type === "slices" ? props.value.values : {};
  const dimensions = dimensionsOf(props.input.variables);
  if (!dimensions.length) return <p class="muted">Choose an input image service to list its dimension values.</p>;
  return (
    <div class="dimension-grid">
      {dimensions.map((d, i) => {
        const id = i === 0 ? props.id : `${props.id}-${d.name}`;
        return (
          <label key={d.name} for={id}>
            {d.name} <span class="muted">(select one or more; Ctrl/Shift for several)</span>
            <select
              id={id}
              multiple
              size={Math.min(6, d.values.length)}
              aria-invalid={props.invalid}
              data-dimension={d.name}
              onChange={(e) => {
                const selected = Array.from(e.currentTarget.selectedOptions, (o) => o.value);
                props.onChange({ type: "slices", values: { ...chosen, [d.name]: selected } });
              }}
            >
              {d.values.map((v) => (
                <option key={v} value={String(v)} selected={(chosen[d.name] ?? []).includes(String(v))}>
                  {formatValue(d.name, v)}
                </option>
              ))}
            </select>
          </label>
        );
      })}
    </div>
  );
}
