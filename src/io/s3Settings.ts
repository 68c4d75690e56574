/**
 * Where S3 requests go, from the environment every AWS tool reads: the endpoint from
 * AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (an S3-compatible server, addressed path-style),
 * the region from AWS_REGION or AWS_DEFAULT_REGION (us-east-1 when neither is set).
 * Credentials are the SDK's business (s3Client.ts). Apart from the client so that checking a
 * configuration does not load the SDK.
 */
import { InvalidInputError } from "../cube/errors.js";

export interface S3Settings {
  /** The endpoint of an S3-compatible server (no credentials in it), or undefined for AWS. */
  readonly endpoint?: string;
  readonly region: string;
}

/**
 * @example
 * s3Settings({ AWS_ENDPOINT_URL: "http://127.0.0.1:9000" }); // { endpoint: "http://127.0.0.1:9000", region: "us-east-1" }
 */
export function s3Settings(env: Readonly<Record<string, string | undefined>> = process.env): S3Settings {
  const name = env.AWS_ENDPOINT_URL_S3 ? "AWS_ENDPOINT_URL_S3" : "AWS_ENDPOINT_URL";
  const raw = env[name] || undefined;
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1";
  if (raw === undefined) return { region };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError(`${name} is not a URL (expected e.g. http://127.0.0.1:9000)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidInputError(`${name} must be an http:// or https:// URL`);
  if (url.username || url.password) {
    throw new InvalidInputError(`${name} must not carry credentials: give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`);
  }
  return { endpoint: url.href.replace(/\/$/, ""), region };
}
