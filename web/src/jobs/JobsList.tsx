/** The live list of the user's jobs, newest first. */
import { useEffect, useState } from "preact/hooks";
import { JobItem } from "./JobItem.js";
import { isActive } from "./jobModel.js";
import type { Jobs } from "./useJobs.js";

export function JobsList(props: { jobs: Jobs }) {
  const { rows, error, cancel } = props.jobs;
  const [now, setNow] = useState(Date.now());
  const anyActive = rows.some((r) => isActive(r.status));
  // Tick the elapsed times while something runs.
  useEffect(() => {
    if (!anyActive) return;
    const t = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(t);
  }, [anyActive]);
  return (
    <section class="jobs card" aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      {error && <p class="error">Could not list the jobs: {error}</p>}
      {rows.length === 0 && !error && <p class="muted">No jobs yet: run a task.</p>}
      <ul class="job-list">
        {rows.map((row) => (
          <JobItem key={row.jobId} row={row} now={Math.max(now, Date.now())} onCancel={(r) => void cancel(r)} />
        ))}
      </ul>
    </section>
  );
}
