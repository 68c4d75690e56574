/** The colour scale of a map: the ramp, its ends and middle, the variable and its unit. */
import { formatNumber } from "../format.js";
import { cssGradient } from "./colormaps.js";
import type { Rendering } from "./rendering.js";

export function Legend(props: { rendering: Rendering; variable: string; unit?: string }) {
  const { ramp, min, max } = props.rendering;
  const unit = props.unit ? ` ${props.unit}` : "";
  const describe = `Colour scale ${ramp === "viridis" ? "viridis, dark purple to yellow" : "blue through white to red"}, from ${formatNumber(min)} to ${formatNumber(max)}${unit}. Transparent: no data.`;
  return (
    <figure class="legend" data-ramp={ramp} data-min={min} data-max={max}>
      <figcaption>
        {props.variable}
        {unit && <span class="muted"> ({props.unit})</span>}
      </figcaption>
      <div class="ramp" style={{ backgroundImage: cssGradient(ramp) }} role="img" aria-label={describe} />
      <div class="ticks" aria-hidden="true">
        <span>{formatNumber(min)}</span>
        <span>{formatNumber((min + max) / 2)}</span>
        <span>{formatNumber(max)}</span>
      </div>
    </figure>
  );
}
