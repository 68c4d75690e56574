/**
 * Data-store configuration as it arrives from the CLI or the environment:
 * `fileShare:<name>=<directory>` or `cloudStore:<name>=<directory | http(s) base URL | s3://bucket/prefix>`.
 */

import { InvalidInputError } from "../cube/errors.js";

export type DataStoreKind = "fileShare" | "cloudStore";

/** One registered store: a directory (`path`) or, for cloud stores, an HTTP(S) base or an s3:// prefix (`url`). */
export interface DataStoreConfig {
  readonly kind: DataStoreKind;
  readonly name: string;
  readonly path?: string;
  readonly url?: string;
}

/** Store names: what can sit in one uri segment without encoding, and never "." or "..". */
export const DATA_STORE_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

const EXPECTED =
  'expected "fileShare:<name>=<directory>" or "cloudStore:<name>=<directory, http(s) URL or s3://bucket/prefix>", ' +
  'e.g. "fileShare:climate=/srv/climate", "cloudStore:era5=https://host/bucket/prefix" or "cloudStore:cmip=s3://cmip6/zarr"';

/**
 * Parse one data-store spec. The target is not checked here; registration does that.
 *
 * @example
 * parseDataStoreSpec("fileShare:climate=/srv/climate");
 * // { kind: "fileShare", name: "climate", path: "/srv/climate" }
 * parseDataStoreSpec("cloudStore:era5=https://host/bucket/prefix");
 * // { kind: "cloudStore", name: "era5", url: "https://host/bucket/prefix" }
 */
export function parseDataStoreSpec(text: string): DataStoreConfig {
  // Split on the first ":" and the first "=" after it, so targets may hold both (C:\data, ?a=b).
  const match = /^\s*([A-Za-z]+):([^=]*)=(.*?)\s*$/s.exec(text);
  const bad = (why: string): never => {
    throw new InvalidInputError(`Bad data store ${JSON.stringify(text)}: ${why}; ${EXPECTED}.`);
  };
  if (!match) return bad("not of the form kind:name=target");
  const [, kind, name, target] = match;
  if (kind !== "fileShare" && kind !== "cloudStore") return bad(`unknown kind "${kind}"`);
  if (!DATA_STORE_NAME_PATTERN.test(name)) {
    return bad(`the name "${name}" must be letters, digits, "_", "-" or "." and not start with "." or "-"`);
  }
  if (target === "") return bad("the target is empty");
  if (/^(https?|s3):\/\//i.test(target)) {
    if (kind === "fileShare") return bad("a file share must be a directory, not a URL");
    return { kind, name, url: target };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(target)) {
    return bad("only http://, https:// and s3:// URLs are supported");
  }
  return { kind, name, path: target };
}
