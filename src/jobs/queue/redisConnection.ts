/**
 * The connection to the Redis behind the job queue (`--queue redis://host:port`): up before
 * anything uses it, or refused with the flag and the reason. A URL may carry a password:
 * only describeRedisUrl's form of it is ever printed.
 */
import { Redis } from "ioredis";
import { InvalidInputError } from "../../cube/errors.js";
import { checkRedisUrl, describeRedisUrl } from "./redisUrl.js";

/** How long a start waits for Redis before saying it cannot reach it. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A connection to the Redis at `url`, up before it resolves; otherwise an InvalidInputError
 * naming `--<flag>`, the URL without its password, and the reason. Later losses of the
 * connection are retried for ever and reported to `log` once per outage.
 * @example
 * const redis = await connectRedis("redis://127.0.0.1:6379", "queue", console.error);
 */
export async function connectRedis(url: string, flag: string, log: (message: string) => void): Promise<Redis> {
  checkRedisUrl(url, flag);
  const where = describeRedisUrl(url);
  // BullMQ's blocking connections need maxRetriesPerRequest null (it duplicates this one).
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  let last = "";
  let down = false;
  redis.on("error", (err: Error) => {
    last = reason(err);
    if (!down && redis.status !== "connecting" && redis.status !== "wait")
      log(`Lost the connection to Redis at ${where}: ${last}; retrying.`);
    down = true;
  });
  redis.on("ready", () => {
    if (down && last) log(`Connected to Redis at ${where} again.`);
    down = false;
  });
  try {
    await Promise.race([
      redis.connect(),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(last || `no answer in ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS).unref(),
      ),
    ]);
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new InvalidInputError(`--${flag} ${where}: cannot reach Redis (${last || reason(err)})`, { parameter: flag });
  }
  down = false;
  return redis;
}

/** A reason without a stack, and without the URL (ioredis errors may quote it). */
function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/rediss?:\/\/\S*/g, "(the URL)").replace(/\s*\n[\s\S]*/, "");
}
