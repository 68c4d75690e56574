/**
 * The registry of data stores that input descriptors may name by `uri` (SPEC §4):
 * `/fileShares/<name>/<path>` (a directory) and `/cloudStores/<name>/<path>` (a directory, an
 * HTTP(S) base URL, or an S3 prefix). Resolution never leaves the store: see confine.ts (for
 * S3, the decoded segments are joined under the prefix as plain key segments).
 */

import { realpathSync, statSync } from "node:fs";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { type S3Location, childKey, parseS3Url, s3Url } from "../io/s3Location.js";
import { decodeStorePath, joinUrlInside, resolveInsideDir } from "./confine.js";
import { DATA_STORE_NAME_PATTERN, type DataStoreConfig, type DataStoreKind } from "./dataStoreSpec.js";

export { parseDataStoreSpec, type DataStoreConfig, type DataStoreKind } from "./dataStoreSpec.js";

/** A registered store as `list()` reports it. */
export interface DataStoreInfo {
  readonly kind: DataStoreKind;
  readonly name: string;
  /** The uri prefix that names it, e.g. "/fileShares/climate". */
  readonly uri: string;
  /** Real path of the root directory, for directory-backed stores. */
  readonly path?: string;
  /** Base URL, for HTTP-backed cloud stores; the s3:// prefix, for S3-backed ones. */
  readonly url?: string;
}

/** Where a uri leads: an existing local file or directory, or a URL (not fetched here). */
export type ResolvedLocation = { kind: "file"; path: string } | { kind: "http"; url: string } | { kind: "s3"; url: string };

export interface DataStoreRegistry {
  list(): DataStoreInfo[];
  resolve(uri: string): Promise<ResolvedLocation>;
}

const PREFIX: Record<DataStoreKind, string> = {
  fileShare: "/fileShares",
  cloudStore: "/cloudStores",
};
const NOUN: Record<DataStoreKind, string> = {
  fileShare: "file share",
  cloudStore: "cloud store",
};
const URI_PATTERN = /^\/(fileShares|cloudStores)\/([^/]*)(?:\/(.*))?$/s;

type Entry = { info: DataStoreInfo } & ({ root: string } | { base: URL } | { s3: S3Location });

/**
 * Register `stores` (roots are realpath'd now, so a store must exist at start-up) and
 * return a resolver for uris naming them.
 *
 * @example
 * const stores = createDataStoreRegistry([
 *   parseDataStoreSpec("fileShare:climate=/srv/climate"),
 *   parseDataStoreSpec("cloudStore:era5=https://host/bucket/era5"),
 * ]);
 * await stores.resolve("/fileShares/climate/sst/monthly.nc");
 * // { kind: "file", path: "/srv/climate/sst/monthly.nc" }
 * await stores.resolve("/cloudStores/era5/t2m.zarr");
 * // { kind: "http", url: "https://host/bucket/era5/t2m.zarr" }
 * await stores.resolve("/fileShares/climate/../etc/passwd"); // throws PathEscapeError
 */
export function createDataStoreRegistry(stores: readonly DataStoreConfig[]): DataStoreRegistry {
  const byKind: Record<DataStoreKind, Map<string, Entry>> = {
    fileShare: new Map(),
    cloudStore: new Map(),
  };
  for (const config of stores) {
    const entry = register(config);
    const registered = byKind[config.kind];
    if (registered.has(config.name)) {
      throw new InvalidInputError(`The ${NOUN[config.kind]} "${config.name}" is registered twice.`);
    }
    registered.set(config.name, entry);
  }

  return {
    list: () => [...byKind.fileShare.values(), ...byKind.cloudStore.values()].map((e) => e.info),

    async resolve(uri) {
      const match = typeof uri === "string" ? URI_PATTERN.exec(uri) : null;
      if (!match) {
        throw new InvalidInputError(
          `The uri ${JSON.stringify(uri)} must have the form /fileShares/<share>/<path> or /cloudStores/<store>/<path>.`,
          { parameter: "uri" },
        );
      }
      const [, prefix, name, rest = ""] = match;
      const kind: DataStoreKind = prefix === "fileShares" ? "fileShare" : "cloudStore";
      const entry = byKind[kind].get(name);
      if (!entry) {
        const known = [...byKind[kind].keys()].map((n) => `"${n}"`).join(", ");
        throw new NotFoundError(
          `No ${NOUN[kind]} named ${JSON.stringify(name)}; ` +
            (known ? `the registered ${NOUN[kind]}s are ${known}.` : `no ${NOUN[kind]}s are registered.`),
          { parameter: "uri" },
        );
      }
      const segments = decodeStorePath(rest, uri);
      if ("root" in entry)
        return {
          kind: "file",
          path: await resolveInsideDir(entry.root, segments, uri),
        };
      if ("s3" in entry) return { kind: "s3", url: s3Url({ bucket: entry.s3.bucket, key: childKey(entry.s3, segments.join("/")) }) };
      return { kind: "http", url: joinUrlInside(entry.base, segments, uri) };
    },
  };
}

function register(config: DataStoreConfig): Entry {
  const { kind, name } = config;
  if (kind !== "fileShare" && kind !== "cloudStore") {
    throw new InvalidInputError(`Unknown data store kind ${JSON.stringify(kind)}: use fileShare or cloudStore.`);
  }
  if (!DATA_STORE_NAME_PATTERN.test(name)) {
    throw new InvalidInputError(
      `Bad ${NOUN[kind]} name ${JSON.stringify(name)}: use letters, digits, "_", "-" and ".", not starting with "." or "-".`,
    );
  }
  const label = `${NOUN[kind]} "${name}"`;
  const uri = `${PREFIX[kind]}/${name}`;
  if ((config.path === undefined) === (config.url === undefined)) {
    throw new InvalidInputError(`The ${label} needs exactly one of a directory path or a URL.`);
  }
  if (config.url !== undefined) {
    if (kind === "fileShare") throw new InvalidInputError(`The ${label} must be a directory, not a URL.`);
    if (/^s3:\/\//i.test(config.url)) {
      let s3: S3Location;
      try {
        s3 = parseS3Url(config.url);
      } catch (e) {
        throw new InvalidInputError(`The URL of the ${label} is not usable: ${(e as Error).message}.`);
      }
      return { info: { kind, name, uri, url: s3Url(s3) }, s3 };
    }
    const base = parseBaseUrl(config.url, label);
    return { info: { kind, name, uri, url: base.href }, base };
  }
  const root = realRoot(config.path!, label);
  return { info: { kind, name, uri, path: root }, root };
}

function realRoot(path: string, label: string): string {
  let root: string;
  try {
    root = realpathSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      throw new NotFoundError(`The directory of the ${label}, ${JSON.stringify(path)}, does not exist.`);
    }
    throw err;
  }
  if (!statSync(root).isDirectory()) {
    throw new InvalidInputError(`The ${label} must be a directory; ${JSON.stringify(path)} is not.`);
  }
  return root;
}

function parseBaseUrl(text: string, label: string): URL {
  let base: URL;
  try {
    base = new URL(text);
  } catch {
    throw new InvalidInputError(`The URL of the ${label}, ${JSON.stringify(text)}, is not a valid URL.`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new InvalidInputError(`The ${label} must use http or https, not ${base.protocol}`);
  }
  // Paths are appended to the base, so a query or fragment would end up in the wrong place,
  // and credentials in the URL would leak through list().
  if (base.search || base.hash || base.username || base.password) {
    throw new InvalidInputError(`The URL of the ${label} must not carry credentials, a query or a fragment.`);
  }
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  return base;
}
