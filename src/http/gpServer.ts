/**
 * The raster analysis GP service (SPEC §2): service and task descriptions, submitJob (and
 * the short form on the task URL), job status, results, inputs, cancel and job lists.
 * Validation happens here, synchronously, through the task's parser: a bad request is a
 * 400 and no job exists.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { appendMessage } from "../jobs/jobStore.js";
import type { JobRecord, JsonObject } from "../jobs/types.js";
import { type Viewer, canRunAnalysis, isAdmin } from "../portal/access.js";
import { AuthError } from "../portal/errors.js";
import { sameUsername } from "../portal/users.js";
import { requireStorage } from "../services/quota.js";
import { parseEnvFor } from "../services/resolve.js";
import { toolsUrl } from "../services/urls.js";
import { OUTPUT_PARAM, describeTask, hasTaskParameter } from "../tasks/gp.js";
import type { JobOptions } from "../tasks/registry.js";
import type { TaskDefinition } from "../tasks/types.js";
import { signedIn, viewerOf } from "./auth.js";
import type { AppContext } from "./context.js";
import { HttpError } from "./errors.js";
import type { HtmlPage } from "./html.js";
import { isSecretName, redactSecrets } from "./logRedaction.js";
import { requestParams } from "./params.js";
import { type Answer, resource } from "./route.js";
import { refuseHeldServiceName } from "./serviceNames.js";

export const TOOLS_PATH = "/rest/services/System/RasterAnalysisTools/GPServer";
/** The names a task's output is published under (SPEC §2: the second is an alias). */
const RESULT_ALIASES = [OUTPUT_PARAM, "result"];
/** Request parameters never stored or echoed, besides credentials (`isSecretName`). */
const NOT_INPUTS = new Set(["f"]);

export function registerGpServer(app: FastifyInstance, ctx: AppContext): void {
  const tools = toolsUrl(ctx.urls);
  const crumbs = [
    { text: "Home", href: `${ctx.basePath}/rest/services` },
    { text: "System", href: `${ctx.basePath}/rest/services/System` },
    { text: "RasterAnalysisTools (GPServer)", href: `${ctx.basePath}${TOOLS_PATH}` },
  ];

  resource(app, TOOLS_PATH, () => {
    const body = {
      currentVersion: 11.3,
      serviceDescription: "Multidimensional raster analysis: subset, anomalies, trends and predictions, as asynchronous jobs.",
      tasks: [...ctx.tasks.keys()],
      executionType: "esriExecutionTypeAsynchronous",
      resultMapServerName: "",
      maximumRecords: ctx.maximumRecords,
      capabilities: "",
    };
    return {
      body,
      page: () => ({
        title: "RasterAnalysisTools (GPServer)",
        breadcrumbs: crumbs.slice(0, 2),
        rows: [
          { label: "Service Description", value: body.serviceDescription },
          { label: "Tasks", links: body.tasks.map((t) => ({ text: t, href: `${ctx.basePath}${TOOLS_PATH}/${t}` })) },
          { label: "Execution Type", value: body.executionType },
        ],
      }),
    };
  });

  resource(app, `${TOOLS_PATH}/:task`, (request) => {
    const task = taskOf(ctx, request);
    const params = requestParams(request);
    if (hasTaskParameter(task.info, params)) return submit(ctx, request, task);
    const body = describeTask(task.info, `${tools}/${task.info.name}`);
    return { body, page: () => taskPage(ctx, task, crumbs, body) };
  });

  resource(app, `${TOOLS_PATH}/:task/submitJob`, (request) => submit(ctx, request, taskOf(ctx, request)));

  resource(app, `${TOOLS_PATH}/:task/jobs`, async (request) => {
    const task = taskOf(ctx, request);
    const viewer = await signedIn(ctx.db, request);
    const p = requestParams(request);
    const start = pagingNumber(p.start, "start", 1);
    const num = Math.min(ctx.maximumRecords, pagingNumber(p.num, "num", 50));
    const page = await ctx.jobs.list({
      task: task.info.name,
      owner: isAdmin(viewer) ? undefined : viewer.username,
      offset: start - 1,
      limit: num,
    });
    const jobs = page.jobs.map((j) => ({ jobId: j.id, jobStatus: j.status, submitted: j.submitted, owner: j.owner }));
    const nextStart = start - 1 + jobs.length < page.total ? start + jobs.length : -1;
    return { body: { total: page.total, start, num: jobs.length, nextStart, jobs } };
  });

  resource(app, `${TOOLS_PATH}/:task/jobs/:jobId`, async (request) => {
    const job = await jobOf(ctx, request);
    const body = jobJson(job, (requestParams(request).returnMessages ?? "true").toLowerCase() !== "false");
    return {
      body,
      page: () => ({
        title: `Job ${job.id}`,
        breadcrumbs: [...crumbs, { text: job.task, href: `${ctx.basePath}${TOOLS_PATH}/${job.task}` }],
        rows: [
          { label: "Status", value: job.status },
          ...(job.progress ? [{ label: "Progress", value: `${job.progress.percentage}% ${job.progress.message ?? ""}` }] : []),
          ...job.messages.map((m) => ({ label: m.type.replace("esriJobMessageType", ""), value: m.description })),
          ...(job.status === "esriJobSucceeded"
            ? [{ label: "Result", href: `${ctx.basePath}${TOOLS_PATH}/${job.task}/jobs/${job.id}/results/${OUTPUT_PARAM}` }]
            : []),
        ],
        json: body,
      }),
    };
  });

  resource(app, `${TOOLS_PATH}/:task/jobs/:jobId/results`, async (request) => {
    const job = succeeded(await jobOf(ctx, request));
    return { body: { results: RESULT_ALIASES.map((name) => resultJson(job, name)) } };
  });
  resource(app, `${TOOLS_PATH}/:task/jobs/:jobId/results/:name`, async (request) => {
    const job = succeeded(await jobOf(ctx, request));
    const { name } = request.params as { name: string };
    if (!RESULT_ALIASES.some((n) => n.toLowerCase() === name.toLowerCase()))
      throw new NotFoundError(`Job ${job.id} has no result named ${name}.`);
    return { body: resultJson(job, name) };
  });

  resource(app, `${TOOLS_PATH}/:task/jobs/:jobId/inputs`, async (request) => {
    const job = await jobOf(ctx, request);
    return { body: { inputs: Object.keys(job.inputs).map((name) => inputJson(ctx, job, name)) } };
  });
  resource(app, `${TOOLS_PATH}/:task/jobs/:jobId/inputs/:name`, async (request) => {
    const job = await jobOf(ctx, request);
    const { name } = request.params as { name: string };
    const key = Object.keys(job.inputs).find((k) => k.toLowerCase() === name.toLowerCase());
    if (!key) throw new NotFoundError(`Job ${job.id} has no input named ${name}.`);
    return { body: inputJson(ctx, job, key) };
  });

  resource(app, `${TOOLS_PATH}/:task/jobs/:jobId/cancel`, async (request) => {
    const job = await ctx.jobs.cancel((await jobOf(ctx, request)).id);
    return { body: { jobId: job.id, jobStatus: job.status } };
  });
}

/** A 1-based whole number of a jobs listing (absent: `fallback`). */
function pagingNumber(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined || text.trim() === "") return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidInputError(`${name} must be a whole number of 1 or more; got "${text.slice(0, 40)}"`, { parameter: name });
  return n;
}

function taskOf(ctx: AppContext, request: FastifyRequest): TaskDefinition {
  const { task } = request.params as { task: string };
  const found = [...ctx.tasks.values()].find((t) => t.info.name.toLowerCase() === task.toLowerCase());
  if (!found) throw new NotFoundError(`Task ${task} does not exist (tasks: ${[...ctx.tasks.keys()].join(", ")}).`);
  return found;
}

/** The job, if the caller may see it: its owner or an admin (SPEC §12). */
async function jobOf(ctx: AppContext, request: FastifyRequest): Promise<JobRecord> {
  const viewer = await signedIn(ctx.db, request);
  const { task, jobId } = request.params as { task: string; jobId: string };
  const job = await ctx.jobs.get(jobId);
  if (!job || job.task.toLowerCase() !== task.toLowerCase()) throw new NotFoundError(`Job ${jobId} does not exist.`);
  if (!sameUsername(job.owner, viewer.username) && !isAdmin(viewer)) throw new AuthError(403);
  return job;
}

async function submit(ctx: AppContext, request: FastifyRequest, task: TaskDefinition): Promise<Answer> {
  const viewer: Viewer = await viewerOf(ctx.db, request, false);
  if (!canRunAnalysis(viewer)) throw new AuthError(403, undefined, { details: ["Running analysis needs the publisher or admin role."] });
  const params = requestParams(request);
  const env = parseEnvFor(
    { db: ctx.db, store: ctx.store, dataStores: ctx.dataStores, urls: ctx.urls, allowedHosts: ctx.allowedHosts },
    viewer,
  );
  const parsed = await task.parse(params, env);
  // An output with no room to keep it would run to the end and be refused there.
  await requireStorage(ctx.db, ctx.store, viewer!, ctx.limits.quotaBytes, "outputName");
  const inputs: JsonObject = {};
  // Echoed to whoever reads the job: never a credential, even inside a URL a parameter holds.
  for (const [k, v] of Object.entries(params)) if (!NOT_INPUTS.has(k.toLowerCase()) && !isSecretName(k)) inputs[k] = redactSecrets(v);
  const options: JobOptions & { output: unknown } = { dataDir: ctx.store.dataDir, task: parsed.options, output: parsed.output };
  // Checked again and claimed (the job's record holds the name) in the one transaction that
  // creates the job: of two submits naming the same new service, or a submit and a publish,
  // the second is refused now rather than failing at the end. The parse checked before awaits.
  const output = parsed.output;
  const job = await ctx.jobs.submit(task.info.name, viewer!.username, inputs, options, {
    guard: output.kind === "create" ? (tx) => refuseHeldServiceName(tx, output.serviceName, "outputName") : undefined,
  });
  for (const w of parsed.warnings) await appendMessage(ctx.db, job.id, { type: "esriJobMessageTypeWarning", description: w });
  request.log.info({ jobId: job.id, task: task.info.name, owner: viewer!.username }, "job submitted");
  return { body: { jobId: job.id, jobStatus: job.status } };
}

function succeeded(job: JobRecord): JobRecord {
  if (job.status !== "esriJobSucceeded") {
    throw new HttpError(400, "Unable to complete operation.", [`Job ${job.id} has no results: its status is ${job.status}.`]);
  }
  return job;
}

export function jobJson(job: JobRecord, withMessages: boolean): Record<string, unknown> {
  const executing = job.status === "esriJobExecuting" || job.status === "esriJobCancelling";
  return {
    jobId: job.id,
    jobStatus: job.status,
    ...(executing && job.progress
      ? { progress: { type: "default", message: job.progress.message ?? "", percentage: job.progress.percentage } }
      : {}),
    // The alias is listed too: clients look a result up here before fetching it.
    results: job.status === "esriJobSucceeded" ? Object.fromEntries(RESULT_ALIASES.map((n) => [n, { paramUrl: `results/${n}` }])) : {},
    inputs: Object.fromEntries(Object.keys(job.inputs).map((k) => [k, { paramUrl: `inputs/${k}` }])),
    // A message may quote an input URL with its token (a remote store's refusal).
    ...(withMessages ? { messages: job.messages.map((m) => ({ ...m, description: redactSecrets(m.description) })) } : {}),
    // Not in ArcGIS's job JSON; clients that know them show how long a job waited and ran.
    submitted: job.submitted,
    ...(job.started !== undefined ? { started: job.started } : {}),
    ...(job.finished !== undefined ? { finished: job.finished } : {}),
  };
}

function resultJson(job: JobRecord, name: string): Record<string, unknown> {
  return { paramName: name, dataType: "GPString", value: job.results[OUTPUT_PARAM] ?? null };
}

function inputJson(ctx: AppContext, job: JobRecord, name: string): Record<string, unknown> {
  const task = ctx.tasks.get(job.task);
  const spec = task?.info.parameters.find((p) => p.name === name || p.aliases?.includes(name));
  // Redacted at submit; again here for jobs stored before that was so.
  const raw = typeof job.inputs[name] === "string" ? redactSecrets(job.inputs[name]) : job.inputs[name];
  let value: unknown = raw;
  if (typeof raw === "string" && /^\s*[[{]/.test(raw)) {
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    // What the client sent, as it sent it, when it nests deeper than any parameter does
    // (serialising it again could overflow the stack).
    if (nestsDeeperThan(value, MAX_INPUT_DEPTH)) value = raw;
  }
  return { paramName: name, dataType: spec?.dataType ?? "GPString", value };
}

/** Deeper than any task parameter's JSON nests. */
const MAX_INPUT_DEPTH = 32;

/** Whether `value` nests arrays or objects more than `limit` deep (walked without recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function taskPage(ctx: AppContext, task: TaskDefinition, crumbs: HtmlPage["breadcrumbs"], body: unknown): HtmlPage {
  return {
    title: `Task: ${task.info.displayName}`,
    breadcrumbs: crumbs,
    rows: [
      { label: "Description", value: task.info.description },
      { label: "Execution Type", value: "esriExecutionTypeAsynchronous" },
      ...task.info.parameters.map((p) => ({ label: p.name, value: `${p.dataType}${p.required ? " (required)" : ""}: ${p.description}` })),
    ],
    form: {
      action: `${ctx.basePath}${TOOLS_PATH}/${task.info.name}/submitJob`,
      method: "POST",
      submit: "Submit Job",
      fields: [
        ...task.info.parameters.map((p) => ({
          name: p.name,
          label: p.displayName,
          help: p.description,
          required: p.required,
          choices: p.choiceList,
          value: p.defaultValue !== undefined ? String(p.defaultValue) : undefined,
          multiline:
            p.dataType === "GPRasterDataLayer" || p.name === "outputName" || p.name.startsWith("dimension") || p.name === "context",
        })),
        { name: "token", label: "Token", help: "A token from generateToken" },
      ],
    },
    json: body,
  };
}
