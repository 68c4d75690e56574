/**
 * The S3 client of this process (one per thread), configured the way every AWS tool is: the
 * endpoint from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (then path-style addressing, which
 * S3-compatible servers need), the region from AWS_REGION or AWS_DEFAULT_REGION (us-east-1
 * when neither is set), and credentials through the SDK's default chain (AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, instance metadata). Nothing here ever puts
 * a credential into a message.
 */
import { S3Client } from "@aws-sdk/client-s3";
import { StrataError } from "../cube/errors.js";
import { s3Settings } from "./s3Settings.js";

/** A failure to reach or use S3: what went wrong, never a credential or a stack. */
export class S3AccessError extends StrataError {}

let client: { key: string; client: S3Client } | undefined;

/**
 * The thread's client for the current environment (made again if the environment changed).
 * @example
 * const s3 = s3Client();
 * await s3.send(new HeadBucketCommand({ Bucket: "rasters" }));
 */
export function s3Client(env: Readonly<Record<string, string | undefined>> = process.env): S3Client {
  const settings = s3Settings(env);
  const key = JSON.stringify(settings);
  if (client?.key === key) return client.client;
  // The SDK nags once per thread that its releases after early 2027 will need Node 22; the
  // version installed is pinned by package-lock.json and runs on Node 20. Set it to "false" to see it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const made = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    // An endpoint that does not answer fails in seconds, not after the OS's TCP timeout.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
    maxAttempts: 4,
    // Checksums only where S3 requires them: S3-compatible servers that do not speak the
    // SDK's aws-chunked trailing checksums would store their framing as object bytes.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  client?.client.destroy();
  client = { key, client: made };
  return made;
}

/** Where requests go, for messages: the endpoint given, or AWS's. */
export function endpointName(env: Readonly<Record<string, string | undefined>> = process.env): string {
  try {
    return s3Settings(env).endpoint ?? "AWS S3";
  } catch {
    return "the S3 endpoint";
  }
}

interface SdkError {
  name?: string;
  code?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
  errors?: unknown[];
}

/** The HTTP status of an SDK error, if the server answered. */
export function s3Status(e: unknown): number | undefined {
  return (e as SdkError | undefined)?.$metadata?.httpStatusCode;
}

/** Whether an SDK error says the object (or bucket) is not there. */
export function isS3NotFound(e: unknown): boolean {
  const err = e as SdkError | undefined;
  return s3Status(e) === 404 || err?.name === "NoSuchKey" || err?.name === "NotFound" || err?.Code === "NoSuchKey";
}

/**
 * A user-readable reason for an SDK failure: the bucket missing, credentials refused, the
 * endpoint unreachable, or the server's error code. Never the request, its signature or a key.
 * @example
 * throw new S3AccessError(`reading s3://b/k: ${describeS3Error(e, "b")}`);
 */
export function describeS3Error(e: unknown, bucket: string): string {
  const err = e as SdkError | undefined;
  const name = err?.name ?? err?.Code ?? "";
  const status = s3Status(e);
  const network = networkCode(e);
  if (network) return `cannot reach ${endpointName()} (${network})`;
  if (name === "NoSuchBucket" || (status === 404 && name === "NotFound")) return `the bucket ${bucket} does not exist at ${endpointName()}`;
  if (name === "CredentialsProviderError")
    return "no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)";
  if (["InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "Forbidden"].includes(name) || status === 403)
    return `${endpointName()} refused the credentials for bucket ${bucket} (${name || "403"})`;
  if (name === "TimeoutError" || name === "RequestTimeout") return `${endpointName()} did not answer in time`;
  if (status !== undefined) return `${endpointName()} answered ${status}${name ? ` ${name}` : ""}`;
  return name ? `${name} from ${endpointName()}` : `S3 request failed at ${endpointName()}`;
}

/**
 * A short reason for an SDK failure that names no endpoint, bucket or key: for messages that
 * reach clients (the operator's messages use describeS3Error).
 * @example
 * s3Reason(e); // "ECONNREFUSED", "403 AccessDenied", "NoSuchBucket"
 */
export function s3Reason(e: unknown): string {
  const err = e as SdkError | undefined;
  const network = networkCode(e);
  if (network) return network;
  const name = err?.name ?? err?.Code ?? "";
  const status = s3Status(e);
  return [status, /^[A-Za-z]{1,64}$/.test(name) ? name : ""].filter(Boolean).join(" ") || "request failed";
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT"]);

function networkCode(e: unknown, depth = 0): string | undefined {
  if (!e || typeof e !== "object" || depth > 4) return undefined;
  const err = e as SdkError;
  if (err.code && NETWORK_CODES.has(err.code)) return err.code;
  if (err.name && NETWORK_CODES.has(err.name)) return err.name;
  for (const inner of [err.cause, ...(err.errors ?? [])]) {
    const found = networkCode(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}
