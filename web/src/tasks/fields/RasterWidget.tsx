/** An input raster: one of the user's image services or uploaded raster items. */
import type { WidgetProps } from "./types.js";

export function RasterWidget(props: WidgetProps) {
  const value = props.value.type === "text" ? props.value.text : "";
  const services = props.input.items.filter((i) => i.type === "Image Service" && i.url);
  const rasters = props.input.items.filter((i) => i.type !== "Image Service");
  return (
    <select
      id={props.id}
      name={props.spec.parameter.name}
      aria-describedby={props.describedBy}
      aria-invalid={props.invalid}
      aria-required={props.spec.required}
      value={value}
      onChange={(e) => props.onChange({ type: "text", text: e.currentTarget.value })}
    >
      <option value="">{props.spec.required ? "Choose a raster…" : "(none)"}</option>
      <optgroup label="Image services">
        {services.map((i) => (
          <option key={i.id} value={i.id}>
            {i.name ?? i.title} ({i.owner})
          </option>
        ))}
      </optgroup>
      {rasters.length > 0 && (
        <optgroup label="Uploaded rasters">
          {rasters.map((i) => (
            <option key={i.id} value={i.id}>
              {i.title} ({i.type}, {i.owner})
            </option>
          ))}
        </optgroup>
      )}
    </select>
  );
}
