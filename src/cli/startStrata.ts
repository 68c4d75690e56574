/**
 * Start a whole Strata server: metadata database, raster store, data stores, the job
 * service with its worker threads, the web server; on first start, the admin and the sample
 * services. The composition root: the only place that knows every layer.
 */
import { mkdir, readdir } from "node:fs/promises";
import { createServer } from "node:net";
import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { buildServer } from "../http/app.js";
import type { AppContext } from "../http/context.js";
import { openCube, warmReaders } from "../io/open.js";
import { type JobService, createJobService } from "../jobs/executor.js";
import { getItemByServiceName, shareItem } from "../portal/items.js";
import { migratePortal } from "../portal/schema.js";
import { ensureInitialAdmin } from "../portal/users.js";
import { datasetCache } from "../services/datasets.js";
import { imageCache } from "../services/imageCache.js";
import { jobOutputs } from "../services/jobOutputs.js";
import { publishOutput } from "../services/publish.js";
import { loadSharp } from "../services/render/sharpImage.js";
import { createWorkPool } from "../services/work/pool.js";
import type { ServerUrls } from "../services/urls.js";
import { createDataStoreRegistry } from "../store/dataStores.js";
import { type MetadataDatabase, type MetadataDb, openMetadataDb } from "../store/metadataDb.js";
import { nodeName, openNodeScratch } from "../store/nodeScratch.js";
import type { RasterStore } from "../store/rasterStore.js";
import { TASKS } from "../tasks/registry.js";
import { copyIntoStore } from "../tasks/subset.js";
import { openConfiguredRasterStore } from "./rasterStoreFlag.js";
import type { ServeConfig } from "./serveConfig.js";
import { redactSecrets, redactValue } from "../http/logRedaction.js";

export interface RunningStrata {
  /** Public base URL. */
  readonly url: string;
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  /** The first start's admin password, when this start created the admin. */
  readonly adminPassword?: string;
  readonly server: FastifyInstance;
  readonly jobs: JobService;
  readonly db: MetadataDatabase;
  readonly store: RasterStore;
  /** This node's scratch directory (downloads and uploads being written), under `<data dir>/tmp`. */
  readonly scratchDir: string;
  /** Graceful stop: no new requests, running jobs handed back to the queue. */
  close(): Promise<void>;
}

/** samples/ at the project root: two levels up from src/cli, three from dist/src/cli. */
const SAMPLES_DIRS = ["../../samples/", "../../../samples/"].map((p) => fileURLToPath(new URL(p, import.meta.url)));
/** Memory for rendered exportImage responses (a 512×512 PNG is about 100 KB). */
const IMAGE_CACHE_BYTES = 64 * 1024 * 1024;
/** Exports past this many pixels (2048², ~100 MB to draw) run on the bulk lane, off the small ones' threads. */
const BULK_EXPORT_PIXELS = 2048 * 2048;
/** Workers import the task runner from sources under tsx, from dist/ when compiled. */
const WORKER_MODULE = new URL(`../tasks/worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * @example
 * const strata = await startStrata(resolveServeConfig({ port: "0", "data-dir": dir }, {}));
 * // ... strata.url
 * await strata.close();
 */
export async function startStrata(requested: ServeConfig, options: { logger?: boolean | object } = {}): Promise<RunningStrata> {
  const config = await withConcretePort(requested);
  await mkdir(config.dataDir, { recursive: true });
  const db = await openMetadataDb(config.metadata ?? join(config.dataDir, "strata.db"));
  try {
    return await startOn(db, config, options);
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

async function startOn(db: MetadataDatabase, config: ServeConfig, options: { logger?: boolean | object }): Promise<RunningStrata> {
  await migratePortal(db);
  // With a queue, workers write pending datasets under the same data directory: no sweep at
  // start, and the directory's store is the cluster's (joined, not owned).
  const store = await openConfiguredRasterStore(config, config.queue ? "join" : "own");
  // Downloads and uploads are written to scratch files first; a crash leaves them behind. The
  // data directory may be shared with other API nodes: only this node's are cleared at once.
  const scratchDir = await openNodeScratch(store.dataDir, nodeName(config.port));
  const dataStores = createDataStoreRegistry([...config.dataStores]);
  const adminPassword = await ensureInitialAdmin(db);
  const publicPath = new URL(config.publicUrl).pathname.replace(/\/$/, "");
  const urls: ServerUrls = {
    base: config.publicUrl,
    hosting: config.hostingRole === "imageHosting" ? config.imageHostingUrl : config.rasterAnalysisUrl,
  };

  // Job messages can quote what a client sent (a URL with its token): scrubbed like requests.
  const log = (message: string, error?: unknown): void =>
    console.error(`[jobs] ${redactSecrets(message)}`, ...(error === undefined ? [] : [redactValue(error)]));
  const jobs = config.queue
    ? await (await import("../jobs/queue/apiNode.js")).queuedJobService(db, config.queue, config.jobRetentionMs, log)
    : createJobService({
        db,
        workerModule: WORKER_MODULE,
        workers: config.workers,
        // Ready with the task module and the readers loaded: a job on an idle server starts at once.
        warmWorkers: config.warmWorkers,
        threadsPerJob: config.jobThreads,
        timeLimitMs: config.jobTimeLimitMs,
        retentionMs: config.jobRetentionMs,
        log,
        // Publishing a run's output; a run that did not succeed leaves nothing.
        ...jobOutputs(db, store, urls),
      });
  await jobs.recover();

  if (adminPassword && config.samples) await publishSamples(db, store, urls);

  // Loaded here, on the main thread, before any work thread: libvips must outlive the threads
  // that use it (sharpImage.ts); and a failure to load is said once, below.
  const sharp = config.imageEncoder === "sharp" ? await loadSharp() : undefined;
  const datasets = datasetCache(store);
  const work = createWorkPool({
    imageEncoder: config.imageEncoder,
    quickThreads: config.workThreads,
    bulkThreads: Math.max(1, Math.floor(config.workThreads / 2)),
    quickQueue: config.workQueue,
    bulkQueue: Math.max(4, Math.floor(config.workQueue / 16)),
  });
  const ctx: AppContext = {
    basePath: publicPath,
    urls,
    db,
    store,
    scratchDir,
    dataStores,
    datasets,
    images: imageCache(IMAGE_CACHE_BYTES),
    work,
    limits: { uploadBytes: config.uploadLimitBytes, quotaBytes: config.userQuotaBytes, bulkExportPixels: BULK_EXPORT_PIXELS },
    jobs,
    tasks: TASKS,
    allowAnonymous: config.allowAnonymous,
    allowedHosts: config.remoteHosts,
    maximumRecords: 1000,
  };
  const server = await buildServer(ctx, { logger: options.logger ?? { level: config.logLevel } });
  if (sharp && !sharp.ok)
    server.log.warn(`sharp could not load (${sharp.reason}): PNG and JPEG are encoded by the slower pure-JavaScript encoders`);
  await server.listen({ host: config.host, port: config.port });
  // Submits open their inputs on this thread to check them: the first should not wait for the
  // readers (the HDF5 library) to load. A reader that cannot load fails the opens that need it.
  if (config.warmWorkers > 0)
    warmReaders().catch((e: unknown) => server.log.warn(`the raster readers could not be loaded ahead: ${String(e)}`));
  let closed = false;
  return {
    url: config.publicUrl,
    port: config.port,
    adminPassword,
    server,
    jobs,
    db,
    store,
    scratchDir,
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      await jobs.close();
      await work.close();
      await datasets.close();
      await store.close();
      await db.close();
    },
  };
}

/**
 * Port 0 means "any free port"; the URLs the server hands out (owningSystemUrl, service
 * URLs) must name the real one, so it is chosen before anything is built.
 */
async function withConcretePort(config: ServeConfig): Promise<ServeConfig> {
  if (config.port !== 0) return config;
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, config.host, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  const swap = (u: string) => u.replace(/^(https?:\/\/[^/]*):0(?=\/|$)/, `$1:${port}`);
  return {
    ...config,
    port,
    publicUrl: swap(config.publicUrl),
    rasterAnalysisUrl: swap(config.rasterAnalysisUrl),
    imageHostingUrl: swap(config.imageHostingUrl),
  };
}

/** Publish each sample raster shipped in samples/ as a public service owned by the admin. */
async function publishSamples(db: MetadataDb, store: RasterStore, urls: ServerUrls): Promise<void> {
  let dir = "";
  let files: string[] = [];
  for (const candidate of SAMPLES_DIRS) {
    files = (await readdir(candidate).catch(() => [] as string[])).filter((f) => f.endsWith(".nc")).sort();
    dir = candidate;
    if (files.length) break;
  }
  for (const file of files) {
    const name = basename(file, extname(file));
    if (await getItemByServiceName(db, name)) continue;
    const cube = await openCube(join(dir, file));
    let datasetId: string;
    try {
      datasetId = await copyIntoStore(store, cube);
    } finally {
      await cube.close();
    }
    const title = String(cube.attributes.title ?? name);
    const { itemId } = await publishOutput(
      db,
      store,
      urls,
      { kind: "create", serviceName: name, itemProperties: { title, tags: ["sample"] } },
      "admin",
      datasetId,
    );
    await shareItem(db, itemId, "public");
  }
}
