/**
 * Environment settings as fields: the extent (a box drawn on a map, or typed), the cell
 * size, the output coordinate system and the resampling method, the threads to use, and
 * how the output's chunks are stored.
 */
import { useState } from "preact/hooks";
import { type ContextValue, EMPTY_CONTEXT } from "../contextValue.js";
import { keywordOption } from "../keywordLabels.js";
import { CRS_CHOICES } from "./crsChoices.js";
import { ExtentPicker } from "./ExtentPicker.js";
import type { WidgetProps } from "./types.js";

const RESAMPLING = ["NEAREST", "BILINEAR", "CUBIC"];
const COMPRESSION = ["ZSTD", "NONE"];

export function ContextWidget(props: WidgetProps) {
  const c = props.value.type === "context" ? props.value.context : EMPTY_CONTEXT;
  const set = (patch: Partial<ContextValue>) => props.onChange({ type: "context", context: { ...c, ...patch } });
  const id = (part: string) => `${props.id}-${part}`;
  const cellMode = c.cellSize === "" || c.cellSize === "MAXOF" || c.cellSize === "MINOF" ? c.cellSize : "size";
  // "Another code" stays chosen while its box is still empty.
  const [typing, setTyping] = useState(false);
  const listed = CRS_CHOICES.some((x) => x.code === c.outSR);
  const crsMode = typing || (c.outSR !== "" && !listed) ? "other" : c.outSR;
  const setCrsMode = (mode: string) => {
    setTyping(mode === "other");
    set({ outSR: mode === "other" ? "" : mode });
  };
  return (
    <div class="context-fields">
      <fieldset class="sub">
        <legend>Extent</legend>
        <ExtentPicker id={props.id} edges={c} invalid={props.invalid} onChange={(edges) => set(edges)} />
      </fieldset>
      <div class="context-row">
        <label for={id("cell")}>Cell size</label>
        <select
          id={id("cell")}
          value={cellMode}
          onChange={(e) => set({ cellSize: e.currentTarget.value === "size" ? "1" : e.currentTarget.value })}
        >
          <option value="">As the input</option>
          <option value="MAXOF">{keywordOption("cellSize", "MAXOF")}</option>
          <option value="MINOF">{keywordOption("cellSize", "MINOF")}</option>
          <option value="size">A size…</option>
        </select>
        {cellMode === "size" && (
          <label>
            Size <span class="muted">(in the output's units: degrees or metres)</span>
            <input
              type="text"
              inputMode="decimal"
              name="cellSize"
              value={c.cellSize}
              onInput={(e) => set({ cellSize: e.currentTarget.value })}
            />
          </label>
        )}
      </div>
      <div class="context-row">
        <label for={id("crs")}>Output coordinate system</label>
        <select id={id("crs")} value={crsMode} onChange={(e) => setCrsMode(e.currentTarget.value)}>
          <option value="">As the input</option>
          {CRS_CHOICES.map((x) => (
            <option key={x.code} value={x.code}>
              {x.name} (EPSG:{x.code})
            </option>
          ))}
          <option value="other">Another EPSG code…</option>
        </select>
        {crsMode === "other" && (
          <label>
            EPSG code
            <input type="text" inputMode="numeric" name="outSR" value={c.outSR} onInput={(e) => set({ outSR: e.currentTarget.value })} />
          </label>
        )}
      </div>
      <div class="context-row">
        <label for={id("resampling")}>Resampling</label>
        <KeywordSelect
          id={id("resampling")}
          parameter="resamplingMethod"
          keywords={RESAMPLING}
          value={c.resampling}
          onChange={(resampling) => set({ resampling })}
        />
      </div>
      <div class="context-row">
        <label for={id("parallel")}>Parallel processing</label>
        <input
          id={id("parallel")}
          type="text"
          placeholder="all the threads allowed"
          value={c.parallel}
          onInput={(e) => set({ parallel: e.currentTarget.value })}
        />
        <span class="muted">threads, or a share such as 50%</span>
      </div>
      <div class="context-row">
        <label for={id("compression")}>Output storage</label>
        <KeywordSelect
          id={id("compression")}
          parameter="compression"
          keywords={COMPRESSION}
          value={c.compression}
          onChange={(compression) => set({ compression })}
        />
      </div>
    </div>
  );
}

/** A choice among a setting's keywords, or none ("" = the server's default). */
function KeywordSelect(props: {
  id: string;
  parameter: string;
  keywords: readonly string[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
      <option value="">The server's default</option>
      {props.keywords.map((k) => (
        <option key={k} value={k}>
          {keywordOption(props.parameter, k)}
        </option>
      ))}
    </select>
  );
}
