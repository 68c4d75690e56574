/** What is at the clicked point: where (longitude, latitude), the value with its unit, and which slice. */
import { toLonLat } from "ol/proj.js";
import { formatNumber } from "../format.js";

/** Degrees with a hemisphere letter, to two decimals (about a kilometre). */
function degrees(value: number, positive: string, negative: string): string {
  return `${Math.abs(value).toFixed(2)}°${value < 0 ? negative : positive}`;
}

export function Readout(props: { coordinate: number[]; value?: number | null; unit?: string; slice: string; loading: boolean }) {
  const [lon, lat] = toLonLat(props.coordinate);
  // Longitudes past the antimeridian (a map panned round the world) read as -180..180.
  const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
  const { value } = props;
  const text = props.loading
    ? "reading…"
    : value === undefined || value === null
      ? "no data"
      : `${formatNumber(value)}${props.unit ? ` ${props.unit}` : ""}`;
  return (
    <dl class="readout" aria-label="The clicked point" data-lon={wrapped} data-lat={lat} data-value={value ?? ""}>
      <div>
        <dt>Point</dt>
        <dd>
          {degrees(lat, "N", "S")}, {degrees(wrapped, "E", "W")}
        </dd>
      </div>
      <div>
        <dt>Value</dt>
        <dd class="readout-value">{text}</dd>
      </div>
      {props.slice && (
        <div>
          <dt>At</dt>
          <dd class="readout-slice">{props.slice}</dd>
        </div>
      )}
    </dl>
  );
}
