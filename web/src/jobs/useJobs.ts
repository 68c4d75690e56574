/**
 * The user's jobs of every task, kept fresh: the lists are polled every 1.5 s while a job is
 * active (10 s otherwise, to notice jobs submitted elsewhere), and an active job's status
 * (progress, messages) is fetched on each poll. Status changes are announced.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { cancelJob, jobInfo, listJobs } from "../api/gp.js";
import type { RestClient } from "../api/client.js";
import { errorText } from "../app/errors.js";
import { type JobRow, isActive, newestFirst, statusLabel } from "./jobModel.js";

const ACTIVE_POLL_MS = 1500;
const IDLE_POLL_MS = 10_000;
/** Jobs listed per task: the recent ones are what a session works with. */
const PER_TASK = 10;

/** "SubsetMultidimensionalRaster" → "Subset Multidimensional Raster". */
export const taskLabel = (task: string) => task.replace(/([a-z])([A-Z])/g, "$1 $2");

export interface Jobs {
  rows: readonly JobRow[];
  error?: string;
  /** A job was just submitted: show it now and follow it. */
  track(task: string, jobId: string): void;
  cancel(row: JobRow): Promise<void>;
}

/**
 * @param onSucceeded called when a job this page watched succeeds (its output is a new service
 *   the data lists should show)
 */
export function useJobs(api: RestClient, tasks: readonly string[], announce: (text: string) => void, onSucceeded: () => void): Jobs {
  const [rows, setRows] = useState<readonly JobRow[]>([]);
  const [error, setError] = useState<string>();
  const known = useRef(new Map<string, JobRow>());
  const tracked = useRef(new Set<string>());
  const timer = useRef<number>();
  const running = useRef(false);
  const again = useRef(false);

  const refresh = useCallback(async () => {
    if (running.current) {
      again.current = true;
      return;
    }
    running.current = true;
    window.clearTimeout(timer.current);
    let active = false;
    let succeeded = false;
    try {
      const pages = await Promise.all(tasks.map((task) => listJobs(api, task, PER_TASK).then((p) => p.jobs.map((j) => ({ task, ...j })))));
      const next = new Map<string, JobRow>();
      const details: Promise<void>[] = [];
      for (const j of pages.flat()) {
        const old = known.current.get(j.jobId);
        const row: JobRow = { ...old, task: j.task, jobId: j.jobId, status: j.jobStatus, submitted: j.submitted };
        // Announced once: the next poll's `old` is no longer active.
        const seenFinishing = old ? isActive(old.status) : tracked.current.has(j.jobId);
        if (!isActive(row.status) && seenFinishing) {
          announce(`${taskLabel(row.task)} job ${statusLabel(row.status).toLowerCase()}.`);
          succeeded ||= row.status === "esriJobSucceeded";
        }
        // Progress and messages of running jobs; a finished job's messages and times once.
        if (isActive(row.status) || row.info?.jobStatus !== row.status) {
          details.push(
            jobInfo(api, row.task, row.jobId).then(
              (info) => void (row.info = info),
              () => undefined,
            ),
          );
        }
        active ||= isActive(row.status);
        next.set(j.jobId, row);
      }
      await Promise.all(details);
      known.current = next;
      setRows([...next.values()].sort(newestFirst));
      setError(undefined);
      if (succeeded) onSucceeded();
    } catch (e) {
      setError(errorText(e));
    } finally {
      running.current = false;
      if (again.current) {
        again.current = false;
        void refresh();
      } else {
        timer.current = window.setTimeout(() => void refresh(), active ? ACTIVE_POLL_MS : IDLE_POLL_MS);
      }
    }
  }, [api, tasks, announce, onSucceeded]);

  useEffect(() => {
    if (!tasks.length) return;
    void refresh();
    return () => window.clearTimeout(timer.current);
  }, [refresh, tasks.length]);

  const track = useCallback(
    (_task: string, jobId: string) => {
      tracked.current.add(jobId);
      void refresh();
    },
    [refresh],
  );

  const cancel = useCallback(
    async (row: JobRow) => {
      try {
        await cancelJob(api, row.task, row.jobId);
        announce(`Cancelling the ${taskLabel(row.task)} job.`);
      } catch (e) {
        announce(`Could not cancel: ${errorText(e)}`);
      }
      void refresh();
    },
    [api, refresh, announce],
  );

  return { rows, error, track, cancel };
}
