/** The raster analysis GP service: task descriptions, submitting, and following jobs. */
import type { RestClient } from "./client.js";
import { job, task, tools } from "./endpoints.js";
import type { JobInfo, JobInput, JobResult, JobsPage, SubmitAnswer, TaskInfo, ToolsInfo } from "./types.js";

export const listTasks = (api: RestClient) => api.get<ToolsInfo>(tools(api.base));

export const taskInfo = (api: RestClient, name: string) => api.get<TaskInfo>(task(api.base, name));

/** Submit a job; a bad parameter is an ApiError (400) whose details name it, and no job exists. */
export const submitJob = (api: RestClient, name: string, params: Readonly<Record<string, string>>) =>
  api.post<SubmitAnswer>(`${task(api.base, name)}/submitJob`, params);

/** The caller's jobs of one task, newest first. */
export const listJobs = (api: RestClient, name: string, num = 25) => api.get<JobsPage>(`${task(api.base, name)}/jobs`, { start: 1, num });

export const jobInfo = (api: RestClient, name: string, jobId: string) => api.get<JobInfo>(job(api.base, name, jobId));

export const cancelJob = (api: RestClient, name: string, jobId: string) => api.post<SubmitAnswer>(`${job(api.base, name, jobId)}/cancel`);

/** Every task publishes its output image service under this result name. */
export const OUTPUT_RESULT = "outputMultidimensionalRaster";

export const jobResult = (api: RestClient, name: string, jobId: string) =>
  api.get<JobResult>(`${job(api.base, name, jobId)}/results/${OUTPUT_RESULT}`);

export const jobInput = (api: RestClient, name: string, jobId: string, param: string) =>
  api.get<JobInput>(`${job(api.base, name, jobId)}/inputs/${encodeURIComponent(param)}`);
