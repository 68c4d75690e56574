/** Run analysis: pick a task, fill its generated form; the jobs list beside it follows the job. */
import type { TaskInfo } from "../api/types.js";
import { canPublish } from "../auth/session.js";
import { useApp } from "../app/context.js";
import { navigate } from "../app/route.js";
import { JobsList } from "../jobs/JobsList.js";
import type { Jobs } from "../jobs/useJobs.js";
import { TaskForm } from "./TaskForm.js";

export function AnalysisView(props: { tasks: readonly TaskInfo[]; tasksError?: string; jobs: Jobs; task?: string; input?: string }) {
  const { session } = useApp();
  const current = props.tasks.find((t) => t.name === props.task) ?? props.tasks[0];
  return (
    <div class="analysis">
      <section class="card" aria-label="Run a task">
        <nav class="task-tabs" aria-label="Tasks">
          {props.tasks.map((t) => (
            <button
              key={t.name}
              type="button"
              aria-current={t === current ? "page" : undefined}
              onClick={() => navigate("analysis", { task: t.name, input: props.input })}
            >
              {t.displayName}
            </button>
          ))}
        </nav>
        {props.tasksError && <p class="error">Could not read the tasks: {props.tasksError}</p>}
        {!canPublish(session) && <p class="error">Your account may not run analysis: ask an administrator for the publisher role.</p>}
        {current && (
          <TaskForm
            key={`${current.name}/${props.input ?? ""}`}
            info={current}
            input={props.input}
            onSubmitted={(job) => props.jobs.track(job.task, job.jobId)}
          />
        )}
      </section>
      <JobsList jobs={props.jobs} />
    </div>
  );
}
