/** Variables: checkboxes of the chosen input's variables (none checked = all), or a list typed by hand. */
import type { WidgetProps } from "./types.js";

export function VariablesWidget(props: WidgetProps) {
  const chosen = props.value.type === "list" ? props.value.items : [];
  const variables = props.input.variables;
  if (!variables?.length) {
    return (
      <input
        type="text"
        id={props.id}
        aria-labelledby={`${props.id}-label`}
        aria-describedby={props.describedBy}
        aria-invalid={props.invalid}
        placeholder="comma-separated names; empty = all"
        value={chosen.join(",")}
        onInput={(e) =>
          props.onChange({
            type: "list",
            items: e.currentTarget.value
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean),
          })
        }
      />
    );
  }
  const toggle = (name: string, on: boolean) =>
    props.onChange({ type: "list", items: on ? [...chosen, name] : chosen.filter((n) => n !== name) });
  return (
    <div class="choices">
      {variables.map((v, i) => (
        <label key={v.name} class="inline">
          <input
            type="checkbox"
            id={i === 0 ? props.id : undefined}
            name={props.spec.parameter.name}
            value={v.name}
            checked={chosen.includes(v.name)}
            onChange={(e) => toggle(v.name, e.currentTarget.checked)}
          />
          {v.name}
          {v.description ? <span class="muted"> — {v.description}</span> : null}
          {v.unit ? <span class="muted"> ({v.unit})</span> : null}
        </label>
      ))}
    </div>
  );
}
