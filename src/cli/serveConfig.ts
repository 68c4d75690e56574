/**
 * `strata serve` configuration: flags, each with an environment variable, and defaults that
 * let `npm start` run with nothing set. Every bad value is refused with the flag's name.
 */
import { availableParallelism } from "node:os";
import { InvalidInputError } from "../cube/errors.js";
import { parseCacheSize } from "../io/rangeCache.js";
import { parseS3Url } from "../io/s3Location.js";
import { s3Settings } from "../io/s3Settings.js";
import { IMAGE_ENCODERS, type ImageEncoder } from "../services/render/encodeImage.js";
import { type DataStoreConfig, parseDataStoreSpec } from "../store/dataStores.js";
import { checkPostgresUrl } from "../store/postgresDb.js";
import { checkRedisUrl } from "../jobs/queue/redisUrl.js";
import type { LogFormat } from "./requestLog.js";

export interface ServeConfig {
  readonly host: string;
  readonly port: number;
  /** Public base URL, no trailing slash (its path is the route prefix). */
  readonly publicUrl: string;
  readonly dataDir: string;
  /**
   * Where the metadata database is: a postgres:// URL (several API nodes may share it), or
   * undefined for the embedded SQLite file <dataDir>/strata.db. May hold a password: never print it.
   */
  readonly metadata?: string;
  readonly workers: number;
  /** Job threads started with the server, the task module and readers loaded (0: none; the readers load with the first job). */
  readonly warmWorkers: number;
  readonly jobThreads: number;
  readonly jobTimeLimitMs: number;
  readonly jobRetentionMs: number;
  readonly allowAnonymous: boolean;
  readonly dataStores: readonly DataStoreConfig[];
  readonly remoteHosts: readonly string[];
  readonly hostingRole: "rasterAnalysis" | "imageHosting";
  readonly rasterAnalysisUrl: string;
  readonly imageHostingUrl: string;
  readonly logLevel: string;
  /** Request log lines: readable text or JSON; undefined: text on a terminal, JSON otherwise. */
  readonly logFormat?: LogFormat;
  readonly samples: boolean;
  /** Threads drawing exports and answering value queries; the bulk lane gets half. */
  readonly workThreads: number;
  /** Requests that may wait for a work thread before the server answers busy. */
  readonly workQueue: number;
  /** Largest file one upload may have, in bytes. */
  readonly uploadLimitBytes: number;
  /** Bytes each non-admin user may keep in the raster store (Infinity: none). */
  readonly userQuotaBytes: number;
  /** How exportImage encodes PNG and JPEG: sharp (libvips), or the pure-JS encoders. */
  readonly imageEncoder: ImageEncoder;
  /** Keep committed rasters under this s3://bucket/prefix instead of <dataDir>/rasters. */
  readonly rasterStore?: string;
  /**
   * Hand jobs to `strata worker` processes through the BullMQ queue on this redis:// URL instead
   * of running them on this node's threads. May hold a password: print describeRedisUrl's form.
   */
  readonly queue?: string;
}

export const SERVE_OPTIONS = {
  host: { type: "string", env: "STRATA_HOST", help: "address to listen on (default 127.0.0.1)" },
  port: { type: "string", env: "STRATA_PORT", help: "port (default 8080; 0 picks a free one)" },
  "public-url": { type: "string", env: "STRATA_PUBLIC_URL", help: "base URL clients use (default http://<host>:<port>/arcgis)" },
  "data-dir": { type: "string", env: "STRATA_DATA_DIR", help: "metadata database and raster store (default ./data)" },
  metadata: {
    type: "string",
    env: "STRATA_METADATA",
    help: "keep users, tokens, items and jobs in PostgreSQL, shared by every API node: postgres://user@host:5432/db (the password from PGPASSWORD, or in the URL given through the environment variable, out of ps and shell history); default: SQLite in <data-dir>/strata.db",
  },
  workers: { type: "string", env: "STRATA_WORKERS", help: "worker threads running jobs (default: the number of cores)" },
  "warm-workers": {
    type: "string",
    env: "STRATA_WARM_WORKERS",
    help: "job threads started at once with the task module and raster readers loaded, so a job on an idle server starts without loading them (~0.35 s), at ~65 MB more at rest; 0 loads nothing ahead (default 1, at most --workers)",
  },
  "job-threads": {
    type: "string",
    env: "STRATA_JOB_THREADS",
    help: "threads (cores) one job may keep busy; context.parallelProcessingFactor asks for fewer (default: the number of cores)",
  },
  "job-time-limit": {
    type: "string",
    env: "STRATA_JOB_TIME_LIMIT",
    help: "a job running longer is esriJobTimedOut: 90m, 6h ... (default 6h)",
  },
  "job-retention": {
    type: "string",
    env: "STRATA_JOB_RETENTION",
    help: "finished jobs are forgotten after this: 12h, 7d ... (default 7d)",
  },
  "allow-anonymous": {
    type: "boolean",
    env: "STRATA_ALLOW_ANONYMOUS",
    help: "let requests without a token read public items and services",
  },
  store: {
    type: "string",
    multiple: true,
    env: "STRATA_DATA_STORES",
    help: "register a data store: fileShare:<name>=<dir> or cloudStore:<name>=<dir|https://base> (repeatable; env: ';'-separated)",
  },
  "remote-host": {
    type: "string",
    multiple: true,
    env: "STRATA_REMOTE_HOSTS",
    help: "host whose Zarr stores may be named by url (repeatable; env: ','-separated)",
  },
  "hosting-role": {
    type: "string",
    env: "STRATA_HOSTING_ROLE",
    help: "server role hosting outputs: rasterAnalysis (default) or imageHosting",
  },
  "raster-analysis-url": {
    type: "string",
    env: "STRATA_RASTER_ANALYSIS_URL",
    help: "base URL of the raster analysis role (default: the public URL)",
  },
  "image-hosting-url": {
    type: "string",
    env: "STRATA_IMAGE_HOSTING_URL",
    help: "base URL of the image hosting role (default: the public URL)",
  },
  "log-level": { type: "string", env: "STRATA_LOG_LEVEL", help: "fatal, error, warn, info (default), debug, trace or silent" },
  "log-format": {
    type: "string",
    env: "STRATA_LOG_FORMAT",
    help: "text (one readable line per request) or json (pino, one object per line); default: text on a terminal, json otherwise",
  },
  "no-samples": { type: "boolean", env: "STRATA_NO_SAMPLES", help: "do not publish the sample datasets on first start" },
  "work-threads": {
    type: "string",
    env: "STRATA_WORK_THREADS",
    help: "threads drawing exports and answering identify/samples/statistics; uploads and large exports get half as many more, and NetCDF downloads another half (default: the number of cores)",
  },
  "work-queue": {
    type: "string",
    env: "STRATA_WORK_QUEUE",
    help: "requests that may wait for a work thread; past it the server answers 503 busy with Retry-After (default 512; large work: 1/16 of it)",
  },
  "upload-limit": { type: "string", env: "STRATA_UPLOAD_LIMIT", help: "largest file one upload may have: 500M, 2G ... (default 2G)" },
  "user-quota": {
    type: "string",
    env: "STRATA_USER_QUOTA",
    help: "raster storage each non-admin user may use: 10G, 1T ... or none (default 20G)",
  },
  "image-encoder": {
    type: "string",
    env: "STRATA_IMAGE_ENCODER",
    help: "how exportImage encodes PNG and JPEG: sharp (libvips, the default; the js encoders if it cannot load) or js",
  },
  "raster-store": {
    type: "string",
    env: "STRATA_RASTER_STORE",
    help: "keep rasters on S3 or an S3-compatible server: s3://bucket/prefix (endpoint from AWS_ENDPOINT_URL, credentials and region from the usual AWS variables; reads go through a local cache of STRATA_RASTER_CACHE_SIZE per thread, default 512M, in STRATA_RASTER_CACHE_DIR); default: <data-dir>/rasters",
  },
  queue: {
    type: "string",
    env: "STRATA_QUEUE",
    help: "hand jobs to strata worker processes through the job queue on this Redis: redis://host:6379 (a password in the URL is best given through the environment variable); default: jobs run on this server's threads",
  },
} as const;

type Values = {
  [K in keyof typeof SERVE_OPTIONS]?: (typeof SERVE_OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof SERVE_OPTIONS)[K]["type"] extends "boolean"
      ? boolean
      : string;
};

/**
 * @example
 * resolveServeConfig({ port: "0" }, {}) // { host: "127.0.0.1", port: 0, ... }
 */
export function resolveServeConfig(flags: Values, env: Record<string, string | undefined>): ServeConfig {
  const get = (name: keyof typeof SERVE_OPTIONS): string | undefined => {
    const flag = flags[name];
    if (typeof flag === "string") return flag;
    if (typeof flag === "boolean") return String(flag);
    return env[SERVE_OPTIONS[name].env] || undefined;
  };
  const list = (name: "store" | "remote-host", sep: string): string[] => {
    const flag = flags[name] as string[] | undefined;
    const fromEnv = (env[SERVE_OPTIONS[name].env] ?? "")
      .split(sep)
      .map((s) => s.trim())
      .filter(Boolean);
    return [...fromEnv, ...(flag ?? [])];
  };
  const host = get("host") ?? "127.0.0.1";
  const port = integer(get("port") ?? "8080", "port", 0, 65535);
  const publicUrl = url(get("public-url") ?? `http://${host.includes(":") ? `[${host}]` : host}:${port}/arcgis`, "public-url");
  const role = get("hosting-role") ?? "rasterAnalysis";
  if (role !== "rasterAnalysis" && role !== "imageHosting")
    throw new InvalidInputError(`--hosting-role must be rasterAnalysis or imageHosting; got "${role}"`, { parameter: "hosting-role" });
  const level = get("log-level") ?? "info";
  if (!["fatal", "error", "warn", "info", "debug", "trace", "silent"].includes(level)) {
    throw new InvalidInputError(`--log-level must be fatal, error, warn, info, debug, trace or silent; got "${level}"`, {
      parameter: "log-level",
    });
  }
  const imageEncoder = get("image-encoder") ?? "sharp";
  if (!(IMAGE_ENCODERS as readonly string[]).includes(imageEncoder))
    throw new InvalidInputError(`--image-encoder must be sharp or js; got "${imageEncoder}"`, { parameter: "image-encoder" });
  const metadata = get("metadata");
  if (metadata !== undefined) checkPostgresUrl(metadata, "metadata");
  const rasterStore = get("raster-store");
  if (rasterStore !== undefined) checkRasterStore(rasterStore, env);
  const queue = get("queue");
  if (queue !== undefined) checkRedisUrl(queue, "queue");
  const workers = integer(get("workers") ?? String(availableParallelism()), "workers", 1, 256);
  const logFormat = get("log-format");
  if (logFormat !== undefined && logFormat !== "text" && logFormat !== "json")
    throw new InvalidInputError(`--log-format must be text or json; got "${logFormat}"`, { parameter: "log-format" });
  return {
    host,
    port,
    publicUrl,
    dataDir: get("data-dir") ?? "./data",
    ...(metadata === undefined ? {} : { metadata }),
    workers,
    warmWorkers: integer(get("warm-workers") ?? "1", "warm-workers", 0, workers),
    jobThreads: integer(get("job-threads") ?? String(availableParallelism()), "job-threads", 1, 256),
    jobTimeLimitMs: duration(get("job-time-limit") ?? "6h", "job-time-limit"),
    jobRetentionMs: duration(get("job-retention") ?? "7d", "job-retention"),
    allowAnonymous: boolean(get("allow-anonymous"), "allow-anonymous"),
    dataStores: list("store", ";").map(parseDataStoreSpec),
    remoteHosts: list("remote-host", ","),
    hostingRole: role,
    rasterAnalysisUrl: url(get("raster-analysis-url") ?? publicUrl, "raster-analysis-url"),
    imageHostingUrl: url(get("image-hosting-url") ?? publicUrl, "image-hosting-url"),
    logLevel: level,
    logFormat,
    samples: !boolean(get("no-samples"), "no-samples"),
    workThreads: integer(get("work-threads") ?? String(availableParallelism()), "work-threads", 1, 256),
    workQueue: integer(get("work-queue") ?? "512", "work-queue", 16, 100_000),
    uploadLimitBytes: bytes(get("upload-limit") ?? "2G", "upload-limit"),
    userQuotaBytes: bytes(get("user-quota") ?? "20G", "user-quota"),
    imageEncoder: imageEncoder as ImageEncoder,
    ...(rasterStore === undefined ? {} : { rasterStore }),
    ...(queue === undefined ? {} : { queue }),
  };
}

/** An s3:// URL, and the environment S3 needs, checked before anything starts. */
function checkRasterStore(text: string, env: Record<string, string | undefined>): void {
  try {
    parseS3Url(text);
    s3Settings(env);
    if (env.STRATA_RASTER_CACHE_SIZE) parseCacheSize(env.STRATA_RASTER_CACHE_SIZE);
  } catch (e) {
    if (e instanceof InvalidInputError) throw new InvalidInputError(`--raster-store: ${e.message}`, { parameter: "raster-store" });
    throw e;
  }
}

function integer(text: string, name: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new InvalidInputError(`--${name} must be a whole number from ${min} to ${max}; got "${text}"`, { parameter: name });
  return n;
}

function boolean(text: string | undefined, name: string): boolean {
  if (text === undefined || text === "") return false;
  const t = text.toLowerCase();
  if (["true", "1", "yes"].includes(t)) return true;
  if (["false", "0", "no"].includes(t)) return false;
  throw new InvalidInputError(`--${name} must be true or false; got "${text}"`, { parameter: name });
}

function url(text: string, name: string): string {
  try {
    const u = new URL(text);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    return u.href.replace(/\/+$/, "");
  } catch {
    throw new InvalidInputError(`--${name} must be an http(s) URL; got "${text}"`, { parameter: name });
  }
}

const BYTE_UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** "500M", "2G", "1.5T", a number of bytes; "none" for no limit. */
export function bytes(text: string, name: string): number {
  if (/^(none|unlimited|infinity)$/i.test(text.trim())) return Infinity;
  const m = text.trim().match(/^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i);
  if (!m || Number(m[1]) <= 0)
    throw new InvalidInputError(`--${name} must be a size such as 500M, 2G or 1T, or none; got "${text}"`, { parameter: name });
  return Math.round(Number(m[1]) * BYTE_UNITS[m[2].toLowerCase()]);
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90m", "6h", "7d", "30s", or a number of minutes; "none" for no limit. */
export function duration(text: string, name: string): number {
  if (/^(none|never|infinity)$/i.test(text.trim())) return Infinity;
  const m = text.trim().match(/^(\d+(?:\.\d+)?)\s*([smhd]?)$/i);
  if (!m || Number(m[1]) <= 0)
    throw new InvalidInputError(`--${name} must be a duration such as 90m, 6h or 7d; got "${text}"`, { parameter: name });
  return Number(m[1]) * UNITS[(m[2] || "m").toLowerCase()];
}
