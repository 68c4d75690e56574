/**
 * A server's scratch files (downloads being written, uploads being received) live under
 * `<dataDir>/tmp/<node>`, one directory per server, so that servers sharing a data directory
 * (several API nodes) never clear each other's files. At start a server empties its own
 * directory (what a crash of the same node left) and removes the other entries of `tmp/`
 * in which nothing has changed for `staleMs` (a node that never came back, or files of a
 * version that wrote straight into `tmp/`); a live node's files are never that old.
 */
import { hostname } from "node:os";
import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** Scratch untouched this long belongs to no live request (a day: far past any download or upload). */
export const STALE_SCRATCH_MS = 24 * 3600_000;

export interface NodeScratchOptions {
  /** Entries of other nodes untouched this long are removed (default STALE_SCRATCH_MS). */
  readonly staleMs?: number;
  /** Now, for tests (default Date.now()). */
  readonly now?: number;
}

/**
 * The name of a server's scratch directory: its host and port, the same across its restarts
 * and different for any two servers running at once.
 * @example
 * nodeName(8080) // "gis-1-8080"
 */
export function nodeName(port: number, host = hostname()): string {
  return `${host.replace(/[^A-Za-z0-9._-]/g, "_") || "host"}-${port}`;
}

/**
 * Make `<dataDir>/tmp/<node>` empty, clear stale leftovers beside it; resolves to its path.
 * @example
 * const scratch = await openNodeScratch("/srv/strata/data", nodeName(8080));
 * // download files go to join(scratch, "download-<uuid>.nc")
 */
export async function openNodeScratch(dataDir: string, node: string, options: NodeScratchOptions = {}): Promise<string> {
  const tmp = join(dataDir, "tmp");
  const own = join(tmp, node);
  await rm(own, { recursive: true, force: true });
  await mkdir(own, { recursive: true });
  const now = options.now ?? Date.now();
  const staleMs = options.staleMs ?? STALE_SCRATCH_MS;
  for (const name of await readdir(tmp)) {
    if (name === node) continue;
    const entry = join(tmp, name);
    const newest = await newestChange(entry);
    // Gone meanwhile (another node cleaning up), or still in use.
    if (newest === undefined || now - newest < staleMs) continue;
    await rm(entry, { recursive: true, force: true });
  }
  return own;
}

/** The latest modification time of `path` or anything under it; undefined if it vanished. */
async function newestChange(path: string): Promise<number | undefined> {
  let info;
  try {
    info = await lstat(path);
  } catch {
    return undefined;
  }
  let newest = info.mtimeMs;
  if (!info.isDirectory()) return newest;
  let names: string[];
  try {
    names = await readdir(path);
  } catch {
    return newest;
  }
  for (const name of names) newest = Math.max(newest, (await newestChange(join(path, name))) ?? 0);
  return newest;
}
