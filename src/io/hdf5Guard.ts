/**
 * h5wasm's Node build reaches the host's files directly (Emscripten NODERAWFS), so an HDF5
 * file that stores data elsewhere (external storage, an external link, a virtual dataset)
 * would make the library open any file the server can read. The guard lets HDF5 open only
 * the files Strata itself opened or created; every other open fails as if forbidden, and the
 * reader reports the dataset as pointing outside its file.
 */
import { resolve } from "node:path";
import type H5 from "h5wasm/node";

type H5Module = typeof H5;

/** Files HDF5 may open now, with how many openers hold each. */
const allowed = new Map<string, number>();
/** Whether an open was refused since the last call to `refusedOpen` (for messages). */
let refused = false;
let guarding: Promise<H5Module> | undefined;

/**
 * h5wasm, ready, with the guard in place.
 * @example
 * const h5 = await guardedH5wasm();
 */
export function guardedH5wasm(): Promise<H5Module> {
  guarding ??= (async () => {
    const h5 = (await import("h5wasm/node")).default;
    const module = (await h5.ready) as unknown as { FS: EmscriptenFs };
    const { FS } = module;
    const open = FS.open;
    FS.open = function (this: unknown, path: unknown, ...rest: unknown[]) {
      if (typeof path === "string" && !allowed.has(resolve(path))) {
        refused = true;
        throw new FS.ErrnoError(EACCES);
      }
      return open.call(this, path, ...rest);
    };
    return h5;
  })();
  return guarding;
}

/** Emscripten's number for EACCES. */
const EACCES = 2;

interface EmscriptenFs {
  open: (...args: unknown[]) => unknown;
  ErrnoError: new (errno: number) => Error;
}

/**
 * Let HDF5 open `path` until the returned release is called.
 * @example
 * const release = allowHdf5(path); try { new h5.File(path, "r") } finally { ... release() }
 */
export function allowHdf5(path: string): () => void {
  const key = resolve(path);
  allowed.set(key, (allowed.get(key) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (allowed.get(key) ?? 1) - 1;
    if (n <= 0) allowed.delete(key);
    else allowed.set(key, n);
  };
}

/** Whether HDF5 tried to open a file it may not since the last call (and forget it). */
export function refusedOpen(): boolean {
  const was = refused;
  refused = false;
  return was;
}
