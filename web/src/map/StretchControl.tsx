/**
 * The stretch and colour ramp of the map: minimum–maximum, mean ± n standard deviations, or
 * a percent clip at each end (ArcGIS Stretch types 5, 3 and 6), and a named ramp.
 */
import { ARCGIS_RAMPS, STRATA_RAMPS } from "./colormaps.js";
import type { StretchChoice, StretchKind } from "./rendering.js";

const KINDS: { kind: StretchKind; label: string }[] = [
  { kind: "minMax", label: "Minimum–maximum" },
  { kind: "standardDeviation", label: "Standard deviation" },
  { kind: "percentClip", label: "Percent clip" },
];

export function StretchControl(props: { idPrefix: string; choice: StretchChoice; ramp: string; onChange(choice: StretchChoice): void }) {
  const { choice, onChange, idPrefix } = props;
  const set = (change: Partial<StretchChoice>) => onChange({ ...choice, ...change });
  // A number typed half-way (empty, "0.") keeps the last good value.
  const positive = (text: string, keep: number) => (Number(text) > 0 ? Number(text) : keep);
  return (
    <fieldset class="stretch-control">
      <legend>Stretch and colours</legend>
      <div class="stretch-field">
        <label for={`${idPrefix}-stretch`}>Stretch</label>
        <select id={`${idPrefix}-stretch`} value={choice.kind} onChange={(e) => set({ kind: e.currentTarget.value as StretchKind })}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
      </div>
      {choice.kind === "standardDeviation" && (
        <div class="stretch-field">
          <label for={`${idPrefix}-deviations`}>Standard deviations</label>
          <input
            id={`${idPrefix}-deviations`}
            type="number"
            min={0.1}
            max={10}
            step={0.5}
            value={choice.deviations}
            onInput={(e) => set({ deviations: positive(e.currentTarget.value, choice.deviations) })}
          />
        </div>
      )}
      {choice.kind === "percentClip" && (
        <div class="stretch-field">
          <label for={`${idPrefix}-clip`}>Clip % at each end</label>
          <input
            id={`${idPrefix}-clip`}
            type="number"
            min={0.1}
            max={25}
            step={0.5}
            value={choice.clipPercent}
            onInput={(e) => set({ clipPercent: Math.min(25, positive(e.currentTarget.value, choice.clipPercent)) })}
          />
        </div>
      )}
      <div class="stretch-field">
        <label for={`${idPrefix}-ramp`}>Colour ramp</label>
        <select id={`${idPrefix}-ramp`} value={props.ramp} onChange={(e) => set({ ramp: e.currentTarget.value })}>
          {[
            { label: "Strata (matplotlib)", ramps: STRATA_RAMPS },
            { label: "ArcGIS", ramps: ARCGIS_RAMPS },
          ].map((group) => (
            <optgroup key={group.label} label={group.label}>
              {group.ramps.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </div>
    </fieldset>
  );
}
