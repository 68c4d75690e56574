/**
 * A real Strata server for tests: a fresh data directory, a free loopback port, the first
 * start's admin, and helpers to add users and get tokens. Stop it with `close()`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveServeConfig } from "../../src/cli/serveConfig.js";
import { type RunningStrata, startStrata } from "../../src/cli/startStrata.js";
import { type Role, createUser } from "../../src/portal/users.js";

export interface TestServer {
  readonly strata: RunningStrata;
  /** Public base URL, e.g. http://127.0.0.1:40123/arcgis */
  readonly url: string;
  readonly tools: string;
  readonly dataDir: string;
  readonly adminPassword: string;
  addUser(username: string, role: Role, password?: string): Promise<string>;
  token(username: string, password: string): Promise<string>;
  /** GET/POST a resource as JSON (f=json added), with an optional token. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of every shape
  call(path: string, params?: Record<string, string>, options?: { token?: string; method?: "GET" | "POST" }): Promise<any>;
  close(): Promise<void>;
}

export async function startTestServer(flags: Record<string, string | boolean | string[]> = {}, keepDir?: string): Promise<TestServer> {
  const dataDir = keepDir ?? (await mkdtemp(join(tmpdir(), "strata-server-")));
  const config = resolveServeConfig({ port: "0", "data-dir": dataDir, workers: "2", "log-level": "silent", ...flags } as never, {});
  const strata = await startStrata(config, { logger: false });
  const url = strata.url;
  const call = async (path: string, params: Record<string, string> = {}, options: { token?: string; method?: "GET" | "POST" } = {}) => {
    const body = new URLSearchParams({ f: "json", ...params, ...(options.token ? { token: options.token } : {}) });
    const target = path.startsWith("http") ? path : `${url}${path}`;
    const response =
      (options.method ?? "POST") === "POST"
        ? await fetch(target, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } })
        : await fetch(`${target}?${body}`);
    return response.json();
  };
  const server: TestServer = {
    strata,
    url,
    tools: `${url}/rest/services/System/RasterAnalysisTools/GPServer`,
    dataDir,
    adminPassword: strata.adminPassword ?? "",
    async addUser(username, role, password = `${username}-password-1`) {
      await createUser(strata.db, { username, password, role });
      return password;
    },
    async token(username, password) {
      const r = await call("/sharing/rest/generateToken", { username, password, client: "requestip" });
      if (!r.token) throw new Error(`no token for ${username}: ${JSON.stringify(r)}`);
      return r.token as string;
    },
    call,
    async close() {
      await strata.close();
      if (!keepDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** Poll a job until it reaches a terminal status. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a job JSON
export async function waitForJob(server: TestServer, task: string, jobId: string, token: string, timeoutMs = 60_000): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = await server.call(`/rest/services/System/RasterAnalysisTools/GPServer/${task}/jobs/${jobId}`, {}, { token, method: "GET" });
    if (!["esriJobSubmitted", "esriJobWaiting", "esriJobExecuting", "esriJobCancelling"].includes(job.jobStatus)) return job;
    if (Date.now() > end) throw new Error(`job ${jobId} still ${job.jobStatus} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
