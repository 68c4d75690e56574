/** URLs of the resources the app uses, all under the REST base. */

export const portal = (base: string) => `${base}/sharing/rest`;

export const userContent = (base: string, username: string) => `${portal(base)}/content/users/${encodeURIComponent(username)}`;

export const tools = (base: string) => `${base}/rest/services/System/RasterAnalysisTools/GPServer`;

export const task = (base: string, name: string) => `${tools(base)}/${encodeURIComponent(name)}`;

export const job = (base: string, taskName: string, jobId: string) => `${task(base, taskName)}/jobs/${encodeURIComponent(jobId)}`;
