/**
 * What every task shares: the input, output and context parameters of its table, the
 * outputName decoding, and running a write into a fresh pending dataset of the raster store
 * (committed on success, aborted on any failure, reported so a crash can be cleaned up),
 * shared out over threads.
 */
import type { Share } from "../analysis/share.js";
import { type Statistics, mergeStatistics } from "../analysis/statistics.js";
import type { BlockSink } from "../analysis/subset.js";
import type { Cube } from "../cube/types.js";
import { encoderOnThisThread } from "../io/chunkEncoder.js";
import { fetchChunksAside } from "../io/hdf5/chunkFetcher.js";
import { type BlockWriter, type CubeSpec, type OutputCompression, TILE, createZarrWriter, openBlockWriter } from "../io/zarrWrite.js";
import { openRasterStore } from "../store/rasterStore.js";
import { type Scratch, scratchIn } from "../store/scratch.js";
import type { ParsedContext } from "./context.js";
import { type ParameterSpec, parseJson, required } from "./gp.js";
import { borrowInput, lendInput } from "./inputCache.js";
import type { RunContext, RunOutput, TaskDefinition } from "./types.js";

/** The input raster parameter; `what` names what the task expects. */
export function inputParameter(displayName = "Input Multidimensional Raster", what = "The raster"): ParameterSpec {
  return {
    name: "inputMultidimensionalRaster",
    dataType: "GPRasterDataLayer",
    displayName,
    description: `${what}: {"itemId": ...}, {"url": ...} of a hosted image service, {"uri": "/fileShares/<share>/<path>"} or {"folderId": ...}.`,
    required: true,
  };
}

export const OUTPUT_NAME_PARAMETER: ParameterSpec = {
  name: "outputName",
  dataType: "GPString",
  displayName: "Output Name",
  description:
    'The output image service: {"serviceProperties":{"name":"..."}} to create one, or {"itemId": ...} of a service you own to update it.',
  required: true,
};

export const CONTEXT_PARAMETER: ParameterSpec = {
  name: "context",
  dataType: "GPString",
  displayName: "Context",
  description:
    'Environment settings as JSON: extent (with spatialReference; or MAXOF, MINOF), outSR or outSpatialReference (wkid or wkt), cellSize (number, MAXOF, MINOF, a raster {"url": ...}, or {"factor": n}), resamplingMethod (NEAREST, BILINEAR, CUBIC), parallelProcessingFactor, processorType, compression (ZSTD, the default, or NONE: output chunks stored raw). E.g. {"outSR":{"wkid":3857},"cellSize":25000,"resamplingMethod":"BILINEAR"}.',
};

/** outputName is a JSON descriptor, or a bare service name as some clients send it. */
export function outputDescriptor(values: Map<string, string>): unknown {
  const text = required(values, "outputName").trim();
  return text.startsWith("{") ? parseJson(text, "outputName") : text;
}

/** How a walk over the input is told to go. */
export interface WalkOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (fraction: number) => void;
  readonly share?: Share;
  /** Which pass over the input this is (0 unless the input's walk makes several). */
  readonly pass?: number;
  /** Where a pass leaves what the next needs (walks of several passes only). */
  readonly scratch?: Scratch;
}

/** Each written variable's statistics, as the analyses return them. */
export type VariableStatistics = Map<string, Statistics | undefined>;

/** A task's input, opened (context applied) and ready to be walked into an output. */
export interface OpenedInput {
  readonly cube: Cube;
  /** The output's shape: its grid, variables and chunks. */
  spec(): CubeSpec;
  /**
   * The walk chosen for the input: its passes (each reads the input once; 1 when absent) and
   * why it was chosen, for the job's messages.
   */
  readonly walk?: {
    readonly passes: number;
    readonly note: string;
    /** Passes that run on the job's own thread only (they read no input, so sharing gains nothing). */
    readonly alone?: readonly number[];
    /** The most shares a pass splits into (its runs); absent: as many as the output has chunks. */
    readonly shares?: number;
    /**
     * Passes that stream the input in storage order, paced by reading, inflating and writing
     * rather than by the task's arithmetic: one share keeps about two cores busy (its thread
     * reading and inflating, the chunk encoder's thread, the system copying pages in and out
     * of the page cache), so threads of one machine share such a pass at most one per
     * CORES_PER_STREAM cores.
     */
    readonly streamed?: readonly number[];
    /**
     * Streamed passes that write little while they read (a trend's sums), so that a thread
     * the job has to spare for them reads and inflates their chunks (io/hdf5/chunkFetcher.ts)
     * while their own computes. Not those that write as they read (an anomaly's first pass
     * keeps its input): that thread's core is the writing's, and fetching there was slower.
     */
    readonly fetchAside?: readonly number[];
    /**
     * How long pass `pass` takes against the others on a job of `threads` threads, in any
     * unit (the passes alike when absent): progress moves through each pass at that pace, so
     * that it moves evenly in time however unequal the passes (a transposition before
     * Mann-Kendall's tiles is a fifth of the job, an anomaly's first pass a third).
     */
    readonly cost?: (pass: number, threads: number) => number;
  };
  /**
   * Do this share of pass `walk.pass`: earlier passes leave their results in `walk.scratch`,
   * the last writes the output into `sink` and returns its statistics.
   */
  compute(sink: BlockSink, walk: WalkOptions): Promise<VariableStatistics>;
  /** After pass `pass` (not the last): combine what its `shares` shares left in scratch. */
  merge?(pass: number, shares: number, scratch: Scratch): Promise<void>;
  /**
   * Whether pass `pass` has anything to do, once the passes before it are merged (absent:
   * every pass has): a pass that has not is neither computed nor merged, and no thread starts for it.
   */
  needed?(pass: number, scratch: Scratch): Promise<boolean>;
  close(): Promise<void>;
}

/** What a task that writes one dataset supplies: opening its input, and its message. */
export interface DatasetTask<O> {
  open(options: O): Promise<OpenedInput>;
  describe(options: O): string;
  /** The options for `threads` threads at once: each thread's share of the memory budget. */
  perThread?(options: O, threads: number): O;
}

/** Options every such task has: the context's threads and output compression. */
type WithParallelism = Pick<ParsedContext, "parallelism" | "compression">;

interface ShardPayload<O> {
  readonly options: O;
  readonly path: string;
  readonly pass: number;
  /** Whether the shard's thread fetches its chunks aside (passFetchesAside). */
  readonly fetchAside?: boolean;
}

/**
 * `run` and `runShard` of a task that writes one dataset: the input is opened, the output
 * created, the walk shared out over up to `parallelProcessingFactor` threads (never more than
 * the server allows per job, nor more than the walk has steps), statistics merged, and
 * the dataset committed.
 * @example
 * export const trendTask: TaskDefinition<TrendOptions> = { info: TREND_INFO, parse, ...datasetRunners(trendDataset) };
 */
export function datasetRunners<O extends WithParallelism>(task: DatasetTask<O>): Pick<TaskDefinition<O>, "run" | "runShard"> {
  return {
    async run(given, ctx) {
      // Threads share the job's memory: each tile is smaller when more run at once.
      const wanted = threadCount(given.parallelism, ctx.threads, Infinity);
      const options = wanted > 1 && task.perThread ? task.perThread(given, wanted) : given;
      ctx.progress(0, "Opening the input");
      const input = await task.open(options);
      try {
        const description = task.describe(options);
        return await runIntoDataset(ctx, description, async (path) => {
          const spec = input.spec();
          const threads = threadCount(options.parallelism, ctx.threads, input.walk?.shares ?? chunkCount(spec));
          // A job of one thread keeps to it: its chunks are encoded and its files written there, not on helper threads.
          const oneThread = threads === 1;
          const encoder = oneThread ? encoderOnThisThread() : undefined;
          const writer = await createZarrWriter(path, spec, { compression: options.compression, encoder });
          const threadsFor = passThreads(input.walk, threads, ctx.localShards === true);
          const asideFor = passFetchesAside(input.walk, threads, threadsFor);
          // The threads a later pass fans out to start while the first runs.
          const widest = Math.max(...Array.from({ length: input.walk?.passes ?? 1 }, (_, pass) => threadsFor(pass)));
          if (widest > 1 && threadsFor(0) === 1) ctx.warmShards?.(widest - 1);
          if (input.walk) ctx.message("esriJobMessageTypeInformative", input.walk.note);
          if (threads > 1) ctx.message("esriJobMessageTypeInformative", threadsNote(input.walk, threads, threadsFor, asideFor));
          // Shard 0 runs on this thread: it uses this input rather than opening another.
          const takeBack = lendInput(task, inputKey(options, path), input);
          const stats = await drained(writer, () =>
            walkPasses(input, scratchIn(path, { onThisThread: oneThread }), threads, threadsFor, {
              alone: (walk) =>
                fetchingAside(asideFor(walk.pass), () => flushed(writer, input.compute(writer, { ...walk, signal: ctx.signal }))),
              shards: async (pass, span, threads) => {
                // Shards report percentages only: the pass's message stays until the next.
                ctx.progress(span[0], passMessage(description, pass, input.walk?.passes ?? 1));
                const payload = { options, path, pass, fetchAside: asideFor(pass) } satisfies ShardPayload<O>;
                const parts = (await ctx.fanOut(threads, payload, span)) as StatisticsJson[];
                // Every key the shards answered (a trend's per-band statistics too), and every variable.
                const names = new Set([...spec.variables.map((v) => v.name), ...parts.flatMap((p) => Object.keys(p))]);
                return new Map([...names].map((name) => [name, mergeStatistics(parts.map((p) => p[name] ?? undefined))]));
              },
              progress: (percentage, pass) => ctx.progress(Math.round(percentage), passMessage(description, pass, input.walk?.passes ?? 1)),
            }),
          ).finally(takeBack);
          ctx.progress(100, "Writing statistics");
          await writer.finish({ "strata:statistics": Object.fromEntries(stats) });
        });
      } finally {
        await input.close();
      }
    },
    async runShard(payload, ctx) {
      const { options, path, pass, fetchAside } = payload as ShardPayload<O>;
      // The job's input as the last pass on this thread left it open (inputCache.ts).
      const { input, release } = await borrowInput(task, inputKey(options, path), () => task.open(options));
      let reusable = false;
      try {
        const share = { index: ctx.index, count: ctx.count };
        const walk = { signal: ctx.signal, onProgress: ctx.progress, share, pass, scratch: scratchIn(path) };
        const writer = await openBlockWriter(path);
        const stats = await fetchingAside(fetchAside === true, () => drained(writer, () => input.compute(writer, walk)));
        reusable = true;
        return Object.fromEntries([...stats].map(([name, s]) => [name, s ?? null])) satisfies StatisticsJson;
      } finally {
        await release(reusable);
      }
    },
  };
}

type StatisticsJson = Record<string, Statistics | null>;

/** Which job's input: its options and its output's path (one job's passes share them, no two jobs do). */
function inputKey(options: unknown, path: string): string {
  return JSON.stringify([options, path]);
}

/**
 * `work` writing through `writer`, then every block it handed over written (a failure to
 * write one fails it). When `work` fails, the chunks still being written are waited for
 * before the failure goes on, so the store can be removed with nothing writing into it.
 */
async function drained<T>(writer: BlockWriter, work: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (e) {
    await writer.flush().catch(() => undefined);
    throw e;
  }
  await writer.flush();
  return result;
}

/**
 * Write an opened input's whole output as a new Zarr store at `path` on this thread, with
 * its statistics (root attribute `strata:statistics`); returns them.
 * @example
 * await writeDataset(input, "/tmp/out.zarr", { signal });
 */
export async function writeDataset(
  input: Pick<OpenedInput, "spec" | "compute" | "walk" | "merge" | "needed">,
  path: string,
  walk: WalkOptions = {},
  compression?: OutputCompression,
): Promise<VariableStatistics> {
  walk.signal?.throwIfAborted();
  const writer = await createZarrWriter(path, input.spec(), { compression });
  const stats = await drained(writer, () =>
    walkPasses(input, scratchIn(path), 1, () => 1, {
      alone: (pass) => flushed(writer, input.compute(writer, { ...walk, ...pass })),
      shards: () => Promise.reject(new Error("one thread has no shards")),
      progress: (percentage) => walk.onProgress?.(percentage / 100),
    }),
  );
  await writer.finish({ "strata:statistics": Object.fromEntries(stats) });
  return stats;
}

/** A pass's result once every block it handed `writer` is written: the next pass may read blocks it kept (BlockSink.keepBlock). */
async function flushed<T>(writer: BlockWriter, pass: Promise<T>): Promise<T> {
  const result = await pass;
  await writer.flush();
  return result;
}

/** How walkPasses runs one pass: on this thread alone, or as shards on `threads` threads. */
interface PassRunner {
  alone(walk: Required<Pick<WalkOptions, "pass" | "scratch" | "onProgress">>): Promise<VariableStatistics>;
  shards(pass: number, span: readonly [number, number], threads: number): Promise<VariableStatistics>;
  progress(percentage: number, pass: number): void;
}

/**
 * Every pass of an input's walk in turn, merging between passes; the scratch of the passes
 * is removed whatever happens. Statistics are the last pass's. Each pass takes the part of
 * the progress left that its cost (OpenedInput.walk.cost, on the job's `jobThreads`) is of
 * the passes left: a pass found not needed leaves its part to those after it.
 */
async function walkPasses(
  input: Pick<OpenedInput, "walk" | "merge" | "needed">,
  scratch: Scratch,
  jobThreads: number,
  threadsFor: (pass: number) => number,
  run: PassRunner,
): Promise<VariableStatistics> {
  const passes = input.walk?.passes ?? 1;
  const cost = (pass: number) => Math.max(0, input.walk?.cost?.(pass, jobThreads) ?? 1);
  try {
    let stats: VariableStatistics = new Map();
    let done = 0;
    for (let pass = 0; pass < passes; pass++) {
      if (input.needed && !(await input.needed(pass, scratch))) {
        if (pass === passes - 1) run.progress(100, pass);
        continue;
      }
      let left = 0;
      for (let later = pass; later < passes; later++) left += cost(later);
      const end = pass === passes - 1 ? 100 : done + (left > 0 ? ((100 - done) * cost(pass)) / left : (100 - done) / (passes - pass));
      const span = [done, end] as const;
      done = end;
      const threads = threadsFor(pass);
      stats =
        threads === 1
          ? await run.alone({ pass, scratch, onProgress: (f) => run.progress(span[0] + f * (span[1] - span[0]), pass) })
          : await run.shards(pass, span, threads);
      if (pass < passes - 1) await input.merge?.(pass, threads, scratch);
    }
    return stats;
  } finally {
    await scratch.remove();
  }
}

/**
 * Cores one share of a streamed pass keeps busy (OpenedInput.walk.streamed): a mean anomaly
 * on one thread used 8.8 s of CPU in 5.0 s (GNU time, chunks inflated on the thread); on two
 * threads of a 2-core machine it took 1.13 times as long, with twice the memory.
 */
const CORES_PER_STREAM = 2;

/**
 * The threads each pass runs on: `threads`, but one for the passes that run alone, and for
 * streamed ones, when the shards are `local`, one per CORES_PER_STREAM threads: a job's
 * threads are the cores it keeps busy. Shards that run elsewhere take every thread: each has
 * its process's helpers.
 */
function passThreads(walk: OpenedInput["walk"], threads: number, local: boolean): (pass: number) => number {
  const streamThreads = local ? Math.max(1, Math.floor(threads / CORES_PER_STREAM)) : threads;
  return (pass) => (walk?.alone?.includes(pass) ? 1 : walk?.streamed?.includes(pass) ? streamThreads : threads);
}

/**
 * Whether a pass's threads fetch their chunks aside (OpenedInput.walk.fetchAside): when it
 * may and the job has a thread to spare for each of them.
 */
function passFetchesAside(walk: OpenedInput["walk"], threads: number, threadsFor: (pass: number) => number): (pass: number) => boolean {
  return (pass) => (walk?.fetchAside?.includes(pass) ?? false) && 2 * threadsFor(pass) <= threads;
}

/** `work` with this thread's HDF5 chunks fetched aside when `aside` (io/hdf5/chunkFetcher.ts), as before after. */
async function fetchingAside<T>(aside: boolean, work: () => Promise<T>): Promise<T> {
  if (!aside) return work();
  fetchChunksAside(true);
  try {
    return await work();
  } finally {
    fetchChunksAside(false);
  }
}

/** The job's message on its threads, saying which passes take fewer and why. */
function threadsNote(
  walk: OpenedInput["walk"],
  threads: number,
  threadsFor: (pass: number) => number,
  asideFor: (pass: number) => boolean,
): string {
  const fewer = (walk?.streamed ?? []).filter((pass) => threadsFor(pass) < threads);
  if (fewer.length === 0) return `Working on ${threads} threads.`;
  const n = threadsFor(fewer[0]);
  const why = `a pass streaming the input keeps about ${CORES_PER_STREAM} cores busy a thread (reading and inflating; encoding and writing on helper threads)`;
  const aside = fewer.filter(asideFor);
  const asideNote =
    aside.length === 0
      ? ""
      : ` ${passList(aside, walk!.passes)}: a thread beside each reads and inflates its HDF5 chunks while it computes (it writes little meanwhile).`;
  const passes = Array.from({ length: walk!.passes }, (_, pass) => pass);
  if (passes.every((pass) => threadsFor(pass) <= n))
    return `Working on ${n} thread${n > 1 ? "s" : ""} of the ${threads} allowed: ${why}.${asideNote}`;
  return `Working on ${threads} threads, pass${fewer.length > 1 ? "es" : ""} ${fewer.map((pass) => pass + 1).join(" and ")} on ${n}: ${why}.${asideNote}`;
}

/** "Pass 1", "Passes 1 and 2", or "The pass" of a one-pass walk. */
function passList(passes: readonly number[], of: number): string {
  if (of === 1) return "The pass";
  return `Pass${passes.length > 1 ? "es" : ""} ${passes.map((pass) => pass + 1).join(" and ")}`;
}

/** What a job is doing during a pass: the task's description, and which pass when there are several. */
function passMessage(description: string, pass: number, passes: number): string {
  return passes > 1 ? `${description}: pass ${pass + 1} of ${passes}` : description;
}

/**
 * Threads for a run: `parallelProcessingFactor` (a count, or a percentage of the server's
 * threads per job; all of them when absent), never more than the server's threads per job
 * nor than the output's chunks (each thread needs whole chunks of its own).
 * @example
 * threadCount({ percent: 50 }, 8, 1000); // 4
 */
export function threadCount(parallelism: ParsedContext["parallelism"], threads: number, chunks: number): number {
  const wanted = parallelism?.count ?? (parallelism?.percent !== undefined ? Math.round((threads * parallelism.percent) / 100) : threads);
  return Math.max(1, Math.min(wanted, threads, chunks));
}

/**
 * About how many steps a walk has: the output's chunks, where a dimension chunked in runs
 * (time in anomaly outputs) counts once, since a time-whole step writes all of its runs.
 */
function chunkCount(spec: CubeSpec): number {
  const { height, width } = spec.grid;
  return spec.variables.reduce((n, v) => {
    const chunks = v.outputChunks ?? [...v.dimensions.map(() => 1), TILE, TILE];
    const shape = [...v.dimensions.map((d, i) => (chunks[i] > 1 ? 1 : d.values.length)), height, width];
    return n + shape.reduce((m, s, i) => m * Math.ceil(s / Math.max(1, chunks[i])), 1);
  }, 0);
}

/**
 * Write into a new pending dataset and commit it; abort on any failure.
 * @example
 * return runIntoDataset(ctx, "Fitting trends", (path) => writeDataset(input, path, { signal: ctx.signal }));
 */
export async function runIntoDataset(ctx: RunContext, description: string, write: (path: string) => Promise<unknown>): Promise<RunOutput> {
  const store = await openRasterStore(ctx.dataDir, { sweep: false });
  const pending = await store.begin();
  ctx.report("pendingDataset", pending.id);
  try {
    ctx.message("esriJobMessageTypeInformative", description);
    await write(pending.path);
    ctx.progress(100, "Saving the output");
    await pending.commit();
    return { datasetId: pending.id };
  } catch (e) {
    await pending.abort();
    throw e;
  }
}
