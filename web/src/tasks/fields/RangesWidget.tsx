/** Slices by ranges: for each dimension, an optional from–to chosen among its real values. */
import { formatValue } from "../../format.js";
import { dimensionsOf } from "./types.js";
import type { WidgetProps } from "./types.js";

export function RangesWidget(props: WidgetProps) {
  const ranges = props.value.type === "ranges" ? props.value.ranges : {};
  const dimensions = dimensionsOf(props.input.variables);
  if (!dimensions.length) return <p class="muted">Choose an input image service to list its dimension values.</p>;
  const set = (name: string, range: { min: string; max: string }) =>
    props.onChange({ type: "ranges", ranges: { ...ranges, [name]: range } });
  return (
    <div class="dimension-grid">
      {dimensions.map((d, i) => {
        const range = ranges[d.name] ?? { min: "", max: "" };
        const on = range.min !== "" && range.max !== "";
        const base = i === 0 ? props.id : `${props.id}-${d.name}`;
        const options = d.values.map((v) => (
          <option key={v} value={String(v)}>
            {formatValue(d.name, v)}
          </option>
        ));
        return (
          <div key={d.name} class="range-row" data-dimension={d.name}>
            <label class="inline">
              <input
                type="checkbox"
                id={base}
                checked={on}
                onChange={(e) =>
                  set(
                    d.name,
                    e.currentTarget.checked
                      ? { min: String(d.values[0]), max: String(d.values[d.values.length - 1]) }
                      : { min: "", max: "" },
                  )
                }
              />
              Limit {d.name}
            </label>
            {on && (
              <>
                <label>
                  From
                  <select
                    value={range.min}
                    aria-invalid={props.invalid}
                    data-end="min"
                    onChange={(e) => set(d.name, { ...range, min: e.currentTarget.value })}
                  >
                    {options}
                  </select>
                </label>
                <label>
                  To
                  <select
                    value={range.max}
                    aria-invalid={props.invalid}
                    data-end="max"
                    onChange={(e) => set(d.name, { ...range, max: e.currentTarget.value })}
                  >
                    {options}
                  </select>
                </label>
              </>
            )}
          </div>
        );
      })}
    </div>
  );
}
