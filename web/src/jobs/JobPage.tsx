/** One job on its own page (#/job?task=…&id=…), e.g. the job that made an item; followed while it runs. */
import { useEffect, useState } from "preact/hooks";
import { cancelJob, jobInfo } from "../api/gp.js";
import type { JobInfo } from "../api/types.js";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";
import { routeHref } from "../app/route.js";
import { JobItem } from "./JobItem.js";
import { isActive } from "./jobModel.js";

const POLL_MS = 1500;

export function JobPage(props: { task?: string; id?: string }) {
  const { api } = useApp();
  const [info, setInfo] = useState<JobInfo>();
  const [problem, setProblem] = useState<string>();
  const [version, setVersion] = useState(0);
  const { task, id } = props;
  useEffect(() => {
    if (!task || !id) return;
    let timer: number | undefined;
    let stopped = false;
    const load = () =>
      jobInfo(api, task, id).then(
        (answer) => {
          if (stopped) return;
          setInfo(answer);
          if (isActive(answer.jobStatus)) timer = window.setTimeout(load, POLL_MS);
        },
        (e: unknown) => stopped || setProblem(errorText(e)),
      );
    void load();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [api, task, id, version]);

  if (!task || !id) return <p class="error">No job was named.</p>;
  return (
    <section class="card job-page" aria-labelledby="job-title">
      <p>
        <a href={routeHref("analysis", { task })}>← Analysis</a>
      </p>
      <h2 id="job-title">Job {id}</h2>
      {problem && <p class="error">Could not read the job: {problem}</p>}
      {info && (
        <ul class="job-list">
          <JobItem
            row={{ task, jobId: id, status: info.jobStatus, submitted: info.submitted, info }}
            now={Date.now()}
            onCancel={() =>
              void cancelJob(api, task, id).then(
                () => setVersion((v) => v + 1),
                (e: unknown) => setProblem(errorText(e)),
              )
            }
          />
        </ul>
      )}
    </section>
  );
}
