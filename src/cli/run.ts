/**
 * `strata run <Task>`: run one of the server's analysis tasks on local files, without a
 * server, through the same parameter table and validation as the GP service, on threads as
 * a job would, into a new Zarr store. What a scientist uses in place of CDO, and what the
 * benchmarks time.
 */
import { availableParallelism } from "node:os";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, extname } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidInputError, StrataError } from "../cube/errors.js";
import { chunkEncoder } from "../io/chunkEncoder.js";
import { openLocation } from "../io/open.js";
import { fanOut } from "../jobs/fanOut.js";
import { warmShardThreads } from "../jobs/shardPool.js";
import { openRasterStore } from "../store/rasterStore.js";
import { TASKS } from "../tasks/registry.js";
import type { InputLocation, ParseEnv, RunContext, TaskDefinition } from "../tasks/types.js";
import { runShard } from "../tasks/worker.js";
import type { Command } from "./command.js";
import { progressReporter } from "./progress.js";
import { resolveSource, storeSpecs } from "./source.js";

// The task module shard threads import: .ts when Strata runs from its sources.
const WORKER_MODULE = new URL(`../tasks/worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;

export const runCommand: Command = {
  usage: `Usage: strata run <Task> --input <file|uri> --output <out.zarr> [--<parameter> <value> ...]
                  [--threads N] [--store SPEC ...]

Run an analysis task on local rasters and write its output as a new Zarr v3 store. <Task> is
a task's name or a word of it: Subset (SubsetMultidimensionalRaster), Anomaly
(GenerateMultidimensionalAnomaly), Trend (GenerateTrendRaster), Predict
(PredictUsingTrendRaster). Parameters are those of the task's GP service (see docs/tasks.md
or the task's page on a server), named as there or in any case: --method Z_SCORE,
--calculationInterval RECURRING_MONTHLY, --variables tas, --context '{"extent":...}'.
A raster parameter (--referenceMeanRaster) takes a path or a data-store URI like --input.
Progress shows as a bar on a terminal and as lines otherwise; the job's messages (which walk
was chosen and why) go to stderr. A bad parameter is refused before anything is read, naming
it; the output must not exist, and a failed or interrupted run leaves nothing behind.

Options:
  --input       the input raster: a file, a Zarr directory, an http(s) Zarr URL or a data-store URI
  --output      the Zarr store to create
  --threads N   the cores the run keeps busy (default: the machine's ${availableParallelism()}): passes that
                stream the input take one thread per two (each keeps about two busy,
                reading and inflating, encoding and writing on helper threads); with 1,
                everything runs on one thread
  --store SPEC  register a data store (fileShare:<name>=<dir>, cloudStore:<name>=<dir|url>)`,

  async run(args, out) {
    const [name, ...rest] = args;
    if (!name || name.startsWith("--")) throw new InvalidInputError("name a task: strata run <Task> ...; see strata run --help");
    const task = findTask(name);
    const { input, output, threads = availableParallelism(), stores, params } = readArguments(rest, task);
    if (await stat(output).catch(() => undefined)) throw new InvalidInputError(`${output} already exists; choose a new output path`);
    // Its thread starts while the input is opened and read, not before the first chunk is written (a run of one thread has none).
    if (threads > 1) chunkEncoder();

    const env = localEnv(stores);
    const parsed = await task.parse(
      { inputMultidimensionalRaster: JSON.stringify({ uri: input }), outputName: '{"serviceProperties":{"name":"local"}}', ...params },
      env,
    );
    for (const w of parsed.warnings) out.stderr(`warning: ${w}\n`);

    const work = `${output}.strata-run`;
    await rm(work, { recursive: true, force: true });
    await mkdir(dirname(output), { recursive: true });
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    process.once("SIGINT", stop);
    const progress = progressReporter(out, task.info.name);
    try {
      const ctx: RunContext = {
        signal: controller.signal,
        dataDir: work,
        progress: (p) => progress.update(p),
        message: (type, text) => progress.message(type === "esriJobMessageTypeWarning" ? `warning: ${text}` : text),
        report: () => {},
        threads,
        localShards: true,
        fanOut: (count, payload, [from, to] = [0, 100]) =>
          fanOut(count, payload as never, {
            workerModule: WORKER_MODULE,
            task: task.info.name,
            signal: controller.signal,
            progress: (p) => progress.update(from + (p / 100) * (to - from)),
            loadRunShard: async () => runShard,
          }),
        warmShards: (count) => warmShardThreads(count, WORKER_MODULE),
      };
      const { datasetId } = await task.run(parsed.options, ctx);
      await rename(await (await openRasterStore(work, { sweep: false })).resolve(datasetId), output);
      progress.done();
      out.stderr(`strata run: wrote ${output}\n`);
      return 0;
    } catch (e) {
      progress.done();
      if (controller.signal.aborted) throw new InvalidInputError("interrupted; nothing was written");
      throw e;
    } finally {
      process.off("SIGINT", stop);
      await rm(work, { recursive: true, force: true });
    }
  },
};

/** The short names the help gives. */
const SHORT: Readonly<Record<string, string>> = {
  subset: "SubsetMultidimensionalRaster",
  anomaly: "GenerateMultidimensionalAnomaly",
  trend: "GenerateTrendRaster",
  predict: "PredictUsingTrendRaster",
};

/** A task by its name, its short name, or a unique part of its name, in any case. */
function findTask(name: string): TaskDefinition {
  const all = [...TASKS.values()];
  const wanted = (SHORT[name.toLowerCase()] ?? name).toLowerCase();
  const exact = all.find((t) => t.info.name.toLowerCase() === wanted);
  if (exact) return exact;
  const matching = all.filter((t) => t.info.name.toLowerCase().includes(name.toLowerCase()));
  if (matching.length === 1) return matching[0];
  throw new InvalidInputError(`${matching.length ? "ambiguous" : "no"} task "${name}"; tasks: ${all.map((t) => t.info.name).join(", ")}`);
}

/** The run's own options and the task's parameters, checked against its parameter table. */
function readArguments(args: string[], task: TaskDefinition) {
  const names = new Map(task.info.parameters.map((p) => [p.name.toLowerCase(), p]));
  const params: Record<string, string> = {};
  const stores: string[] = [];
  let input: string | undefined;
  let output: string | undefined;
  let threads: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (!flag.startsWith("--")) throw new InvalidInputError(`unexpected "${flag}": parameters are --<name> <value>`);
    const key = flag.slice(2);
    const value = args[++i];
    if (value === undefined) throw new InvalidInputError(`--${key} needs a value`);
    const spec = names.get(key.toLowerCase());
    if (key === "input") input = value;
    else if (key === "output") output = value;
    else if (key === "store") stores.push(value);
    else if (key === "threads") {
      threads = Number(value);
      if (!Number.isInteger(threads) || threads < 1)
        throw new InvalidInputError(`--threads must be a whole number of 1 or more; got "${value}"`);
    } else if (spec && spec.name !== "inputMultidimensionalRaster" && spec.name !== "outputName") {
      // A raster parameter given as a path is a data-store-style descriptor, as --input is.
      params[spec.name] = spec.dataType === "GPRasterDataLayer" && !value.trim().startsWith("{") ? JSON.stringify({ uri: value }) : value;
    } else {
      const known = task.info.parameters.map((p) => p.name).filter((n) => n !== "inputMultidimensionalRaster" && n !== "outputName");
      throw new InvalidInputError(
        `--${key} is not a parameter of ${task.info.name} (it has: ${known.join(", ")}; and --input, --output, --threads, --store)`,
      );
    }
  }
  if (!input) throw new InvalidInputError(`give --input <file|uri>; see strata run --help`);
  if (!output) throw new InvalidInputError(`give --output <out.zarr>; see strata run --help`);
  return { input, output, threads, stores: storeSpecs(stores), params };
}

/** Inputs are what the command line names: paths, Zarr URLs and data-store URIs, as strata info reads them. */
function localEnv(stores: readonly string[]): ParseEnv {
  return {
    async resolveInput(descriptor, parameter) {
      const uri = (descriptor as { uri?: unknown } | null)?.uri;
      if (typeof uri !== "string" || uri === "")
        throw new InvalidInputError(`${parameter}: give a file, a Zarr URL or a data-store URI`, { parameter });
      const source = await resolveSource(uri, stores);
      const location: InputLocation = typeof source === "string" ? { path: source, label: uri } : { url: source.href, label: uri };
      return { location, warnings: [] };
    },
    resolveOutput: async () => ({ kind: "create", serviceName: "local", itemProperties: {} }),
    async openCube(location, parameter) {
      try {
        return await openLocation(location, parameter);
      } catch (e) {
        if (e instanceof StrataError) throw new InvalidInputError(`${parameter}: ${e.message}`, { parameter, cause: e });
        throw e;
      }
    },
  };
}
