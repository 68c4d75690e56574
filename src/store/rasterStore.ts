/**
 * The raster store: datasets under `<dataDir>/rasters/<id>`, written in
 * `<dataDir>/rasters/.pending/<id>` and renamed into place on commit, so a reader sees a
 * dataset whole or not at all. Removal renames into `<dataDir>/rasters/.trash/` first, so
 * it is atomic too. Ids never start with "." (see datasetId.ts), so the two work
 * directories can never be mistaken for datasets.
 */

import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join, resolve as resolvePath } from "node:path";
import { NotFoundError } from "../cube/errors.js";
import { datasetIdTime, isDatasetId, newDatasetId } from "./datasetId.js";
import { fsyncDir } from "./fsyncDir.js";

export { newDatasetId, isDatasetId } from "./datasetId.js";

/** Where the server keeps everything unless configured otherwise (the CLI applies it). */
export const DEFAULT_DATA_DIR = "./data";

/** A dataset being written: invisible until `commit()`. */
export interface PendingDataset {
  readonly id: string;
  /** Directory to write into (e.g. the Zarr store root). */
  readonly path: string;
  /** Atomically publish the dataset; resolves to its final path. Idempotent. */
  commit(): Promise<string>;
  /** Delete what was written. Idempotent; a no-op once committed (use `remove(id)` then). */
  abort(): Promise<void>;
}

/** Names removed by a sweep. */
export interface SweepReport {
  /** Uncommitted datasets (ids, or stray names) left by a crash or a lost writer. */
  readonly pending: string[];
  /** Removals that were renamed away but not yet deleted. */
  readonly trash: string[];
}

export interface SweepOptions {
  /**
   * Only sweep pending datasets begun at least this long ago (by the time in their id).
   * Default 0: everything, which is right at start-up and wrong while writers are running.
   */
  readonly olderThanMs?: number;
}

export interface RasterStore {
  /** Absolute data directory. */
  readonly dataDir: string;
  /** What the sweep at open removed (empty when opened with `sweep: false`). */
  readonly swept: SweepReport;
  begin(): Promise<PendingDataset>;
  /** Absolute path of committed dataset `id`; NotFoundError if malformed or absent. */
  resolve(id: string): Promise<string>;
  /** Ids of committed datasets, oldest first. */
  list(): Promise<string[]>;
  /** Atomically delete committed dataset `id`; NotFoundError if malformed or absent. */
  remove(id: string): Promise<void>;
  sweepPending(options?: SweepOptions): Promise<SweepReport>;
  /**
   * Delete the uncommitted dataset `id`, begun elsewhere (another thread whose writer died).
   * A no-op if it is gone or was committed.
   */
  discardPending(id: string): Promise<void>;
}

export interface OpenOptions {
  /**
   * Sweep leftovers at open (default true). Pass false when attaching to a store another
   * process or thread already opened, whose writers may be mid-way.
   */
  readonly sweep?: boolean;
}

/**
 * Open (creating if needed) the raster store under `dataDir`.
 *
 * @example
 * const store = await openRasterStore("./data");
 * const pending = await store.begin();
 * try {
 *   await writeZarr(pending.path, cube);
 *   const path = await pending.commit(); // now visible to list() and resolve()
 * } catch (err) {
 *   await pending.abort();
 *   throw err;
 * }
 */
export async function openRasterStore(dataDir: string, options: OpenOptions = {}): Promise<RasterStore> {
  const absDataDir = resolvePath(dataDir);
  const root = join(absDataDir, "rasters");
  const pendingDir = join(root, ".pending");
  const trashDir = join(root, ".trash");
  await mkdir(pendingDir, { recursive: true });
  await mkdir(trashDir, { recursive: true });

  const datasetPath = (id: string): string => {
    if (!isDatasetId(id)) throw new NotFoundError(`No dataset ${describeId(id)} in the raster store.`);
    return join(root, id);
  };

  const sweepPending = async (sweepOptions: SweepOptions = {}): Promise<SweepReport> => {
    const olderThanMs = sweepOptions.olderThanMs ?? 0;
    const now = Date.now();
    const pending: string[] = [];
    for (const name of await listNames(pendingDir)) {
      const began = datasetIdTime(name);
      // Names we did not make are junk whatever their age.
      if (began !== undefined && now - began < olderThanMs) continue;
      await rm(join(pendingDir, name), { recursive: true, force: true });
      pending.push(name);
    }
    const trash: string[] = [];
    for (const name of await listNames(trashDir)) {
      await rm(join(trashDir, name), { recursive: true, force: true });
      trash.push(name);
    }
    return { pending, trash };
  };

  const begin = async (): Promise<PendingDataset> => {
    const id = newDatasetId();
    const path = join(pendingDir, id);
    await mkdir(pendingDir, { recursive: true });
    await mkdir(path); // not recursive: an existing directory would be a bug, so fail loudly
    return pendingDataset(id, path, join(root, id), root);
  };

  const resolve = async (id: string): Promise<string> => {
    const path = datasetPath(id);
    if (!(await isDirectory(path))) {
      throw new NotFoundError(`No dataset ${describeId(id)} in the raster store.`);
    }
    return path;
  };

  const list = async (): Promise<string[]> => {
    const entries = await readdir(root, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && isDatasetId(e.name))
      .map((e) => e.name)
      .sort();
  };

  const remove = async (id: string): Promise<void> => {
    const path = datasetPath(id);
    const trashed = join(trashDir, newDatasetId());
    await mkdir(trashDir, { recursive: true });
    try {
      await rename(path, trashed);
    } catch (err) {
      if (errnoCode(err) === "ENOENT") {
        throw new NotFoundError(`No dataset ${describeId(id)} in the raster store.`);
      }
      throw err;
    }
    await fsyncDir(root);
    // The dataset is gone from view; if deleting the bytes fails, the next sweep retries.
    await rm(trashed, { recursive: true, force: true }).catch(() => undefined);
  };

  const discardPending = async (id: string): Promise<void> => {
    if (!isDatasetId(id)) throw new NotFoundError(`No dataset ${describeId(id)} in the raster store.`);
    await rm(join(pendingDir, id), { recursive: true, force: true });
  };

  const swept = options.sweep === false ? { pending: [], trash: [] } : await sweepPending();

  return {
    dataDir: absDataDir,
    swept,
    begin,
    resolve,
    list,
    remove,
    sweepPending,
    discardPending,
  };
}

function pendingDataset(id: string, path: string, finalPath: string, root: string): PendingDataset {
  let state: "open" | "committed" | "aborted" = "open";
  let committing: Promise<string> | undefined;

  const doCommit = async (): Promise<string> => {
    try {
      await fsyncDir(path);
      await rename(path, finalPath);
    } catch (err) {
      if (errnoCode(err) === "ENOENT") {
        state = "aborted";
        throw new NotFoundError(`Dataset ${id} can no longer be committed: its pending directory is gone (swept or aborted).`);
      }
      throw err;
    }
    await fsyncDir(root);
    state = "committed";
    return finalPath;
  };

  return {
    id,
    path,
    commit() {
      if (state === "aborted") {
        return Promise.reject(new Error(`Dataset ${id} was aborted and cannot be committed.`));
      }
      // A failed commit may be retried; a successful one is remembered.
      committing ??= doCommit().catch((err: unknown) => {
        committing = undefined;
        throw err;
      });
      return committing;
    },
    async abort() {
      if (committing) await committing.catch(() => undefined);
      if (state === "committed") return;
      state = "aborted";
      await rm(path, { recursive: true, force: true });
    },
  };
}

async function listNames(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return [];
    throw err;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (err) {
    if (errnoCode(err) === "ENOENT" || errnoCode(err) === "ENOTDIR") return false;
    throw err;
  }
}

// Ids come from users: quote them, and keep a hostile one from flooding the message.
function describeId(id: string): string {
  return JSON.stringify(id.length > 64 ? id.slice(0, 64) + "…" : id);
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}
