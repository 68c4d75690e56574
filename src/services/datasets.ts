/**
 * Open cubes of committed datasets, kept open in a small LRU so that every request to an
 * image service does not reopen its store. A dataset id names immutable data (updates make
 * a new dataset), so entries never go stale; evicted cubes are closed.
 */
import type { Statistics } from "../analysis/statistics.js";
import type { Cube } from "../cube/types.js";
import { openCube } from "../io/open.js";
import type { RasterStore } from "../store/rasterStore.js";

export interface OpenDataset {
  readonly cube: Cube;
  readonly statistics: Readonly<Record<string, Statistics | null>>;
}

export interface DatasetCache {
  open(datasetId: string): Promise<OpenDataset>;
  close(): Promise<void>;
}

/**
 * @example
 * const cache = datasetCache(store, 32);
 * const { cube, statistics } = await cache.open(item.properties.datasetId);
 */
export function datasetCache(store: RasterStore, capacity = 32): DatasetCache {
  const entries = new Map<string, Promise<OpenDataset>>();
  return {
    async open(id) {
      const hit = entries.get(id);
      if (hit) {
        entries.delete(id);
        entries.set(id, hit);
        return hit;
      }
      const opening = (async () => {
        const cube = await openCube(await store.resolve(id), `dataset ${id}`);
        const statistics = (cube.attributes["strata:statistics"] ?? {}) as Record<string, Statistics | null>;
        return { cube, statistics };
      })();
      entries.set(id, opening);
      opening.catch(() => entries.delete(id));
      while (entries.size > capacity) {
        const [oldest, value] = entries.entries().next().value as [string, Promise<OpenDataset>];
        entries.delete(oldest);
        void value.then((d) => d.cube.close()).catch(() => undefined);
      }
      return opening;
    },
    async close() {
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(all.map((p) => p.then((d) => d.cube.close()).catch(() => undefined)));
    },
  };
}
