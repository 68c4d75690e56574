/**
 * The raster store: where datasets live, written then committed so that a reader sees a
 * dataset whole or not at all, and removed atomically. Two kinds, one interface:
 *
 * - local (the default): datasets under `<dataDir>/rasters/<id>`, written in
 *   `<dataDir>/rasters/.pending/<id>` and renamed into place on commit. Removal renames into
 *   `<dataDir>/rasters/.trash/` first, so it is atomic too. Ids never start with "." (see
 *   datasetId.ts), so the two work directories can never be mistaken for datasets.
 * - S3 (`strata serve --raster-store s3://bucket/prefix`, s3RasterStore.ts): written in the
 *   same local pending directory, uploaded on commit, made visible by one final put.
 *
 * A data directory remembers which kind its server opened (`rasters/store.json`, no secrets
 * in it), so that the job and work threads attaching to it (`sweep: false`) write where the
 * server reads without being told. In a cluster (API nodes with --queue, strata workers)
 * every process joins the binding instead (`binding: "join"`): it writes the file when it is
 * absent and refuses to start (StoreBindingError) when it names another store.
 */

import { randomUUID } from "node:crypto";
import { link, mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve as resolvePath } from "node:path";
import { CorruptDataError, InvalidInputError, NotFoundError } from "../cube/errors.js";
import { parseS3Url, s3Url } from "../io/s3Location.js";
import { datasetIdTime, isDatasetId, newDatasetId } from "./datasetId.js";
import { fsyncDir } from "./fsyncDir.js";
import { type PendingDataset, pendingDataset } from "./pendingDataset.js";

export { newDatasetId, isDatasetId } from "./datasetId.js";
export type { PendingDataset } from "./pendingDataset.js";

/** Where the server keeps everything unless configured otherwise (the CLI applies it). */
export const DEFAULT_DATA_DIR = "./data";

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
  /** Absolute data directory (pending datasets and scratch live under it, whatever the kind). */
  readonly dataDir: string;
  /** Where committed datasets live, for operators: a directory, or an s3:// URL (never a secret). */
  readonly location: string;
  /** What the sweep at open removed (empty when opened with `sweep: false`). */
  readonly swept: SweepReport;
  begin(): Promise<PendingDataset>;
  /**
   * Location of committed dataset `id` (io/s3Location.ts's DatasetLocation: an absolute path,
   * or the s3:// URL of its prefix), for io/open.ts; NotFoundError if malformed or absent.
   */
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
  /** Stop background work (the S3 store's periodic sweep). */
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Sweep leftovers at open (default true). Pass false when attaching to a store another
   * process or thread already opened, whose writers may be mid-way.
   */
  readonly sweep?: boolean;
  /**
   * Keep committed datasets on S3 under this `s3://bucket/prefix` instead of the data
   * directory. Undefined: whatever the data directory's server chose (when attaching), or
   * local (when opening as the server).
   */
  readonly remote?: string;
  /** S3 only: how long an uncommitted prefix must have been idle before a sweep removes it (default 1 h). */
  readonly sweepGraceMs?: number;
  /**
   * What this opener does with `rasters/store.json`, the directory's record of where its
   * rasters are:
   * - "own" (the default when sweeping): the only server on the directory; it writes the
   *   record (S3) or removes it (local), so a restart may switch stores.
   * - "join": one process of several sharing the directory (an API node with a queue, a
   *   strata worker); `remote` is what it was started with. It writes the record when there
   *   is none and `remote` is set, and throws StoreBindingError when the record names another
   *   store (or names one and `remote` is unset). S3's bucket is checked as "own" checks it.
   * - "attach" (the default when not sweeping): a thread of a process that opened the store;
   *   it reads the record (`remote` unset) and never writes it.
   */
  readonly binding?: "own" | "join" | "attach";
}

/**
 * A process joining a data directory was started with another raster store than the one the
 * directory is bound to. `bound` and `asked` are s3:// URLs, or undefined for local files.
 */
export class StoreBindingError extends InvalidInputError {
  constructor(
    readonly file: string,
    readonly bound: string | undefined,
    readonly asked: string | undefined,
  ) {
    super(
      `the data directory's rasters are ${bound === undefined ? "local files" : `on ${bound}`} (${file}), ` +
        `not ${asked === undefined ? "local files" : `on ${asked}`}`,
      { parameter: "raster-store" },
    );
  }
}

/** The file that says where a data directory's rasters are: `{"url":"s3://..."}`, absent for local. */
const BINDING = "store.json";

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
  const binding = join(absDataDir, "rasters", BINDING);
  const sweep = options.sweep !== false;
  const mode = options.binding ?? (sweep ? "own" : "attach");
  const remote = mode === "attach" ? (options.remote ?? (await boundRemote(binding))) : options.remote;
  // Refused before anything is touched: a joining process must not start on the wrong store.
  if (mode === "join") await joinBinding(binding, remote === undefined ? undefined : s3Url(parseS3Url(remote)));
  if (remote !== undefined) {
    const { openS3RasterStore } = await import("./s3RasterStore.js");
    const store = await openS3RasterStore(absDataDir, remote, {
      sweep,
      check: mode !== "attach",
      ...(options.sweepGraceMs === undefined ? {} : { graceMs: options.sweepGraceMs }),
    });
    if (mode === "own") await writeFile(binding, JSON.stringify({ url: store.location }) + "\n");
    return store;
  }
  if (mode === "own") await rm(binding, { force: true });
  return openLocalRasterStore(absDataDir, options);
}

/**
 * Bind the directory to `url` (undefined: local files) unless it is bound already, then check
 * that it is bound to `url`. The record is made whole aside and linked into place, so two
 * processes starting at once never read half of it and the second finds the first's.
 */
async function joinBinding(binding: string, url: string | undefined): Promise<void> {
  if (url !== undefined) {
    await mkdir(join(binding, ".."), { recursive: true });
    // Unique within the process too: two opens in one millisecond shared a draft, and the
    // first to finish removed it before the second linked it.
    const draft = `${binding}.${process.pid}.${randomUUID()}`;
    await writeFile(draft, JSON.stringify({ url }) + "\n");
    try {
      await link(draft, binding);
    } catch (err) {
      if (errnoCode(err) !== "EEXIST") throw err;
    } finally {
      await rm(draft, { force: true });
    }
  }
  const bound = await boundRemote(binding);
  if (bound !== url) throw new StoreBindingError(binding, bound, url);
}

async function boundRemote(binding: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(binding, "utf8");
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    throw err;
  }
  const url = (JSON.parse(text) as { url?: unknown }).url;
  if (typeof url !== "string") throw new CorruptDataError(`${binding} does not say where the rasters are`);
  return url;
}

async function openLocalRasterStore(absDataDir: string, options: OpenOptions): Promise<RasterStore> {
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
    const pending = await sweepLocalPending(pendingDir, sweepOptions.olderThanMs ?? 0);
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
    const finalPath = join(root, id);
    return pendingDataset(
      id,
      path,
      () => renameIntoPlace(id, path, finalPath, root),
      () => rm(path, { recursive: true, force: true }),
    );
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
    location: root,
    swept,
    begin,
    resolve,
    list,
    remove,
    sweepPending,
    discardPending,
    close: async () => {},
  };
}

async function renameIntoPlace(id: string, path: string, finalPath: string, root: string): Promise<string> {
  try {
    await fsyncDir(path);
    await rename(path, finalPath);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") {
      throw new NotFoundError(`Dataset ${id} can no longer be committed: its pending directory is gone (swept or aborted).`);
    }
    throw err;
  }
  await fsyncDir(root);
  return finalPath;
}

/**
 * Remove the local pending datasets under `pendingDir` begun at least `olderThanMs` ago (by
 * the time in their id; names we did not make are junk whatever their age); their names.
 * Every store writes datasets locally first, so every store's sweep starts here.
 */
export async function sweepLocalPending(pendingDir: string, olderThanMs: number): Promise<string[]> {
  const now = Date.now();
  const pending: string[] = [];
  for (const name of await listNames(pendingDir)) {
    const began = datasetIdTime(name);
    if (began !== undefined && now - began < olderThanMs) continue;
    await rm(join(pendingDir, name), { recursive: true, force: true });
    pending.push(name);
  }
  return pending;
}

export async function listNames(dir: string): Promise<string[]> {
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
export function describeId(id: string): string {
  return JSON.stringify(id.length > 64 ? id.slice(0, 64) + "…" : id);
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}
