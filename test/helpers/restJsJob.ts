/**
 * Waiting for an ArcGIS REST JS job in a test without ever outliving the test. REST JS's
 * `waitForCompletion` polls on an interval until the job reaches a status it knows as final:
 * it takes no AbortSignal, goes on polling when a status request fails (the server closed by
 * the test's `after`), and polls every 2 s whatever `pollingRate` the job was given. A job
 * that never ended therefore kept the test file's process alive after its test timed out,
 * and the suite hung. Here the polling is ours, and it stops whatever happens.
 */
import { type IJobInfo, type Job, JOB_STATUSES } from "@esri/arcgis-rest-request";

export interface RestJsWait {
  /** Stop waiting when this aborts: the test's signal (aborted when it times out or is cancelled). */
  readonly signal?: AbortSignal;
  /**
   * Stop waiting after this many ms. A timer of our own: Node 20's AbortSignal.any forgets an
   * AbortSignal.timeout once the collector has run, so that deadline never came.
   */
  readonly deadlineMs?: number;
  /** How often the job's status is asked for, in ms (default 200). */
  readonly pollingRate?: number;
}

/**
 * The job's final information once it succeeds. Rejects when it fails, is cancelled or times
 * out (REST JS's ArcGISJobError), when asking for its status fails, and when `signal` aborts
 * or `deadlineMs` passes first. Polling has stopped by the time this settles.
 * @example
 * const job = await Job.submitJob({ url, params, authentication });
 * const info = await waitForRestJsJob(job, { signal: t.signal, deadlineMs: 120_000 });
 */
export async function waitForRestJsJob(job: Job, { signal, deadlineMs, pollingRate = 200 }: RestJsWait = {}): Promise<IJobInfo> {
  let timer: NodeJS.Timeout | undefined;
  let stop = (): void => {};
  let failed = (): void => {};
  // Monitoring started by us: waitForCompletion adds no interval of its own, and
  // stopEventMonitoring clears ours (it leaves one that REST JS started alone).
  job.startEventMonitoring(pollingRate);
  try {
    return await new Promise<IJobInfo>((resolve, reject) => {
      stop = () => reject(new Error(`job ${job.id} had not ended when its wait stopped (${String(signal?.reason ?? "deadline")})`));
      failed = (error?: unknown) => reject(new Error(`asking for job ${job.id}'s status failed: ${String(error)}`));
      if (signal?.aborted) return stop();
      signal?.addEventListener("abort", stop, { once: true });
      if (deadlineMs !== undefined) timer = setTimeout(stop, deadlineMs);
      job.on(JOB_STATUSES.Error, failed);
      job.waitForCompletion().then(resolve, reject);
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", stop);
    job.off(JOB_STATUSES.Error, failed);
    job.stopEventMonitoring();
  }
}
