/** Values to predict at: a growing list of dates (or numbers when the trend is not along time). */
import type { WidgetProps } from "./types.js";

export function ValueListWidget(props: WidgetProps) {
  const items = props.value.type === "list" && props.value.items.length ? props.value.items : [""];
  const time = props.input.timeAxis;
  const set = (next: string[]) => props.onChange({ type: "list", items: next });
  return (
    <div class="value-list">
      {items.map((item, i) => (
        <div key={i} class="value-row">
          <input
            type={time ? "date" : "text"}
            inputMode={time ? undefined : "decimal"}
            id={i === 0 ? props.id : `${props.id}-${i}`}
            aria-label={`Value ${i + 1}`}
            aria-invalid={props.invalid}
            value={item}
            onInput={(e) => set(items.map((x, j) => (j === i ? e.currentTarget.value : x)))}
          />
          {items.length > 1 && (
            <button type="button" class="small" aria-label={`Remove value ${i + 1}`} onClick={() => set(items.filter((_, j) => j !== i))}>
              Remove
            </button>
          )}
        </div>
      ))}
      <button type="button" class="small" onClick={() => set([...items, ""])}>
        Add a value
      </button>
    </div>
  );
}
