/**
 * Uploaded rasters (the web app's "add data"): a NetCDF, HDF5, GeoTIFF or zipped Zarr file,
 * already streamed to disk by the HTTP layer, becomes a committed dataset of the raster
 * store, as it came (a zip is unpacked to its Zarr store), checked by opening it. Runs on a
 * work thread. A zip is hostile until read: every entry's declared size is checked against
 * what is left of the budget and against a compression-ratio limit before it is unpacked,
 * and its actual size while it is (a lying header stops the read); entries are written as
 * plain files inside the dataset, never as links, never outside it.
 */
import { createWriteStream } from "node:fs";
import { copyFile, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { InvalidInputError, StrataError } from "../cube/errors.js";
import { openCube } from "../io/open.js";
import { directorySize } from "../store/diskUsage.js";
import type { RasterStore } from "../store/rasterStore.js";

/** What an upload was, as an item type. */
export type UploadType = "NetCDF" | "GeoTIFF" | "Zarr" | "HDF5";

/** The name an uploaded single-file raster has inside its dataset directory. */
const FILE_NAME = { NetCDF: "data.nc", GeoTIFF: "data.tif", HDF5: "data.h5" } as const;

/**
 * Largest ratio of unpacked to packed size a zip may declare. Zarr chunks are compressed
 * already (a real store zips at 1-3 ×); a zip bomb declares hundreds or thousands.
 */
export const MAX_ZIP_RATIO = 100;
/** Entries smaller than this are not held to the ratio (metadata of a few bytes packs well). */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** Most entries a zipped store may hold. */
export const MAX_ZIP_ENTRIES = 200_000;

/**
 * Commit the uploaded file at `upload` as a dataset of at most `maxBytes`; a file that is no
 * raster Strata reads, or too large, is a 400 naming `file`, and nothing is kept (the upload
 * itself is moved into the dataset or left for the caller to remove). `notes` say what of the
 * file is not read (variables, coordinates) and which dimensions count 0..n-1.
 * @example
 * const { datasetId, type, bytes } = await storeUpload(store, "/data/tmp/uploads/9f1c", "sst.nc", 10 * 1024 ** 3);
 */
export async function storeUpload(
  store: RasterStore,
  upload: string,
  fileName: string,
  maxBytes: number,
): Promise<{ datasetId: string; type: UploadType; file?: string; bytes: number; notes: string[] }> {
  const size = (await stat(upload)).size;
  if (size === 0) throw new InvalidInputError("file is empty", { parameter: "file" });
  if (size > maxBytes) throw tooLarge(size, maxBytes);
  const zip = await startsWithZipSignature(upload);
  const type: UploadType = zip ? "Zarr" : /\.tiff?$/i.test(fileName) ? "GeoTIFF" : /\.(h5|hdf5?|he5)$/i.test(fileName) ? "HDF5" : "NetCDF";
  // A dataset is a directory: a Zarr store is one, a single file sits in one.
  const file = type === "Zarr" ? undefined : FILE_NAME[type];
  const pending = await store.begin();
  try {
    if (zip) await unpackZarr(upload, size, pending.path, maxBytes);
    else await moveFile(upload, join(pending.path, file!));
    let notes: string[];
    try {
      const cube = await openCube(file ? join(pending.path, file) : pending.path, fileName);
      notes = cube.skipped.map((s) => s.reason);
      await cube.close();
    } catch (e) {
      if (e instanceof StrataError)
        throw new InvalidInputError(`file ${fileName} is not a raster Strata can read: ${e.message}`, { parameter: "file", cause: e });
      throw e;
    }
    const bytes = await directorySize(pending.path);
    if (bytes > maxBytes) throw tooLarge(bytes, maxBytes);
    await pending.commit();
    return { datasetId: pending.id, type, ...(file ? { file } : {}), bytes, notes };
  } catch (e) {
    await pending.abort();
    throw e;
  }
}

function tooLarge(bytes: number, maxBytes: number): InvalidInputError {
  return new InvalidInputError(
    `file needs ${mib(bytes)} of storage, more than the ${mib(maxBytes)} left to you (the upload limit or your storage quota)`,
    { parameter: "file" },
  );
}

const mib = (n: number): string => `${(n / 1024 ** 2).toFixed(1)} MiB`;

async function startsWithZipSignature(path: string): Promise<boolean> {
  const fh = await open(path, "r");
  try {
    const head = new Uint8Array(4);
    await fh.read(head, 0, 4, 0);
    // A local file header, or the end record of an empty archive.
    return head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
  } finally {
    await fh.close();
  }
}

/** Rename where the upload sits on the same file system as the store (the usual case), else copy. */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EXDEV") throw e;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}

/**
 * Unpack the zipped Zarr store at `zipPath` into `dir`: its root is where zarr.json, .zgroup
 * or .zarray sits nearest the top. yauzl refuses absolute names, `..` and backslashes, and
 * (validateEntrySizes) an entry whose data is longer than its header says.
 */
async function unpackZarr(zipPath: string, zipBytes: number, dir: string, maxBytes: number): Promise<void> {
  const zip = await openZip(zipPath);
  try {
    const entries = await listEntries(zip);
    const files = entries.filter((e) => !e.fileName.endsWith("/"));
    const marker = files
      .map((e) => e.fileName)
      .filter((n) => /(^|\/)(zarr\.json|\.zgroup|\.zarray)$/.test(n))
      .sort((a, b) => a.split("/").length - b.split("/").length)[0];
    if (marker === undefined)
      throw new InvalidInputError("file is a zip without a Zarr store in it (no zarr.json, .zgroup or .zarray)", { parameter: "file" });
    const root = marker.includes("/") ? marker.slice(0, marker.lastIndexOf("/") + 1) : "";
    const kept = files.filter((e) => e.fileName.startsWith(root));
    const declared = kept.reduce((n, e) => n + e.uncompressedSize, 0);
    if (declared > RATIO_FLOOR_BYTES && declared / zipBytes > MAX_ZIP_RATIO) throw bomb(declared, zipBytes);
    for (const e of kept) {
      if (e.uncompressedSize > RATIO_FLOOR_BYTES && e.uncompressedSize / Math.max(1, e.compressedSize) > MAX_ZIP_RATIO)
        throw bomb(e.uncompressedSize, e.compressedSize, e.fileName);
    }
    if (declared > maxBytes) throw tooLarge(declared, maxBytes);
    await mkdir(dir, { recursive: true });
    let written = 0;
    for (const entry of kept) {
      const target = join(dir, entry.fileName.slice(root.length));
      await mkdir(dirname(target), { recursive: true });
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          written += chunk.length;
          if (written > declared) done(bomb(written, zipBytes));
          else done(null, chunk);
        },
      });
      await pipeline(await readEntry(zip, entry), counter, createWriteStream(target, { flags: "wx" }));
    }
  } catch (e) {
    if (e instanceof StrataError) throw e;
    throw new InvalidInputError(`file is not a readable zip archive (${e instanceof Error ? e.message : String(e)})`, {
      parameter: "file",
    });
  } finally {
    zip.close();
  }
}

function bomb(unpacked: number, packed: number, entry?: string): InvalidInputError {
  return new InvalidInputError(
    `file ${entry ? `entry ${entry} ` : ""}unpacks ${mib(packed)} into ${mib(unpacked)}, more than ${MAX_ZIP_RATIO} times: refused as a zip bomb`,
    { parameter: "file" },
  );
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true }, (err, zip) =>
      err ? reject(err) : resolve(zip),
    ),
  );
}

function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  if (zip.entryCount > MAX_ZIP_ENTRIES)
    return Promise.reject(new InvalidInputError(`file holds ${zip.entryCount} entries; at most ${MAX_ZIP_ENTRIES}`, { parameter: "file" }));
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on("entry", (e: yauzl.Entry) => {
      entries.push(e);
      zip.readEntry();
    });
    zip.once("end", () => resolve(entries));
    zip.once("error", reject);
    zip.readEntry();
  });
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream))));
}
