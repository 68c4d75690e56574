/**
 * Where a raster lives, as one string that travels through job records and thread messages
 * unchanged: an absolute local path, or an `s3://bucket/key` URL (an S3 object, or the prefix
 * under which a Zarr store's objects sit). Only plain key segments are accepted, so a key can
 * never climb out of the prefix it was joined under.
 */
import { InvalidInputError } from "../cube/errors.js";

/** A local path, or an `s3://bucket/key` URL. */
export type DatasetLocation = string;

/** An S3 object or prefix: `key` has no leading or trailing "/" ("" is the bucket's root). */
export interface S3Location {
  readonly bucket: string;
  readonly key: string;
}

/** Bucket names as S3 and the compatible servers accept them (3-63 lower-case letters, digits, "." and "-"). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** A key segment: not empty, "." or "..", no backslash, no control character. */
const SEGMENT = {
  test: (s: string): boolean => s !== "" && s !== "." && s !== ".." && ![...s].some((c) => c === "\\" || c < " " || c === "\x7f"),
};

/**
 * @example
 * isS3Location("s3://rasters/strata/01JABC"); // true
 * isS3Location("/data/rasters/01JABC"); // false
 */
export function isS3Location(location: DatasetLocation | URL): boolean {
  return location instanceof URL ? location.protocol === "s3:" : /^s3:\/\//i.test(location);
}

/**
 * Parse `s3://bucket[/prefix]`; throws InvalidInputError saying what is wrong (the caller
 * names the flag or parameter).
 * @example
 * parseS3Url("s3://rasters/strata/"); // { bucket: "rasters", key: "strata" }
 * parseS3Url("s3://Bad_Bucket"); // throws: the bucket name ...
 */
export function parseS3Url(text: string): S3Location {
  const match = /^s3:\/\/([^/?#]*)(\/[^?#]*)?$/i.exec(text);
  if (!match) {
    // Not quoted when it may hold credentials (user:secret@...).
    const shown = text.includes("@") ? "the value" : JSON.stringify(text.slice(0, 200));
    throw new InvalidInputError(`${shown} is not an S3 URL of the form s3://bucket/prefix (no query, fragment or credentials)`);
  }
  const [, bucket, path = ""] = match;
  if (bucket === "") throw new InvalidInputError(`${JSON.stringify(text.slice(0, 200))} names no bucket (s3://bucket/prefix)`);
  if (bucket.includes("@") || bucket.includes(":")) {
    throw new InvalidInputError(`an S3 URL must not carry credentials or a port; the endpoint comes from AWS_ENDPOINT_URL`);
  }
  if (!BUCKET.test(bucket) || bucket.includes("..")) {
    throw new InvalidInputError(
      `the bucket name ${JSON.stringify(bucket.slice(0, 80))} is not valid: 3 to 63 lower-case letters, digits, "." and "-", starting and ending with a letter or digit`,
    );
  }
  const segments = path.split("/").filter((s) => s !== "");
  for (const s of segments) {
    if (!SEGMENT.test(s)) throw new InvalidInputError(`the S3 prefix may not hold the segment ${JSON.stringify(s.slice(0, 80))}`);
  }
  return { bucket, key: segments.join("/") };
}

/**
 * @example
 * s3Url({ bucket: "rasters", key: "strata/01JABC" }); // "s3://rasters/strata/01JABC"
 */
export function s3Url(location: S3Location): DatasetLocation {
  return `s3://${location.bucket}${location.key ? `/${location.key}` : ""}`;
}

/**
 * A key under `location`, from segments already checked to be plain (see checkS3Segment).
 * @example
 * childKey({ bucket: "b", key: "p/01JABC" }, "tas/c/0/0"); // "p/01JABC/tas/c/0/0"
 */
export function childKey(location: S3Location, relative: string): string {
  return location.key ? `${location.key}/${relative}` : relative;
}

/**
 * A file or directory inside a location, for both kinds (path.join would fold "s3://" into "s3:/").
 * @example
 * joinLocation("s3://b/p/01JABC", "data.nc"); // "s3://b/p/01JABC/data.nc"
 * joinLocation("/data/rasters/01JABC", "overviews/1"); // "/data/rasters/01JABC/overviews/1"
 */
export function joinLocation(location: DatasetLocation, relative: string): DatasetLocation {
  const segments = relative.split("/").filter((s) => s !== "");
  for (const s of segments) {
    if (!SEGMENT.test(s)) throw new InvalidInputError(`${JSON.stringify(relative.slice(0, 80))} is not a plain relative path`);
  }
  if (segments.length === 0) return location;
  return `${location.replace(/\/+$/, "")}/${segments.join("/")}`;
}
