/**
 * `--raster-store` (STRATA_RASTER_STORE): an s3:// URL, checked with the S3 environment
 * before anything starts; every bad value is refused naming the flag and the reason, and
 * without it nothing changes (the local store under the data directory).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import { resolveServeConfig } from "../../src/cli/serveConfig.js";

const refused = (flags: Record<string, string>, env: Record<string, string>, reason: RegExp) =>
  assert.throws(
    () => resolveServeConfig(flags as never, env),
    (e: unknown) => e instanceof InvalidInputError && e.message.startsWith("--raster-store: ") && reason.test(e.message),
  );

describe("--raster-store", () => {
  it("is absent by default and taken from the flag or STRATA_RASTER_STORE", () => {
    assert.equal(resolveServeConfig({}, {}).rasterStore, undefined);
    assert.equal(resolveServeConfig({ "raster-store": "s3://rasters/strata" } as never, {}).rasterStore, "s3://rasters/strata");
    assert.equal(resolveServeConfig({}, { STRATA_RASTER_STORE: "s3://rasters" }).rasterStore, "s3://rasters");
  });

  it("refuses a bad URL, endpoint or cache size, naming the flag and the reason", () => {
    refused({ "raster-store": "/srv/rasters" }, {}, /not an S3 URL of the form s3:\/\/bucket\/prefix/);
    refused({ "raster-store": "s3://" }, {}, /names no bucket/);
    refused({ "raster-store": "s3://Bad_Bucket/x" }, {}, /bucket name "Bad_Bucket" is not valid/);
    refused({ "raster-store": "s3://key:secret@rasters/x" }, {}, /must not carry credentials/);
    refused({ "raster-store": "s3://rasters/a/../b" }, {}, /may not hold the segment/);
    refused({ "raster-store": "s3://rasters" }, { AWS_ENDPOINT_URL: "not a url" }, /AWS_ENDPOINT_URL is not a URL/);
    refused({ "raster-store": "s3://rasters" }, { AWS_ENDPOINT_URL: "http://k:s@minio:9000" }, /must not carry credentials/);
    refused({ "raster-store": "s3://rasters" }, { STRATA_RASTER_CACHE_SIZE: "lots" }, /STRATA_RASTER_CACHE_SIZE must be a size/);
  });

  it("never repeats a secret given in the URL", () => {
    for (const url of ["s3://AKIA:hunter2@rasters", "s3://AKIA:hunter2@rasters/p?x=1"]) {
      assert.throws(
        () => resolveServeConfig({ "raster-store": url } as never, {}),
        (e: Error) => e.message.startsWith("--raster-store: ") && !e.message.includes("hunter2"),
      );
    }
  });
});
