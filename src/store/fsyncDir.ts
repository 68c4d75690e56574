/**
 * Flushing a directory's entries to disk, so a rename into it survives a power cut.
 */

import { open } from "node:fs/promises";

/**
 * fsync a directory (POSIX). Where directories cannot be opened or synced (Windows, some
 * network file systems) this is a no-op: the rename itself is still atomic there.
 *
 * @example
 * await rename(tmp, final);
 * await fsyncDir(dirname(final));
 */
export async function fsyncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
  } catch (err) {
    if (isUnsupported(err)) return;
    throw err;
  }
  try {
    await handle.sync();
  } catch (err) {
    if (!isUnsupported(err)) throw err;
  } finally {
    await handle.close();
  }
}

function isUnsupported(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "EISDIR" || code === "EPERM" || code === "EACCES" || code === "EINVAL";
}
