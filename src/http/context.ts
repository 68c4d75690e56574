/** What the HTTP layer works with: configuration and the services below it. */
import type { JobService } from "../jobs/executor.js";
import type { DataStoreRegistry } from "../store/dataStores.js";
import type { MetadataDb } from "../store/metadataDb.js";
import type { RasterStore } from "../store/rasterStore.js";
import type { DatasetCache } from "../services/datasets.js";
import type { ImageCache } from "../services/imageCache.js";
import type { ServerUrls } from "../services/urls.js";
import type { TaskDefinition } from "../tasks/types.js";

export interface AppContext {
  /** Path prefix of every route, e.g. "/arcgis". */
  readonly basePath: string;
  readonly urls: ServerUrls;
  readonly db: MetadataDb;
  readonly store: RasterStore;
  readonly dataStores: DataStoreRegistry;
  readonly datasets: DatasetCache;
  /** Rendered exportImage responses. */
  readonly images: ImageCache;
  readonly jobs: JobService;
  readonly tasks: ReadonlyMap<string, TaskDefinition>;
  readonly allowAnonymous: boolean;
  readonly allowedHosts: readonly string[];
  readonly maximumRecords: number;
}
