/**
 * Bytes a dataset takes on disk: what quotas count. Links are not followed (a dataset holds
 * none of its own; one that did would not get to count what it points at).
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * @example
 * await directorySize("/data/rasters/01JABC"); // 48213504
 */
export async function directorySize(path: string): Promise<number> {
  const info = await lstat(path);
  if (!info.isDirectory()) return info.isFile() ? info.size : 0;
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    total += entry.isDirectory() ? await directorySize(child) : entry.isFile() ? (await lstat(child)).size : 0;
  }
  return total;
}
