/**
 * What a GP task is: its parameter table, a parser that validates a request before any job
 * exists (400 now, not later), and a runner that executes in a worker thread.
 */
import type { Cube } from "../cube/types.js";
import type { RasterLocation } from "../io/open.js";
import type { TaskInfo } from "./gp.js";

/** Where an input raster lives once its descriptor is resolved (path, Zarr URL, or a stack). */
export type InputLocation = RasterLocation;

/** Output descriptor (SPEC §5) once checked. */
export type OutputTarget =
  | {
      readonly kind: "create";
      readonly serviceName: string;
      readonly itemProperties: Readonly<Record<string, unknown>>;
      readonly capabilities?: string;
    }
  | { readonly kind: "update"; readonly serviceName: string; readonly itemId: string };

/** The keys that name a raster in an input descriptor (SPEC §4), in the order they are taken. */
export const INPUT_DESCRIPTOR_KEYS = ["itemId", "url", "uri", "folderId"] as const;

/** Services the parser needs, implemented above tasks/ (portal, services, data stores). */
export interface ParseEnv {
  /** Resolve an input raster descriptor (SPEC §4) the caller may read; 400/403 otherwise. */
  resolveInput(descriptor: unknown, parameter: string): Promise<{ location: InputLocation; warnings: string[] }>;
  /** Check an output descriptor (SPEC §5): a free name to create, or a service the caller owns. */
  resolveOutput(descriptor: unknown, parameter: string): Promise<OutputTarget>;
  /** Open an input; a file that cannot be read as a raster is a 400 naming `parameter`. */
  openCube(location: InputLocation, parameter: string): Promise<Cube>;
}

export interface Parsed<O> {
  /** JSON-serialisable options handed to `run` (in a worker) and stored with the job. */
  readonly options: O;
  readonly output: OutputTarget;
  /** Warning messages for the job (ignored descriptor keys, unknown context keys ...). */
  readonly warnings: string[];
}

/** What a worker gives a running task. */
export interface RunContext {
  readonly signal: AbortSignal;
  /** The data directory of the raster store outputs are written to. */
  readonly dataDir: string;
  progress(percentage: number, message?: string): void;
  message(type: "esriJobMessageTypeInformative" | "esriJobMessageTypeWarning" | "esriJobMessageTypeError", description: string): void;
  /** Tell the main thread about something to clean up if this run dies (a pending dataset). */
  report(key: string, value: unknown): void;
  /** The most threads this run may use (the server's threads per job). */
  readonly threads: number;
  /**
   * Whether its shards run on this process's threads, beside the helper threads of its
   * streamed passes (OpenedInput.walk.streamed), which then take one thread per two of the
   * job's. Absent, every pass takes the threads it is given (shards in other processes, each
   * with its own helpers, as the queue's workers run them).
   */
  readonly localShards?: boolean;
  /**
   * Run the task's `runShard` with `payload` as shards 0..count-1 on threads at once; their
   * results in order. Their progress is the run's, within `span` (default [0, 100]).
   */
  fanOut(count: number, payload: unknown, span?: readonly [number, number]): Promise<unknown[]>;
  /** Threads for `count` shards of a later fanOut, started now (absent: they start with it). */
  warmShards?(count: number): void;
}

/** What one shard of a run is told: which share of the work is its own. */
export interface ShardContext {
  readonly index: number;
  readonly count: number;
  readonly signal: AbortSignal;
  /** This shard's progress, 0..1. */
  progress(fraction: number): void;
}

/** What a successful run returns: the committed dataset to publish. */
export interface RunOutput {
  readonly datasetId: string;
  /** Bytes the dataset takes in the raster store, when the run measured them (a job's thread does; publishing measures them otherwise). */
  readonly bytes?: number;
}

export interface TaskDefinition<O = unknown> {
  readonly info: TaskInfo;
  parse(params: Record<string, string>, env: ParseEnv): Promise<Parsed<O>>;
  run(options: O, ctx: RunContext): Promise<RunOutput>;
  /** One shard of a run that fanned out (`ctx.fanOut`); `payload` is what run passed. */
  runShard(payload: unknown, ctx: ShardContext): Promise<unknown>;
}
