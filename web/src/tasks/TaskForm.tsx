/**
 * A task's form, generated from its description: one field per parameter (those that apply
 * to the keywords chosen), checked here first, then by the server, whose 400 is shown beside
 * the field it names. A successful submit hands the job to the jobs list.
 */
import { useMemo, useState } from "preact/hooks";
import { submitJob } from "../api/gp.js";
import { trendOf } from "../api/strataAttributes.js";
import type { TaskInfo } from "../api/types.js";
import { useApp } from "../app/context.js";
import { useAsync } from "../app/useAsync.js";
import { describeService } from "../data/serviceCache.js";
import { isTime } from "../format.js";
import { type FieldSpec, applies, fieldSpecs } from "./fieldSpec.js";
import { Field, GROUP_KINDS } from "./fields/Field.js";
import type { InputContext } from "./fields/types.js";
import { widgetFor } from "./fields/widgetFor.js";
import { serverErrors } from "./serverErrors.js";
import { type FieldValue, type FormValues, choiceOf, initialValue, textOf, toParams, validate } from "./values.js";

const INPUT = "inputMultidimensionalRaster";

export interface Submitted {
  task: string;
  jobId: string;
}

function initialValues(specs: readonly FieldSpec[], input?: string): FormValues {
  const values: FormValues = {};
  for (const s of specs) values[s.parameter.name] = initialValue(s);
  if (input && values[INPUT]) values[INPUT] = { type: "text", text: input };
  return values;
}

/** Move focus to the first field with an error, so keyboard and screen reader users land on it. */
function focusField(form: HTMLFormElement | null, name: string | undefined) {
  const target = name && form?.querySelector<HTMLElement>(`[data-param="${name}"] :is(input, select, textarea)`);
  if (target) target.focus();
}

export function TaskForm(props: { info: TaskInfo; input?: string; onSubmitted(job: Submitted): void }) {
  const { api, items, announce } = useApp();
  const specs = useMemo(() => fieldSpecs(props.info.parameters), [props.info]);
  const [values, setValues] = useState<FormValues>(() => initialValues(specs, props.input));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  const inputItem = items.find((i) => i.id === textOf(values[INPUT]));
  const described = useAsync(inputItem?.url ?? undefined, () => describeService(api, inputItem!.url!));
  const hasDimensionField = specs.some((s) => s.kind === "dimension");
  // Values typed along "the dimension" are dates when that dimension is time: the dimension
  // field's choice, or (Predict) the one the input trend was fitted along; dates until known.
  const fittedAlong = hasDimensionField ? undefined : described.data?.variables.map(trendOf).find(Boolean)?.dimension;
  const dimension = hasDimensionField ? textOf(values.dimension) : (fittedAlong ?? "");
  const timeAxis = dimension === "" || isTime(dimension);
  const context: InputContext = { items, variables: described.data?.variables, timeAxis };

  const set = (name: string, value: FieldValue) => {
    setValues((v) => ({ ...v, [name]: value }));
    if (errors[name]) setErrors(({ [name]: _gone, ...rest }) => rest);
  };

  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    setGeneral([]);
    const found = validate(specs, values, timeAxis);
    setErrors(found);
    if (Object.keys(found).length) {
      focusField(form, specs.find((s) => found[s.parameter.name])?.parameter.name);
      announce(`The form has ${Object.keys(found).length} problem(s) to fix.`);
      return;
    }
    setBusy(true);
    try {
      const params = toParams(specs, values, items, timeAxis);
      const answer = await submitJob(api, props.info.name, params);
      announce(`${props.info.displayName} submitted.`);
      setValues((v) => ({ ...v, outputName: { type: "text", text: "" } }));
      props.onSubmitted({ task: props.info.name, jobId: answer.jobId });
    } catch (err) {
      const { fields, general: rest } = serverErrors(
        err,
        specs.map((s) => s.parameter.name),
      );
      setErrors(fields);
      setGeneral(rest);
      focusField(form, specs.find((s) => fields[s.parameter.name])?.parameter.name);
      announce("The server refused the job: see the messages beside the fields.");
    } finally {
      setBusy(false);
    }
  }

  const visible = specs.filter((s) => applies(s, choiceOf(values)));
  const field = (spec: FieldSpec) => {
    const name = spec.parameter.name;
    const id = `p-${props.info.name}-${name}`;
    const error = errors[name];
    const Widget = widgetFor(spec.kind);
    return (
      <Field key={name} spec={spec} id={id} error={error} group={GROUP_KINDS.has(spec.kind)}>
        <Widget
          spec={spec}
          value={values[name]}
          onChange={(v) => set(name, v)}
          id={id}
          describedBy={error ? `${id}-help ${id}-error` : `${id}-help`}
          invalid={Boolean(error)}
          input={context}
        />
      </Field>
    );
  };

  return (
    <form class="task-form" noValidate onSubmit={submit} aria-labelledby={`task-${props.info.name}`} data-task={props.info.name}>
      <h2 id={`task-${props.info.name}`}>{props.info.displayName}</h2>
      <p class="muted">{props.info.description}</p>
      <p class="muted">
        Fields marked <span class="required">*</span> are required.
      </p>
      {described.error && <p class="error">Could not read the input's dimensions: {described.error}</p>}
      {fittedAlong && (
        <p class="muted" data-fitted-along={fittedAlong}>
          The trend was fitted along {fittedAlong}: values along it are {timeAxis ? "dates" : "numbers"}.
        </p>
      )}
      {visible.filter((s) => s.kind !== "context").map(field)}
      {visible.some((s) => s.kind === "context") && (
        <details class="advanced" open={visible.some((s) => s.kind === "context" && errors[s.parameter.name]) || undefined}>
          <summary>Environment settings: extent, cell size, coordinate system</summary>
          {visible.filter((s) => s.kind === "context").map(field)}
        </details>
      )}
      <div role="alert" class="error">
        {general.map((g) => (
          <p key={g}>{g}</p>
        ))}
      </div>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? "Submitting…" : "Run"}
      </button>
    </form>
  );
}
