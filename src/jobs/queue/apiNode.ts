/**
 * What `strata serve --queue redis://...` uses instead of its own threads: the queued job
 * service, on a connection that is up before the server says it is serving.
 */
import type { MetadataDatabase } from "../../store/metadataDb.js";
import type { JobService } from "../executor.js";
import { createQueueJobService } from "./queueJobService.js";
import { connectRedis } from "./redisConnection.js";

/**
 * @example
 * const jobs = await queuedJobService(db, "redis://127.0.0.1:6379", 7 * 86_400_000, console.error);
 */
export async function queuedJobService(
  db: MetadataDatabase,
  url: string,
  retentionMs: number,
  log: (message: string, error?: unknown) => void,
): Promise<JobService> {
  const redis = await connectRedis(url, "queue", (message) => log(message));
  return createQueueJobService({ db, redis, retentionMs, log });
}
