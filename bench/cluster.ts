/**
 * The job queue (issue 13): the same Subset job (a daily cube copied whole, shared in 2
 * shards) run by 1 and by 2 `strata worker` processes of one shard thread each, submitted
 * through an API node started with --queue and timed by the job record (submitted to
 * finished), medians of 3; twice: the workers free
 * to use both cores, then each pinned to a core of its own (taskset), as workers on machines
 * of their own would be (a worker's shard thread is not its only thread: reads and writes go
 * through libuv's pool and zstd runs on an encoder thread, so one free worker keeps both cores
 * partly busy and a second has less to add). And the queue's overhead for a tiny Subset job
 * (one thread, no shards) against the embedded path (an API node running jobs on its own
 * threads), medians of 10. One machine, one data directory, one SQLite file shared by the
 * processes, a throwaway redis-server; the processes run the compiled build.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { writeBigCube } from "../test/helpers/bigCube.js";
import { startRedis } from "../test/helpers/redis.js";
import { type ServerProcess, startServerProcess } from "../test/helpers/serverProcess.js";
import { writeSmallCube } from "../test/helpers/smallCube.js";
import { type WorkerProcess, startWorkerProcess } from "../test/helpers/workerProcess.js";
import { median } from "./median.js";

const SUBSET = "/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster";
const SHAPE = { times: 1461, height: 360, width: 720 };
const TINY_RUNS = 10;
const BIG_RUNS = 3;

/**
 * @example
 * rows.push(...(await benchCluster("bench/out/")));
 */
export async function benchCluster(out: string): Promise<string[][]> {
  // Compiled, as an installed Strata runs (bin/strata.js would run stale sources through tsx).
  await promisify(execFile)("node", [new URL("../scripts/build.mjs", import.meta.url).pathname, "server", "--force"]);
  const inputs = join(out, "cluster-inputs");
  await mkdir(inputs, { recursive: true });
  const daily = `daily_${SHAPE.times}.nc`;
  const cube = join(inputs, daily);
  if (!(await stat(cube).catch(() => undefined))) await writeBigCube(cube, SHAPE);
  await writeSmallCube(join(inputs, "small.nc"));
  console.log(`cluster: ${SHAPE.times} x ${SHAPE.height} x ${SHAPE.width} float32 (${((await stat(cube)).size / 1e9).toFixed(2)} GB)`);
  const redis = await startRedis();
  const rows: string[][] = [];
  try {
    const flags = ["--no-samples", "--workers", "1", "--work-threads", "1", "--store", `fileShare:inputs=${inputs}`];
    // Jobs on the queue: 1 worker, then 2.
    const queued = await node(join(out, "cluster-queue"), flags, { STRATA_QUEUE: redis.url });
    const workers: WorkerProcess[] = [];
    const worker = async (core?: number): Promise<void> => {
      workers.push(
        await startWorkerProcess(
          queued.dataDir,
          ["--workers", "1", "--jobs", "1", "--job-threads", "2", "--public-url", queued.server.url],
          { STRATA_QUEUE: redis.url },
          core === undefined ? [] : ["taskset", "-c", String(core)],
        ),
      );
    };
    const stopWorkers = async () => {
      await Promise.all(workers.splice(0).map((w) => w.close()));
    };
    let bigQueued: number[] = [];
    let bigPinned: number[] = [];
    let tinyQueued: number[] = [];
    let runs = 0;
    const big = async () => {
      const times: number[] = [];
      for (let i = 0; i < BIG_RUNS; i++) times.push(await timeJob(queued, daily, `daily_${runs++}`, {}, true));
      return median(times);
    };
    try {
      await worker();
      const one = await big();
      await worker();
      bigQueued = [one, await big()];
      await stopWorkers();
      await worker(0);
      const pinnedOne = await big();
      await worker(1);
      bigPinned = [pinnedOne, await big()];
      await stopWorkers();
      await worker();
      tinyQueued = await tinyJobs(queued, "q");
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await queued.server.close();
    }
    // The embedded path: the API node's own threads.
    const embedded = await node(join(out, "cluster-embedded"), flags, {});
    let tinyEmbedded: number[] = [];
    try {
      tinyEmbedded = await tinyJobs(embedded, "e");
    } finally {
      await embedded.server.close();
    }
    for (const [what, [one, two]] of [
      ["workers free on both cores", bigQueued],
      ["each worker pinned to a core", bigPinned],
    ] as const) {
      rows.push([
        `cluster: daily Subset, 1 worker vs 2 workers, ${what} (s, median of ${BIG_RUNS}); speed-up`,
        (one / 1000).toFixed(2),
        (two / 1000).toFixed(2),
        (one / two).toFixed(2),
      ]);
    }
    const q = median(tinyQueued);
    const e = median(tinyEmbedded);
    rows.push([
      `cluster: tiny Subset submit->Succeeded, queue vs embedded (ms, median of ${TINY_RUNS}); +ms`,
      q.toFixed(0),
      e.toFixed(0),
      (q - e).toFixed(0),
    ]);
  } finally {
    await redis.stop();
    await rm(join(out, "cluster-queue"), { recursive: true, force: true });
    await rm(join(out, "cluster-embedded"), { recursive: true, force: true });
  }
  return rows;
}

interface Node {
  server: ServerProcess;
  dataDir: string;
  token: string;
}

async function node(dataDir: string, flags: string[], env: Record<string, string>): Promise<Node> {
  await rm(dataDir, { recursive: true, force: true });
  const server = await startServerProcess(dataDir, flags, env);
  const password = (await readFile(join(dataDir, "initial-admin-password"), "utf8")).trim();
  const answer = await post(server, "/sharing/rest/generateToken", { username: "admin", password, client: "requestip" });
  return { server, dataDir, token: String(answer.token) };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of every shape
async function post(server: ServerProcess, path: string, params: Record<string, string>): Promise<any> {
  return (await fetch(`${server.url}${path}`, { method: "POST", body: new URLSearchParams({ f: "json", ...params }) })).json();
}

/**
 * Milliseconds from submitJob to esriJobSucceeded: as the client sees it, polling every 20 ms
 * (the tiny jobs: their overhead is what a client waits), or, `byRecord`, the job record's
 * own submitted-to-finished times, polling every 250 ms (the big jobs: a poll every 20 ms
 * cost the API node 0.35 s of CPU on the workers' two cores, a measurement's load that API
 * nodes on machines of their own do not put there).
 */
async function timeJob(n: Node, input: string, name: string, extra: Record<string, string>, byRecord = false): Promise<number> {
  const started = performance.now();
  const { jobId } = await post(n.server, `${SUBSET}/submitJob`, {
    token: n.token,
    inputMultidimensionalRaster: JSON.stringify({ uri: `/fileShares/inputs/${input}` }),
    outputName: JSON.stringify({ serviceProperties: { name } }),
    dimensionDefinition: "ALL",
    ...extra,
  });
  for (;;) {
    const job = await post(n.server, `${SUBSET}/jobs/${jobId}`, { token: n.token });
    if (job.jobStatus === "esriJobSucceeded") return byRecord ? job.finished - job.submitted : performance.now() - started;
    if (["esriJobFailed", "esriJobCancelled", "esriJobTimedOut"].includes(job.jobStatus))
      throw new Error(`bench job ${name} ended ${job.jobStatus}: ${JSON.stringify(job.messages)}`);
    await new Promise((r) => setTimeout(r, byRecord ? 250 : 20));
  }
}

async function tinyJobs(n: Node, prefix: string): Promise<number[]> {
  const context = JSON.stringify({ parallelProcessingFactor: 1 });
  // A first job warms the threads up (both paths start theirs on first use).
  await timeJob(n, "small.nc", `${prefix}_warm`, { context });
  const times: number[] = [];
  for (let i = 0; i < TINY_RUNS; i++) times.push(await timeJob(n, "small.nc", `${prefix}_${i}`, { context }));
  return times;
}
