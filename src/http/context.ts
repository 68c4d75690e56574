/** What the HTTP layer works with: configuration and the services below it. */
import type { JobService } from "../jobs/executor.js";
import type { DataStoreRegistry } from "../store/dataStores.js";
import type { MetadataDb } from "../store/metadataDb.js";
import type { RasterStore } from "../store/rasterStore.js";
import type { DatasetCache } from "../services/datasets.js";
import type { ImageCache } from "../services/imageCache.js";
import type { ServerUrls } from "../services/urls.js";
import type { WorkPool } from "../services/work/pool.js";
import type { TaskDefinition } from "../tasks/types.js";

export interface AppContext {
  /** Path prefix of every route, e.g. "/arcgis". */
  readonly basePath: string;
  readonly urls: ServerUrls;
  readonly db: MetadataDb;
  readonly store: RasterStore;
  /** This server's own scratch directory (store/nodeScratch.ts): downloads and uploads being written. */
  readonly scratchDir: string;
  readonly dataStores: DataStoreRegistry;
  readonly datasets: DatasetCache;
  /** Rendered exportImage responses. */
  readonly images: ImageCache;
  /** Threads for what a request computes over many pixels or bytes (the event loop only routes). */
  readonly work: WorkPool;
  readonly limits: RequestLimits;
  readonly jobs: JobService;
  readonly tasks: ReadonlyMap<string, TaskDefinition>;
  readonly allowAnonymous: boolean;
  readonly allowedHosts: readonly string[];
  readonly maximumRecords: number;
}

/** What bounds a request's resources (serve flags, docs/security.md). */
export interface RequestLimits {
  /** Largest file one upload may have. */
  readonly uploadBytes: number;
  /** Bytes each non-admin user may keep in the raster store (Infinity: no quota). */
  readonly quotaBytes: number;
  /** Exports larger than this many pixels run on the bulk lane. */
  readonly bulkExportPixels: number;
}
