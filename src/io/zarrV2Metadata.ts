/**
 * Zarr v2 metadata beside a store's v3 metadata, naming the same chunk files, so readers that
 * know only v2 open Strata's outputs: GDAL 3.6 and zarr-python 2.13 (Debian 12's) read no Zarr
 * v3. This works because Strata's arrays use v2 chunk keys ("0/0/0") and chunks that are
 * plain zstd frames of the little-endian values, which is also numcodecs' zstd. Derived from
 * the v3 documents, so the two cannot say different things.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The parts of a v3 node's zarr.json this translates. */
export interface V3Node {
  readonly node_type: string;
  readonly shape?: number[];
  readonly data_type?: string;
  readonly chunk_grid?: { configuration: { chunk_shape: number[] } };
  readonly chunk_key_encoding?: { name: string; configuration?: { separator?: string } };
  readonly codecs?: { name: string; configuration?: Record<string, unknown> }[];
  readonly fill_value?: number | string | null;
  readonly dimension_names?: (string | null)[];
  readonly attributes: Record<string, unknown>;
}

/** numpy's type strings, little-endian (the bytes codec's order in Strata's arrays). */
const V2_DTYPES: Readonly<Record<string, string>> = {
  int8: "|i1",
  uint8: "|u1",
  int16: "<i2",
  uint16: "<u2",
  int32: "<i4",
  uint32: "<u4",
  float32: "<f4",
  float64: "<f8",
};

/**
 * Write `.zgroup`, `.zattrs`, each array's `.zarray`/`.zattrs` and a consolidated
 * `.zmetadata` (zarr-python 2's format) for the root group and the v3 `nodes` of the store at
 * `path`, by node name in the order given.
 * @example
 * await writeV2Metadata("/data/x.zarr", rootAttributes, new Map([["lat", latZarrJson]]));
 */
export async function writeV2Metadata(
  path: string,
  rootAttributes: Record<string, unknown>,
  nodes: ReadonlyMap<string, V3Node>,
): Promise<void> {
  const files: Record<string, unknown> = { ".zgroup": { zarr_format: 2 }, ".zattrs": rootAttributes };
  for (const [name, node] of nodes) {
    if (node.node_type !== "array") throw new Error(`${name}: Strata's outputs hold no nested groups to describe as Zarr v2`);
    const { zarray, zattrs } = v2Array(name, node, crsWkt(node, nodes));
    files[`${name}/.zarray`] = zarray;
    files[`${name}/.zattrs`] = zattrs;
  }
  for (const [key, doc] of Object.entries(files)) await writeFile(join(path, key), JSON.stringify(doc, null, 2));
  await writeFile(join(path, ".zmetadata"), JSON.stringify({ metadata: files, zarr_consolidated_format: 1 }, null, 2));
}

/**
 * The v2 documents of one v3 array. Throws when the array is not one v2 can describe over the
 * same chunks (an internal error: Strata creates every array so that it is).
 */
export function v2Array(name: string, node: V3Node, crs?: string): { zarray: Record<string, unknown>; zattrs: Record<string, unknown> } {
  const dtype = V2_DTYPES[node.data_type ?? ""];
  const keys = node.chunk_key_encoding;
  const [bytes, zstd, ...more] = node.codecs ?? [];
  if (
    !dtype ||
    !node.shape ||
    !node.chunk_grid ||
    keys?.name !== "v2" ||
    (keys.configuration?.separator !== "." && keys.configuration?.separator !== "/") ||
    bytes?.name !== "bytes" ||
    bytes.configuration?.endian !== "little" ||
    (zstd !== undefined && (zstd.name !== "zstd" || zstd.configuration?.checksum === true)) ||
    more.length > 0
  ) {
    throw new Error(
      `${name}: a Zarr v3 array Strata cannot describe as Zarr v2 (${JSON.stringify({ dtype: node.data_type, keys, codecs: node.codecs })})`,
    );
  }
  const { _FillValue: nodata, ...attributes } = node.attributes;
  const floating = node.data_type!.startsWith("float");
  const zarray = {
    zarr_format: 2,
    shape: node.shape,
    chunks: node.chunk_grid.configuration.chunk_shape,
    dtype,
    // numcodecs' Zstd takes only a level in zarr-python 2.13's numcodecs (0.11).
    compressor: zstd ? { id: "zstd", level: Number(zstd.configuration?.level ?? 3) } : null,
    filters: null,
    order: "C",
    // A 0-d array's one chunk is "0" either way; GDAL 3.6 crashes reading one that says "/".
    dimension_separator: node.shape.length > 0 ? keys.configuration.separator : ".",
    fill_value: v2Fill(node, nodata !== undefined, floating),
  };
  // _ARRAY_DIMENSIONS names the dimensions (xarray's convention, which GDAL reads too); _CRS
  // is GDAL's own, the only way GDAL 3.6 finds a Zarr array's CRS (it does not follow grid_mapping).
  return { zarray, zattrs: { ...attributes, ...(crs ? { _CRS: { wkt: crs } } : {}), _ARRAY_DIMENSIONS: node.dimension_names ?? [] } };
}

/** The WKT of the CF grid mapping `node` names, if it names one that has it. */
function crsWkt(node: V3Node, nodes: ReadonlyMap<string, V3Node>): string | undefined {
  const mapping = node.attributes.grid_mapping;
  const wkt = typeof mapping === "string" ? nodes.get(mapping)?.attributes.crs_wkt : undefined;
  return typeof wkt === "string" ? wkt : undefined;
}

/**
 * v2's fill_value is the nodata value, as xarray writes it (its readers mask it): the v3
 * fill where `_FillValue` says it is nodata, NaN for floats without one (Strata's implicit
 * nodata), else null, so no reader masks an integer array's zeros.
 */
function v2Fill(node: V3Node, hasNodata: boolean, floating: boolean): number | string | null {
  if (hasNodata) return node.fill_value ?? null;
  return floating && node.fill_value !== null && node.fill_value !== undefined ? "NaN" : null;
}
