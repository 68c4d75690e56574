/**
 * Cloud stores on S3 (`cloudStore:<name>=s3://bucket/prefix`): a uri resolves to an s3:// URL
 * under the store's prefix and never outside it, and the raster there opens (Zarr by range
 * requests, a NetCDF file from a local copy) with the values of the same data read locally.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { PathEscapeError } from "../../src/cube/errors.js";
import { openCube } from "../../src/io/open.js";
import { s3Client } from "../../src/io/s3Client.js";
import { createDataStoreRegistry, parseDataStoreSpec } from "../../src/store/dataStores.js";
import { openRasterStore } from "../../src/store/rasterStore.js";
import { copyIntoStore } from "../../src/tasks/subset.js";
import { type TestS3, startTestS3 } from "../helpers/s3Server.js";
import { writeSmallCube } from "../helpers/smallCube.js";

let s3: TestS3;
let work: string;
before(async () => {
  s3 = await startTestS3(["climate"]);
  work = await mkdtemp(join(tmpdir(), "strata-s3stores-"));
});
after(async () => {
  await s3.close();
  await rm(work, { recursive: true, force: true });
});

async function values(location: string | URL): Promise<number[]> {
  const cube = await openCube(location, "the test cube");
  try {
    const a = cube.variables.find((v) => v.name === "a")!;
    return [...(await a.read()).data];
  } finally {
    await cube.close();
  }
}

describe("S3 cloud stores", () => {
  it("resolve uris under the prefix, refuse escapes and bad URLs", async () => {
    const stores = createDataStoreRegistry([parseDataStoreSpec("cloudStore:cmip=s3://climate/cmip6/")]);
    assert.deepEqual(stores.list()[0], { kind: "cloudStore", name: "cmip", uri: "/cloudStores/cmip", url: "s3://climate/cmip6" });
    assert.deepEqual(await stores.resolve("/cloudStores/cmip/tas/day.zarr"), { kind: "s3", url: "s3://climate/cmip6/tas/day.zarr" });
    await assert.rejects(stores.resolve("/cloudStores/cmip/../secret"), PathEscapeError);
    await assert.rejects(stores.resolve("/cloudStores/cmip/a/%2e%2e/b"), PathEscapeError);
    assert.throws(() => createDataStoreRegistry([parseDataStoreSpec("cloudStore:x=s3://Bad_Bucket/p")]), /bucket name/);
    assert.throws(() => parseDataStoreSpec("fileShare:x=s3://climate/p"), /must be a directory/);
  });

  it("open a Zarr store and a NetCDF file on S3 with the values read locally", async () => {
    const nc = join(work, "small.nc");
    await writeSmallCube(nc);
    const expected = await values(nc);
    // A Zarr store on S3: Strata's own output of the cube, committed to a prefix of the bucket.
    const store = await openRasterStore(join(work, "data"), { remote: "s3://climate/zarr" });
    const cube = await openCube(nc);
    const id = await copyIntoStore(store, cube).finally(() => cube.close());
    await store.close();
    await s3Client().send(new PutObjectCommand({ Bucket: "climate", Key: "files/small.nc", Body: await readFile(nc) }));

    const stores = createDataStoreRegistry([parseDataStoreSpec("cloudStore:climate=s3://climate")]);
    const zarr = await stores.resolve(`/cloudStores/climate/zarr/${id}`);
    assert.deepEqual(await values(new URL(zarr.kind === "s3" ? zarr.url : "")), expected);
    const file = await stores.resolve("/cloudStores/climate/files/small.nc");
    assert.deepEqual(await values(file.kind === "s3" ? file.url : ""), expected);
    await assert.rejects(openCube("s3://climate/files/missing.nc", "the missing file"), /the missing file does not exist/);
  });
});
