/**
 * A NetCDF-4/HDF5 chunk reader that reads chunk data itself: the chunk index gives each
 * chunk's byte range, a positional read fetches it, node:zlib inflates it on libuv's thread
 * pool and the shuffle is undone in a tight loop. Anything it does not understand (other
 * filters, shared or virtual storage, unusual types) is reported as Hdf5UnsupportedError so
 * the caller can fall back to a general HDF5 library.
 * @example
 * const file = await openHdf5Chunks("nc4uvt.nc");
 * const t = await file.dataset("grp1/T");
 * const slab = await t.read([0, 0, 0, 0], [1, 2, 8, 8]);
 * await file.close();
 */
import { open } from "node:fs/promises";
import { type Hdf5Dataset, openDataset } from "./dataset.js";
import { resolvePath } from "./groups.js";
import { Hdf5Source } from "./source.js";
import { readSuperblock } from "./superblock.js";

export type { Hdf5Dataset } from "./dataset.js";
export type { StoredChunk } from "./chunkIndex.js";
export { Hdf5FormatError, Hdf5UnsupportedError } from "./source.js";

export interface Hdf5File {
  /** The dataset at `path` ("grp1/T"); undefined if nothing is there. Throws Hdf5UnsupportedError for what this reader does not handle. */
  dataset(path: string): Promise<Hdf5Dataset | undefined>;
  close(): Promise<void>;
}

export async function openHdf5Chunks(path: string): Promise<Hdf5File> {
  const handle = await open(path, "r");
  try {
    const source = new Hdf5Source(handle, (await handle.stat()).size);
    const { rootObjectHeader } = await readSuperblock(source);
    const opened = new Map<string, Promise<Hdf5Dataset | undefined>>();
    return {
      dataset(name) {
        let dataset = opened.get(name);
        if (!dataset) {
          dataset = resolvePath(source, rootObjectHeader, name).then((address) =>
            address === undefined ? undefined : openDataset(source, address, name),
          );
          opened.set(name, dataset);
        }
        return dataset;
      },
      close: () => source.close(),
    };
  } catch (e) {
    await handle.close();
    throw e;
  }
}
