/**
 * A job's scratch space: named blobs one pass of a walk leaves for the next (a share's
 * accumulators, their merge). It lives inside the job's pending dataset, so whatever removes
 * an uncommitted dataset (abort, the sweep at start) removes it too; `remove` drops it
 * before the dataset is committed.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface Scratch {
  write(name: string, bytes: Uint8Array): Promise<void>;
  read(name: string): Promise<Uint8Array>;
  remove(): Promise<void>;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * @example
 * const scratch = scratchIn(pending.path);
 * await scratch.write("u0-s1", sums.toBytes());
 */
export function scratchIn(datasetPath: string): Scratch {
  const dir = join(datasetPath, "strata-scratch");
  const at = (name: string): string => {
    if (!NAME.test(name)) throw new RangeError(`scratch name ${JSON.stringify(name)} is not a plain file name`);
    return join(dir, name);
  };
  return {
    async write(name, bytes) {
      await mkdir(dir, { recursive: true });
      await writeFile(at(name), bytes);
    },
    async read(name) {
      return new Uint8Array(await readFile(at(name)));
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
