/** The colour scale of a map: the ramp, its ends and middle, the variable and its unit, the stretch. */
import { formatNumber } from "../format.js";
import { cssGradient } from "./colormaps.js";
import type { Rendering } from "./rendering.js";

function stretchText(r: Rendering): string {
  if (r.kind === "standardDeviation") return `mean ± ${r.deviations} standard deviations`;
  if (r.kind === "percentClip") return `${r.clipPercent}% of the values clipped at each end`;
  return "minimum to maximum";
}

export function Legend(props: { rendering: Rendering; variable: string; unit?: string }) {
  const { ramp, min, max, kind } = props.rendering;
  const unit = props.unit ? ` ${props.unit}` : "";
  const known = min !== undefined && max !== undefined;
  const ticks = known
    ? [formatNumber(min), formatNumber((min + max) / 2), formatNumber(max)]
    : [`lowest ${props.rendering.clipPercent}%`, "", `highest ${props.rendering.clipPercent}%`];
  const range = known ? `from ${ticks[0]} to ${ticks[2]}${unit}` : `over ${stretchText(props.rendering)}`;
  const describe = `Colour scale ${ramp}, ${range}. Transparent: no data.`;
  return (
    <figure class="legend" data-ramp={ramp} data-stretch={kind} data-min={min} data-max={max}>
      <figcaption>
        {props.variable}
        {unit && <span class="muted"> ({props.unit})</span>}
        <span class="muted stretch-text"> — {stretchText(props.rendering)}</span>
      </figcaption>
      <div class="ramp" style={{ backgroundImage: cssGradient(ramp) }} role="img" aria-label={describe} />
      <div class="ticks" aria-hidden="true">
        {ticks.map((t, i) => (
          <span key={i}>{t}</span>
        ))}
      </div>
    </figure>
  );
}
