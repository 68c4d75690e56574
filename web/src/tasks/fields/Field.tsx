/**
 * A field's frame: its label (or legend for a group of controls) with the REST parameter's
 * name beside it, required mark, help in the form's terms (the REST description on request)
 * and error.
 */
import type { ComponentChildren } from "preact";
import { hasRestDetail, helpFor } from "../fieldHelp.js";
import type { FieldSpec } from "../fieldSpec.js";

export function Field(props: { spec: FieldSpec; id: string; error?: string; group?: boolean; children: ComponentChildren }) {
  const { spec, id, error, group } = props;
  const p = spec.parameter;
  const title = (
    <>
      {p.displayName}
      {/* Controls carry aria-required; a group of controls says it in words. */}
      {spec.required && (
        <span class="required" aria-hidden="true">
          {" "}
          *
        </span>
      )}
      {spec.required && group && <span class="visually-hidden"> (required)</span>}
    </>
  );
  const body = (
    <>
      {props.children}
      <p class="help" id={`${id}-help`}>
        {helpFor(spec)}
      </p>
      {hasRestDetail(spec) && (
        <details class="rest-help">
          <summary>
            REST parameter <code>{p.name}</code>
          </summary>
          <p>{p.description}</p>
        </details>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </>
  );
  const className = `field field-${spec.kind}${error ? " invalid" : ""}`;
  return group ? (
    <fieldset class={className} data-param={p.name} aria-describedby={error ? `${id}-help ${id}-error` : `${id}-help`}>
      <legend id={`${id}-label`}>{title}</legend>
      <code class="keyword" aria-hidden="true">
        {p.name}
      </code>
      {body}
    </fieldset>
  ) : (
    <div class={className} data-param={p.name}>
      <div class="field-head">
        <label for={id} id={`${id}-label`}>
          {title}
        </label>
        {/* The API's name for it, for who moves between the form and the REST API; not part of the label. */}
        <code class="keyword" aria-hidden="true">
          {p.name}
        </code>
      </div>
      {body}
    </div>
  );
}

/** Widgets laid out as a group of controls (a fieldset) rather than one labelled control. */
export const GROUP_KINDS: ReadonlySet<FieldSpec["kind"]> = new Set(["variables", "sliceValues", "ranges", "valueList", "context"]);
