/** One job in the list: status, progress bar, how long it waited and ran, messages and what can be done with it. */
import { useEffect, useState } from "preact/hooks";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";
import { navigate } from "../app/route.js";
import { inputUrlOf, outputNameOf, resultUrlOf } from "./jobLinks.js";
import { type JobRow, durationText, isActive, progressText, statusLabel } from "./jobModel.js";
import { taskLabel } from "./useJobs.js";

export function JobItem(props: { row: JobRow; now: number; onCancel(row: JobRow): void }) {
  const { api, items } = useApp();
  const { row, now } = props;
  const [output, setOutput] = useState<string>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    outputNameOf(api, row.task, row.jobId).then(setOutput, () => undefined);
  }, [api, row.task, row.jobId]);

  const active = isActive(row.status);
  const percentage = row.info?.progress?.percentage;
  const messages = row.info?.messages ?? [];
  const errors = messages.filter((m) => m.type === "esriJobMessageTypeError");
  const duration = durationText(row, now);
  const title = `${taskLabel(row.task)}${output ? ` → ${output}` : ""}`;

  async function open(compare: boolean) {
    setProblem(undefined);
    try {
      const result = await resultUrlOf(api, row.task, row.jobId);
      const input = compare ? await inputUrlOf(api, row.task, row.jobId, items) : undefined;
      if (compare && !input) throw new Error("The job's input is not an image service, so it cannot be shown beside the result.");
      navigate("map", compare ? { left: input, right: result } : { left: result });
    } catch (e) {
      setProblem(errorText(e));
    }
  }

  return (
    <li class={`job status-${row.status}`} data-job-id={row.jobId} data-task={row.task} data-status={row.status}>
      <div class="job-head">
        <h3>{title}</h3>
        <span class="badge" data-kind={active ? "active" : row.status}>
          {statusLabel(row.status)}
          {active && percentage !== undefined ? ` ${Math.round(percentage)}%` : ""}
        </span>
      </div>
      {active && (
        <progress
          max={100}
          value={percentage}
          aria-label={`Progress of ${title}`}
          aria-valuetext={percentage === undefined ? statusLabel(row.status) : `${Math.round(percentage)}%`}
        />
      )}
      {active && (
        <p class="job-progress" data-progress-message>
          {progressText(row)}
        </p>
      )}
      <p class="muted job-meta">
        {row.submitted !== undefined && <>Submitted {new Date(row.submitted).toLocaleTimeString()}</>}
        {duration && <> · {duration}</>}
      </p>
      {errors.map((m, i) => (
        <p key={i} class="error">
          {m.description}
        </p>
      ))}
      {messages.length > 0 && (
        <details>
          <summary>Messages ({messages.length})</summary>
          <ul class="messages">
            {messages.map((m, i) => (
              <li key={i} data-type={m.type}>
                {m.description}
              </li>
            ))}
          </ul>
        </details>
      )}
      <div class="actions">
        {active && (
          <button type="button" onClick={() => props.onCancel(row)} disabled={row.status === "esriJobCancelling"}>
            Cancel
          </button>
        )}
        {row.status === "esriJobSucceeded" && (
          <>
            <button type="button" class="primary" onClick={() => void open(false)}>
              Open on map
            </button>
            <button type="button" onClick={() => void open(true)}>
              Compare with input
            </button>
          </>
        )}
      </div>
      {problem && <p class="error">{problem}</p>}
    </li>
  );
}
