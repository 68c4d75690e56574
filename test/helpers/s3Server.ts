/**
 * An S3-compatible server for tests (s3rver, in process, on a free loopback port, files in a
 * temporary directory), with the AWS environment pointed at it: AWS_ENDPOINT_URL and test
 * credentials are set in process.env (threads started afterwards inherit them) and restored
 * by `close()`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error -- s3rver ships no types; the little used here is typed below.
import S3rverModule from "s3rver";

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
const S3rver = S3rverModule as new (options: Record<string, unknown>) => S3rverInstance;

export interface TestS3 {
  readonly endpoint: string;
  /** Bucket names made at start. */
  readonly buckets: readonly string[];
  /** Where s3rver keeps its objects (bucket/key files), to look behind the API. */
  readonly directory: string;
  close(): Promise<void>;
}

const VARIABLES = ["AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"] as const;

/**
 * @example
 * const s3 = await startTestS3(["rasters"]);
 * // ... openRasterStore(dir, { remote: "s3://rasters/strata" })
 * await s3.close();
 */
export async function startTestS3(buckets: readonly string[] = ["rasters"]): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), "strata-s3-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const saved = Object.fromEntries(VARIABLES.map((v) => [v, process.env[v]]));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: endpoint,
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_REGION: "us-east-1",
  });
  return {
    endpoint,
    buckets,
    directory,
    async close() {
      for (const v of VARIABLES) {
        if (saved[v] === undefined) delete process.env[v];
        else process.env[v] = saved[v];
      }
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
