/**
 * Open any supported raster as a Cube, choosing the reader by content (magic bytes), not
 * by file name: NetCDF-3, NetCDF-4/HDF5, GeoTIFF, or a Zarr directory / HTTP(S) base / S3
 * prefix. A location is a local path, an http(s) URL, or an `s3://bucket/key` URL (a string
 * or a URL object): Zarr on S3 is read by range requests through a local cache, a single file
 * on S3 from a local copy (s3Files.ts).
 * Readers are imported on first use, so a process (or worker thread) that never opens a
 * raster does not pay for them (h5wasm is most of it); warmReaders loads them ahead.
 */
import { open as openFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { NotFoundError, UnsupportedDataError } from "../cube/errors.js";
import { stackCubes } from "../cube/stack.js";
import type { Cube } from "../cube/types.js";
import { cubeFromRaw } from "./cf.js";
import { isS3Location, parseS3Url } from "./s3Location.js";

export type RasterFormat = "netcdf3" | "netcdf4" | "geotiff" | "zarr";

/**
 * Open a raster; `label` is how messages name it (what the client called it: the file it
 * uploaded, the `uri` it gave), so no error from opening or reading it shows a server path.
 * Without a label messages name the location itself (fine for the CLI, never for a server).
 * @example
 * const cube = await openCube("test/fixtures/real/monthly_navy_winds.cdf");
 * console.log(cube.variables.map((v) => v.name)); // ["UWND", "VWND"]
 * await cube.close();
 */
export async function openCube(location: string | URL, label?: string): Promise<Cube> {
  const where = location instanceof URL ? location.href : location;
  const name = label ?? where;
  const relabel = (e: unknown): unknown => {
    if (e instanceof Error && where !== name) e.message = e.message.split(where).join(name);
    return e;
  };
  let cube: Cube;
  try {
    cube = await openAt(location);
  } catch (e) {
    throw relabel(e);
  }
  const variables = cube.variables.map((v) => ({
    ...v,
    read: (selection?: Parameters<typeof v.read>[0]) =>
      v.read(selection).catch((e: unknown) => {
        throw relabel(e);
      }),
  }));
  return { ...cube, variables, close: () => cube.close() };
}

async function openAt(location: string | URL): Promise<Cube> {
  if (isS3Location(location)) return openS3(location.toString());
  if (location instanceof URL) return cubeFromRaw(await (await import("./zarrRead.js")).openZarr(location), location.href);
  const format = await detectFormat(location);
  switch (format) {
    case "netcdf3":
      return cubeFromRaw(await (await import("./netcdf3.js")).openNetcdf3(location), location);
    case "netcdf4":
      return cubeFromRaw(await (await import("./netcdf4.js")).openNetcdf4(location), location);
    case "zarr":
      return cubeFromRaw(await (await import("./zarrRead.js")).openZarr(location), location);
    case "geotiff":
      return (await import("./geotiff.js")).openGeotiff(location);
  }
}

/** A Zarr store under an S3 prefix, or a single file that is one object (opened from a local copy). */
async function openS3(url: string): Promise<Cube> {
  const where = parseS3Url(url);
  const { s3ZarrStore, readS3Object } = await import("./s3Store.js");
  const store = s3ZarrStore(where, url);
  const markers = await Promise.all(["/zarr.json", "/.zgroup", "/.zarray", "/.zmetadata"].map((m) => store.get(m as `/${string}`)));
  if (markers.some((m) => m !== undefined)) return cubeFromRaw(await (await import("./zarrRead.js")).openZarr(url), url);
  const head = await readS3Object(where, url, { offset: 0, length: 8 });
  if (head === undefined) throw new NotFoundError(`${url} does not exist`);
  if (!isNetcdf3(head) && !isHdf5(head) && !isTiff(head)) {
    throw new UnsupportedDataError(`${url} is not a format Strata reads (NetCDF-3, NetCDF-4/HDF5, GeoTIFF or Zarr)`);
  }
  const copy = await (await import("./s3Files.js")).localCopy(where, url);
  try {
    // Messages name the object, not the local copy; the copy stays pinned while the cube is open.
    const cube = await openCube(copy.path, url);
    return {
      ...cube,
      close: async () => {
        try {
          await cube.close();
        } finally {
          copy.release();
        }
      },
    };
  } catch (e) {
    copy.release();
    throw e;
  }
}

const HDF5_SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];

function isNetcdf3(head: Uint8Array): boolean {
  // "CDF" then 1 (classic), 2 (64-bit offset) or 5 (CDF-5, refused by the reader).
  return head[0] === 0x43 && head[1] === 0x44 && head[2] === 0x46 && [1, 2, 5].includes(head[3]);
}

function isHdf5(head: Uint8Array): boolean {
  return HDF5_SIGNATURE.every((b, i) => head[i] === b);
}

function isTiff(head: Uint8Array): boolean {
  const le = head[0] === 0x49 && head[1] === 0x49 && (head[2] === 42 || head[2] === 43) && head[3] === 0;
  const be = head[0] === 0x4d && head[1] === 0x4d && head[2] === 0 && (head[3] === 42 || head[3] === 43);
  return le || be;
}

export async function detectFormat(path: string): Promise<RasterFormat> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new NotFoundError(`${path} does not exist`);
  if (info.isDirectory()) {
    const marker = await Promise.any([".zgroup", ".zarray", "zarr.json", ".zmetadata"].map((m) => stat(join(path, m)))).catch(
      () => undefined,
    );
    if (marker) return "zarr";
    throw new UnsupportedDataError(`${path} is a directory but not a Zarr store (no zarr.json, .zgroup or .zarray)`);
  }
  const fh = await openFile(path, "r");
  const head = new Uint8Array(8);
  try {
    await fh.read(head, 0, 8, 0);
  } finally {
    await fh.close();
  }
  if (isNetcdf3(head)) return "netcdf3";
  if (isHdf5(head)) return "netcdf4";
  if (isTiff(head)) return "geotiff";
  throw new UnsupportedDataError(`${path} is not a format Strata reads (NetCDF-3, NetCDF-4/HDF5, GeoTIFF or Zarr)`);
}

/** Where an input raster lives: a path, a Zarr URL, or several rasters to stack (a folder). */
export interface RasterLocation {
  readonly path?: string;
  readonly url?: string;
  /** How messages name it: what the client called it (see openCube). */
  readonly label?: string;
  readonly stack?: readonly { readonly name: string; readonly path?: string; readonly url?: string; readonly label?: string }[];
}

/**
 * Open a located raster; a stack is opened member by member and stacked along the
 * dimension its members share (StdTime when they all have it).
 * @example
 * const cube = await openLocation({ stack: [{ name: "jan", path: "/data/rasters/a" }, { name: "feb", path: "/data/rasters/b" }] });
 */
export async function openLocation(location: RasterLocation, parameter = "input"): Promise<Cube> {
  const one = (l: { path?: string; url?: string; label?: string }) => openCube(l.url ? new URL(l.url) : l.path!, l.label);
  if (!location.stack) return one(location);
  const cubes: Cube[] = [];
  try {
    for (const member of location.stack) cubes.push(await one(member));
    return stackCubes(
      cubes,
      location.stack.map((m) => m.name),
      parameter,
    );
  } catch (e) {
    await Promise.all(cubes.map((c) => c.close()));
    throw e;
  }
}

/**
 * Import the readers openCube chooses between and make the HDF5 library ready (with its
 * guard), for a thread about to open rasters (a job thread kept ready, a server's request
 * thread): instantiating h5wasm took ~0.12 s of a NetCDF-4 job's start on a fresh thread. A
 * reader that cannot load rejects here as it would at its first open.
 * @example
 * await warmReaders(); // then the first openCube of a NetCDF-4 file skips the library's start
 */
export async function warmReaders(): Promise<void> {
  await Promise.all([
    import("./hdf5Guard.js").then(({ guardedH5wasm }) => guardedH5wasm()),
    import("./netcdf4.js"),
    import("./netcdf3.js"),
    import("./zarrRead.js"),
  ]);
}
