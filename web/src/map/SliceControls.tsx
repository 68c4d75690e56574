/**
 * Which slice is shown: a slider per dimension (arrow keys, Home/End, Page Up/Down work as on
 * any range input) and play/pause through the first one that varies (time when there is time).
 * A trend raster's bands are no dimension: MapPanel chooses them (bandIds).
 */
import { useEffect, useState } from "preact/hooks";
import { formatValue } from "../format.js";
import type { Variable } from "../api/types.js";
import type { SliceIndex } from "./rasterLayer.js";

/** A frame every 1.2 s: long enough for a slice to arrive and be looked at. */
const FRAME_MS = 1200;

export function SliceControls(props: { idPrefix: string; variable: Variable; slice: SliceIndex; onChange(slice: SliceIndex): void }) {
  const { variable, slice, onChange, idPrefix } = props;
  const [playing, setPlaying] = useState(false);
  const varying = variable.dimensions.filter((d) => d.values.length > 1);
  const played = varying.find((d) => d.name === "StdTime") ?? varying[0];

  useEffect(() => {
    if (!playing || !played) return;
    const n = played.values.length;
    const timer = window.setInterval(() => onChange({ ...slice, [played.name]: ((slice[played.name] ?? 0) + 1) % n }), FRAME_MS);
    return () => window.clearInterval(timer);
  }, [playing, played, slice, onChange]);

  if (!varying.length) return <p class="muted">This variable has a single slice.</p>;
  return (
    <div class="slices">
      {varying.map((d) => {
        const id = `${idPrefix}-${d.name}`;
        const index = slice[d.name] ?? 0;
        const text = formatValue(d.name, d.values[index]);
        return (
          <div class="slice" key={d.name}>
            <label for={id}>
              {d.name}: <output for={id}>{text}</output>
            </label>
            <div class="slice-row">
              <input
                id={id}
                type="range"
                min={0}
                max={d.values.length - 1}
                step={1}
                value={index}
                aria-valuetext={text}
                data-dimension={d.name}
                onInput={(e) => onChange({ ...slice, [d.name]: Number(e.currentTarget.value) })}
              />
              {d === played && (
                <button type="button" class="play" aria-pressed={playing} onClick={() => setPlaying(!playing)}>
                  {playing ? "Pause" : "Play"}
                </button>
              )}
            </div>
          </div>
        );
      })}
    </div>
  );
}
