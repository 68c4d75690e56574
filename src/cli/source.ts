/**
 * Resolve a CLI input (a path, an http(s) Zarr URL, or a /fileShares|/cloudStores URI of
 * a registered data store) to something io/ can open.
 */
import { InvalidInputError } from "../cube/errors.js";
import { createDataStoreRegistry, parseDataStoreSpec } from "../store/dataStores.js";

/** Stores from --store flags and the STRATA_DATA_STORES environment variable (';'-separated). */
export function storeSpecs(flags: readonly string[] = [], env = process.env.STRATA_DATA_STORES): string[] {
  return [
    ...(env
      ? env
          .split(";")
          .map((s) => s.trim())
          .filter(Boolean)
      : []),
    ...flags,
  ];
}

/**
 * @example
 * await resolveSource("/fileShares/climate/sst.nc", ["fileShare:climate=/srv/climate"])
 */
export async function resolveSource(input: string, specs: readonly string[]): Promise<string | URL> {
  if (/^https?:\/\//i.test(input)) return new URL(input);
  if (/^\/(fileShares|cloudStores)\//.test(input)) {
    if (specs.length === 0) {
      throw new InvalidInputError(`${input} names a data store, but no stores are registered (use --store or STRATA_DATA_STORES)`);
    }
    const registry = createDataStoreRegistry(specs.map(parseDataStoreSpec));
    const found = await registry.resolve(input);
    return found.kind === "file" ? found.path : new URL(found.url);
  }
  return input;
}
