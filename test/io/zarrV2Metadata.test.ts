/**
 * Strata's outputs carry Zarr v2 metadata beside the v3 metadata, over the same chunk files
 * (io/zarrV2Metadata.ts): the v2 documents say what the v3 ones say in v2's terms, a v2
 * reader (zarrita pinned to v2) reads the values written, Strata itself reads the store as
 * v3, and stores written before (v3 only with "c/" chunk keys, or v2 keys separated by "/")
 * still read the same.
 * GDAL and zarr-python 2 reading it: test/io/gdalReadsOutput.test.ts.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { openZarr } from "../../src/io/zarrRead.js";
import { v2Array } from "../../src/io/zarrV2Metadata.js";
import { SMALL_GRID, SMALL_SHAPE, SMALL_TIMES, SMALL_VALUES, writeSmallOutput } from "../helpers/smallOutput.js";

let dir = "";
let out = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-zarr-v2meta-"));
  out = join(dir, "out.zarr");
  await writeSmallOutput(out);
});
after(() => rm(dir, { recursive: true, force: true }));

const json = async (path: string) => JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;

/** Every value of a cube's variable, as numbers. */
async function values(cube: Cube, name: string): Promise<number[]> {
  const v = cube.variables.find((x) => x.name === name);
  assert.ok(v, `variable ${name}`);
  return Array.from((await v.read()).data);
}

describe("Zarr v2 metadata beside v3 in Strata's outputs", () => {
  it("name the same chunk files: v2 keys in v3, dimension_separator . in v2, no c/ directory", async () => {
    for (const name of ["tas", "count", "flag"]) {
      const v3 = await json(join(out, name, "zarr.json"));
      assert.deepEqual(v3.chunk_key_encoding, { name: "v2", configuration: { separator: "." } });
      const zarray = await json(join(out, name, ".zarray"));
      assert.equal(zarray.dimension_separator, ".");
      assert.deepEqual(zarray.chunks, [1, 4, 5]);
      assert.deepEqual((await readdir(join(out, name))).sort(), [".zarray", ".zattrs", "0.0.0", "1.0.0", "2.0.0", "zarr.json"]);
    }
    // A 0-d array's chunk is "0" either way; "/" there crashes GDAL 3.6's reader.
    assert.equal((await json(join(out, "spatial_ref", ".zarray"))).dimension_separator, ".");
    assert.deepEqual((await readdir(join(out, "spatial_ref"))).sort(), [".zarray", ".zattrs", "0", "zarr.json"]);
  });

  it("say what v3 says in v2's terms: dtype, zstd, nodata as fill_value, dimension names, GDAL's _CRS", async () => {
    const tas = await json(join(out, "tas", ".zarray"));
    assert.deepEqual(tas, {
      zarr_format: 2,
      shape: [...SMALL_SHAPE],
      chunks: [1, 4, 5],
      dtype: "<f4",
      compressor: { id: "zstd", level: 1 },
      filters: null,
      order: "C",
      dimension_separator: ".",
      fill_value: "NaN",
    });
    assert.equal((await json(join(out, "count", ".zarray"))).dtype, "<i2");
    assert.equal((await json(join(out, "count", ".zarray"))).fill_value, -1, "nodata is v2's fill_value");
    assert.equal((await json(join(out, "flag", ".zarray"))).fill_value, null, "no nodata: no fill value, so zeros are not masked");
    assert.equal((await json(join(out, "lat", ".zarray"))).fill_value, null, "coordinates have none");
    const countAttrs = await json(join(out, "count", ".zattrs"));
    const countV3 = (await json(join(out, "count", "zarr.json"))).attributes as Record<string, unknown>;
    assert.equal(countV3._FillValue, -1);
    assert.equal(countAttrs._FillValue, undefined, "v2 keeps nodata in fill_value, as xarray writes it");
    assert.deepEqual(countAttrs._ARRAY_DIMENSIONS, ["StdTime", "lat", "lon"]);
    assert.equal(countAttrs.grid_mapping, "spatial_ref");
    const wkt = ((await json(join(out, "spatial_ref", "zarr.json"))).attributes as Record<string, unknown>).crs_wkt;
    assert.deepEqual(countAttrs._CRS, { wkt });
    assert.deepEqual((await json(join(out, "spatial_ref", ".zattrs")))._ARRAY_DIMENSIONS, []);
    assert.deepEqual((await json(join(out, "lat", ".zattrs")))._ARRAY_DIMENSIONS, ["lat"]);
    assert.deepEqual(await json(join(out, ".zgroup")), { zarr_format: 2 });
    const rootV3 = (await json(join(out, "zarr.json"))).attributes;
    assert.deepEqual(await json(join(out, ".zattrs")), rootV3, "root attributes, statistics included");
  });

  it("consolidate the v2 documents in .zmetadata (zarr-python 2's format), each equal to its file", async () => {
    const zmetadata = await json(join(out, ".zmetadata"));
    assert.equal(zmetadata.zarr_consolidated_format, 1);
    const metadata = zmetadata.metadata as Record<string, unknown>;
    const keys = Object.keys(metadata);
    for (const node of ["lat", "lon", "spatial_ref", "StdTime", "tas", "count", "flag"]) {
      assert.ok(keys.includes(`${node}/.zarray`) && keys.includes(`${node}/.zattrs`), node);
    }
    for (const key of keys) assert.deepEqual(metadata[key], await json(join(out, key)), key);
  });

  it("read by a v2 reader (zarrita pinned to v2) as the values written", async () => {
    const store = await zarr.withConsolidatedMetadata(new FileSystemStore(out), { format: "v2" });
    for (const [name, { values: written }] of Object.entries(SMALL_VALUES)) {
      const arr = await zarr.open.v2(zarr.root(store).resolve(name), { kind: "array" });
      assert.deepEqual(arr.dimensionNames, ["StdTime", "lat", "lon"]);
      assert.deepEqual(Array.from((await zarr.get(arr, null)).data as ArrayLike<number>), written, name);
    }
    const ref = await zarr.open.v2(zarr.root(store).resolve("spatial_ref"), { kind: "array" });
    assert.equal(await zarr.get(ref, null), 0);
  });

  it("are not what Strata reads: it reads the v3 metadata, as it reads stores written before", async () => {
    const raw = await openZarr(out);
    for (const v of raw.variables) {
      assert.equal(v.attrs._CRS, undefined, `${v.name}: read from v3, not from v2's .zattrs`);
      if (v.name === "tas") assert.equal(v.attrs._FillValue, undefined, "no _FillValue from v2's fill_value");
    }
    const earlier = [];
    for (const layout of ["c/", "v2/"] as const) {
      const old = join(dir, `old${layout[0]}.zarr`);
      await writeSmallOutput(old);
      await toEarlierLayout(old, layout);
      earlier.push(old);
    }
    for (const path of [out, ...earlier]) {
      const cube = await openCube(path);
      try {
        assert.deepEqual(cube.grid.transform, SMALL_GRID.transform, path);
        assert.equal(cube.grid.crs.epsg, 4326);
        assert.deepEqual(
          cube.variables.map((v) => [v.name, v.pixelType, v.nodata]),
          [
            ["tas", "F32", NaN],
            ["count", "S16", -1],
            ["flag", "U8", undefined],
          ],
          path,
        );
        assert.deepEqual(cube.variables[0].dimensions[0].values, SMALL_TIMES);
        for (const [name, { values: written }] of Object.entries(SMALL_VALUES)) assert.deepEqual(await values(cube, name), written, name);
      } finally {
        await cube.close();
      }
    }
  });

  it("refuse to describe an array v2 cannot read over the same chunks, naming it", () => {
    const node = {
      node_type: "array",
      shape: [2],
      data_type: "float32",
      chunk_grid: { configuration: { chunk_shape: [2] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "zstd", configuration: { level: 1 } },
      ],
      fill_value: "NaN",
      attributes: {},
    };
    assert.throws(() => v2Array("x", node), /x: a Zarr v3 array Strata cannot describe as Zarr v2/);
    for (const separator of [".", "/"]) {
      const { zarray } = v2Array("x", { ...node, chunk_key_encoding: { name: "v2", configuration: { separator } } });
      assert.equal(zarray.dimension_separator, separator);
    }
    const big = {
      ...node,
      chunk_key_encoding: { name: "v2", configuration: { separator: "/" } },
      codecs: [{ name: "bytes", configuration: { endian: "big" } }],
    };
    assert.throws(() => v2Array("x", big), /cannot describe as Zarr v2/);
  });
});

/**
 * Turn a store into what Strata wrote before: "c/", before v2 metadata (v3 only, zarrita's
 * default chunk keys "c/0/0/0"; a 0-d array's chunk "c"); "v2/", until 2026-11 (v3 and v2
 * metadata over v2 keys separated by "/", "0/0/0"; the v2 documents are dropped here too).
 */
async function toEarlierLayout(path: string, layout: "c/" | "v2/"): Promise<void> {
  const v2Files = new Set([".zarray", ".zattrs", ".zgroup", ".zmetadata"]);
  const root = await json(join(path, "zarr.json"));
  const consolidated = (root.consolidated_metadata as { metadata: Record<string, Record<string, unknown>> }).metadata;
  for (const node of Object.keys(consolidated)) {
    const nodeDir = join(path, node);
    for (const entry of await readdir(nodeDir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = join(entry.parentPath, entry.name);
      const key = file.slice(nodeDir.length + 1);
      if (v2Files.has(entry.name)) await rm(file);
      else if (entry.name !== "zarr.json") {
        const zeroD = (consolidated[node].shape as number[]).length === 0;
        const indices = key.split(".");
        const target = join(nodeDir, ...(layout === "c/" ? (zeroD ? ["c"] : ["c", ...indices]) : indices));
        await mkdir(dirname(target), { recursive: true });
        await rename(file, target);
      }
    }
    const keys =
      layout === "c/" ? { name: "default", configuration: { separator: "/" } } : { name: "v2", configuration: { separator: "/" } };
    consolidated[node] = { ...consolidated[node], chunk_key_encoding: keys };
    await writeFile(join(nodeDir, "zarr.json"), JSON.stringify(consolidated[node]));
  }
  for (const name of v2Files) await rm(join(path, name), { force: true });
  await writeFile(join(path, "zarr.json"), JSON.stringify(root));
}
