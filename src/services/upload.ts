/**
 * Uploaded rasters (the web app's "add data"): a NetCDF, HDF5, GeoTIFF or zipped Zarr file
 * becomes a committed dataset of the raster store, as it came (a zip is unpacked to its
 * Zarr store), checked by opening it; and publishing one makes a hosted image service of
 * it, converted to Strata's Zarr with its statistics like every output.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, normalize, sep } from "node:path";
import { unzipSync } from "fflate";
import { InvalidInputError, StrataError } from "../cube/errors.js";
import type { Cube } from "../cube/types.js";
import { openCube } from "../io/open.js";
import type { RasterStore } from "../store/rasterStore.js";

/** What an upload was, as an item type. */
export type UploadType = "NetCDF" | "GeoTIFF" | "Zarr" | "HDF5";

/** The name an uploaded single-file raster has inside its dataset directory. */
const FILE_NAME = { NetCDF: "data.nc", GeoTIFF: "data.tif", HDF5: "data.h5" } as const;

/** Largest unpacked size of a zipped Zarr store. */
export const MAX_UNZIPPED_BYTES = 4 * 1024 ** 3;

/**
 * Commit an uploaded file as a dataset; a file that is no raster Strata reads is a 400
 * naming `file`, and nothing is kept.
 * @example
 * const { datasetId, type } = await storeUpload(store, "sst.nc", bytes);
 */
export async function storeUpload(
  store: RasterStore,
  fileName: string,
  bytes: Uint8Array,
): Promise<{ datasetId: string; type: UploadType; file?: string; cube: Cube }> {
  if (bytes.byteLength === 0) throw new InvalidInputError("file is empty", { parameter: "file" });
  const zip = bytes[0] === 0x50 && bytes[1] === 0x4b;
  const type: UploadType = zip ? "Zarr" : /\.tiff?$/i.test(fileName) ? "GeoTIFF" : /\.(h5|hdf5?|he5)$/i.test(fileName) ? "HDF5" : "NetCDF";
  // A dataset is a directory: a Zarr store is one, a single file sits in one.
  const file = type === "Zarr" ? undefined : FILE_NAME[type];
  const pending = await store.begin();
  try {
    if (zip) await unpackZarr(bytes, pending.path);
    else await writeFile(join(pending.path, file!), bytes);
    let cube: Cube;
    try {
      cube = await openCube(file ? join(pending.path, file) : pending.path);
    } catch (e) {
      if (e instanceof StrataError)
        throw new InvalidInputError(`file ${fileName} is not a raster Strata can read: ${e.message}`, { parameter: "file", cause: e });
      throw e;
    }
    await cube.close();
    const path = await pending.commit();
    return { datasetId: pending.id, type, ...(file ? { file } : {}), cube: await openCube(file ? join(path, file) : path) };
  } catch (e) {
    await pending.abort();
    throw e;
  }
}

/** Unpack a zipped Zarr store into `dir`: its root is where zarr.json, .zgroup or .zarray sits. */
async function unpackZarr(bytes: Uint8Array, dir: string): Promise<void> {
  let files: Record<string, Uint8Array>;
  let total = 0;
  try {
    files = unzipSync(bytes, {
      filter: (f) => {
        total += f.originalSize;
        if (total > MAX_UNZIPPED_BYTES)
          throw new InvalidInputError(`file unpacks to more than ${MAX_UNZIPPED_BYTES / 1024 ** 3} GiB`, { parameter: "file" });
        return !f.name.endsWith("/");
      },
    });
  } catch (e) {
    if (e instanceof InvalidInputError) throw e;
    throw new InvalidInputError(`file is not a readable zip archive (${e instanceof Error ? e.message : String(e)})`, {
      parameter: "file",
    });
  }
  const names = Object.keys(files);
  const marker = names
    .filter((n) => /(^|\/)(zarr\.json|\.zgroup|\.zarray)$/.test(n))
    .sort((a, b) => a.split("/").length - b.split("/").length)[0];
  if (marker === undefined)
    throw new InvalidInputError("file is a zip without a Zarr store in it (no zarr.json, .zgroup or .zarray)", { parameter: "file" });
  const root = marker.includes("/") ? marker.slice(0, marker.lastIndexOf("/") + 1) : "";
  await mkdir(dir, { recursive: true });
  for (const name of names) {
    if (!name.startsWith(root)) continue;
    const relative = normalize(name.slice(root.length));
    // Entries that would land outside the store (zip slip) are refused.
    if (relative.startsWith("..") || relative.startsWith(sep) || relative.includes(`${sep}..${sep}`)) {
      throw new InvalidInputError(`file holds an entry outside its folder: ${name}`, { parameter: "file" });
    }
    const target = join(dir, relative);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, files[name]);
  }
}
