/**
 * The life of a dataset being written, shared by every raster store: open, then committed
 * (once; a failed commit may be retried, a successful one is remembered) or aborted (then
 * never committed). What commit and abort do is the store's.
 */
import { NotFoundError } from "../cube/errors.js";

/** A dataset being written: invisible until `commit()`. */
export interface PendingDataset {
  readonly id: string;
  /** Local directory to write into (e.g. the Zarr store root). */
  readonly path: string;
  /** Publish the dataset atomically; resolves to its location (rasterStore.resolve's). Idempotent. */
  commit(): Promise<string>;
  /** Delete what was written. Idempotent; a no-op once committed (use `remove(id)` then). */
  abort(): Promise<void>;
}

/**
 * @example
 * return pendingDataset(id, path, () => publish(id, path), () => rm(path, { recursive: true, force: true }));
 */
export function pendingDataset(id: string, path: string, publish: () => Promise<string>, discard: () => Promise<void>): PendingDataset {
  let state: "open" | "committed" | "aborted" = "open";
  let committing: Promise<string> | undefined;

  const doCommit = async (): Promise<string> => {
    try {
      const location = await publish();
      state = "committed";
      return location;
    } catch (e) {
      // Its files are gone (swept or aborted elsewhere): it can never be committed now.
      if (e instanceof NotFoundError) state = "aborted";
      throw e;
    }
  };

  return {
    id,
    path,
    commit() {
      if (state === "aborted") {
        return Promise.reject(new Error(`Dataset ${id} was aborted and cannot be committed.`));
      }
      committing ??= doCommit().catch((err: unknown) => {
        committing = undefined;
        throw err;
      });
      return committing;
    },
    async abort() {
      if (committing) await committing.catch(() => undefined);
      if (state === "committed") return;
      state = "aborted";
      await discard();
    },
  };
}
